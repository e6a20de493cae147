// What every exactly-once send of one tick shares: the store, the chain, the tick's invocation as the
// owner of the slots it claims, the tick's time, how long a claim holds before a retry may take over,
// and how deep a receipt must be before its slot is final (the chain's confirmation depth).
import type { Hex } from 'viem'
import type { SendOnceParams, SlotSendOutcome } from '../../adapters/chain/sendOnce.ts'
import { attemptStep } from '../../core/lifecycle/tickPlan.ts'
import { isSpent, slotSentAt, type SlotRef, type TickSlot, type TickStore } from '../../core/store/index.ts'
import { confirmationDepth } from '../../core/finality.ts'
import type { TickDeps } from './types.ts'

/** How long a tick owns its Golem and its slots before a retry may take over (ms). */
export const DEFAULT_LEASE_MS = 120_000

export type SlotBase = Pick<SendOnceParams, 'store' | 'client' | 'chainId' | 'owner' | 'now' | 'leaseMs' | 'fees'> & {
  confirmations: number
}

export function slotBaseOf(deps: TickDeps, nowMs: number): SlotBase {
  return {
    store: deps.store,
    client: deps.client,
    chainId: deps.deployment.chainId,
    owner: deps.invocationId,
    now: nowMs,
    leaseMs: deps.leaseMs ?? DEFAULT_LEASE_MS,
    confirmations: confirmationDepth(deps.deployment.chainId, deps.confirmations),
    ...(deps.fees ? { fees: deps.fees } : {}),
  }
}

/**
 * When the transaction a send settled was recorded (store time, ms), whichever tick sent it: the
 * outcome's own time when it confirmed now, the slot's when an earlier tick completed it; `fallback` when
 * the store answers no slot. A send's event is timed by it, so every tick that records the event (one
 * that lost the send to another included) writes the same one, and the store keeps it once.
 */
export async function sentAtOf(store: Pick<TickStore, 'getSlot'>, sent: SlotSendOutcome, ref: SlotRef, fallback: number): Promise<number> {
  if (sent.status === 'confirmed') return sent.sentAt
  const slot = await store.getSlot(ref)
  return slot ? slotSentAt(slot) : fallback
}

/** The chain time (s) of the tick that recorded a slot's transaction, from its store time (ms). */
export const sentAtSeconds = (sentAtMs: number): bigint => BigInt(Math.floor(sentAtMs / 1000))

/**
 * What a send moved: when it settled another attempt's transaction (it lost the slot to that one), what
 * that one's signed bytes move (`read`); otherwise what this attempt planned.
 */
export function movedAmount(sent: SlotSendOutcome, read: (rawTx: Hex) => bigint | null, planned: bigint): bigint {
  return (sent.status === 'confirmed' && sent.earlier?.rawTx ? read(sent.earlier.rawTx) : null) ?? planned
}

/**
 * Whether a send's attempt is spent, so the send goes on under its next attempt's slot: it settled now
 * without landing (reverted, or its nonce taken), or it found its slot completed by an earlier tick that
 * saw the same.
 */
async function attemptSpent(store: Pick<TickStore, 'getSlot'>, sent: SlotSendOutcome, ref: SlotRef): Promise<boolean> {
  if (isSpent(sent.status)) return true
  return sent.status === 'busy' && sent.reason === 'completed' && isSpent((await store.getSlot(ref))?.status)
}

/**
 * A send with attempts (a phase post, a period's redemption): attempt `from` is sent, and while an attempt
 * is spent the next one is, up to `max`. Answers the last attempt's outcome and its slot.
 */
export async function sendAttempts<T extends SlotSendOutcome>(
  store: Pick<TickStore, 'getSlot'>,
  o: { first: SlotRef; from: number; max: number; send: (slot: SlotRef) => Promise<T> },
): Promise<{ sent: T; slot: SlotRef }> {
  const slotOf = (attempt: number) => ({ ...o.first, step: attemptStep(o.first.step, attempt) })
  let attempt = o.from
  let sent = await o.send(slotOf(attempt))
  while (attempt < o.max && (await attemptSpent(store, sent, slotOf(attempt)))) {
    attempt++
    sent = await o.send(slotOf(attempt))
  }
  return { sent, slot: slotOf(attempt) }
}

/**
 * A send's attempt slots up to the first that is not spent (absent, open or confirmed), at most `max`:
 * the send's own step, then each later attempt a spent one (reconciled, failed) was followed by.
 */
export async function attemptsOf(
  store: Pick<TickStore, 'getSlot'>,
  first: SlotRef,
  max: number,
): Promise<{ ref: SlotRef; slot: TickSlot | null }[]> {
  const attempts: { ref: SlotRef; slot: TickSlot | null }[] = []
  for (let attempt = 1; attempt <= max; attempt++) {
    const ref = { ...first, step: attemptStep(first.step, attempt) }
    const slot = await store.getSlot(ref)
    attempts.push({ ref, slot })
    if (!isSpent(slot?.status)) break
  }
  return attempts
}
