// The order of a tick's events. Every event a tick records carries the tick's time (its chain second),
// and the store lists events by time, then by event id. Each type is recorded its place in
// TICK_EVENT_ORDER of milliseconds into the tick, so that a list shows a tick's events in the order
// they happened (DeathProtocolStarted before DeathCompleted, whatever their ids), and the live stream,
// which resumes after the last event it sent, also sends an event written later in the same tick. The
// places follow the order in which a tick writes them: an event written later is never placed before
// one written earlier. A retried tick puts each event at the same time, under the same key.

import type { CustodyEvent } from './custodyEvents.ts'

/**
 * The types a tick records, in the order it writes them: the paid reprieve and the runtime bought
 * (written as they happen), then the tick's findings and effects (written together), then what follows
 * the tick's outcome (the session key's rotation, a halt, the end of a death).
 */
export const TICK_EVENT_ORDER = [
  'PhaseReset',
  'RuntimeBought',
  'DelegationAdjusted',
  'DelegationRevoked',
  'DelegationExpiringWarning',
  'BudgetWarning',
  'RenewalRequested',
  'GasRedeemed',
  'PhaseChanged',
  'RunwayRedeemed',
  'DeathProtocolStarted',
  'SessionKeyRotated',
  'HeartbeatAnomaly',
] as const

export type TickEventType = (typeof TICK_EVENT_ORDER)[number]

/**
 * What the death protocol records, after everything of the tick that runs it: Terminal as the oracle
 * took it (the Golem's own post, or the operator's reset when the key could not pay for it), then the
 * death's end. The death may start in one tick and finish in a later one; either way its events come
 * after the ones written before them.
 */
export const DEATH_EVENT_ORDER = ['PhaseChanged', 'PhaseReset', 'DeathCompleted'] as const

export type DeathEventType = (typeof DEATH_EVENT_ORDER)[number]

/**
 * The time of an event of `type` recorded by a tick at `tickMs` (milliseconds): its place in the tick.
 * A custody event a tick never records (DelegationGranted) keeps the time it is given.
 */
export function tickEventTime(tickMs: number, type: TickEventType | CustodyEvent['type']): number {
  return tickMs + placeOf(type)
}

/** The time of the death protocol's event of `type`, recorded at `tickMs`: after every place of a tick's own events. */
export function deathEventTime(tickMs: number, type: DeathEventType): number {
  return tickMs + TICK_EVENT_ORDER.length + 1 + DEATH_EVENT_ORDER.indexOf(type)
}

/** 1 for the first type written; 0 for a type a tick does not record. */
const placeOf = (type: string) => (TICK_EVENT_ORDER as readonly string[]).indexOf(type) + 1

/** A tick's custody events in the order they are written. */
export function inTickOrder(events: readonly CustodyEvent[]): CustodyEvent[] {
  return [...events].sort((a, b) => placeOf(a.type) - placeOf(b.type))
}

/**
 * The time of the owner's act that `bardo revoke` records (OwnerRevoked): the start of the chain second
 * of the block that holds the owner's transaction, in milliseconds. The tick that runs the death sees
 * the revocation at that block or a later one, and places its events after that second's start, so a
 * list shows the act before the death it caused, and a live stream that has sent the act still sends
 * the death. (The wall clock at the write is later than the chain's second, and put the act after the
 * death.)
 */
export function ownerActTime(blockTimestamp: bigint): number {
  return Number(blockTimestamp) * 1000
}
