// Settles what an earlier tick of this Golem left half-done, before this tick decides anything. A tick
// that crashed, or lost an RPC answer, after recording a transaction leaves its slot `sent`, and the
// chain may well have mined it: the observation then shows the phase already posted or the allowance
// already used, so a tick that decided first would never touch the slot again (receipt unrecorded,
// reservation never committed, PhaseChanged / RunwayRedeemed never written). Each pending slot is
// reconciled through sendOnce (receipt, account nonce, or a re-broadcast of the identical signed bytes:
// never a second signature) and its event is timed as the tick that sent it, so an event that tick did
// write is not written twice (events are idempotent by time and key). A slot whose transaction is mined
// but not yet as deep as the chain's confirmation depth stays `sent` (the tick reports it `pending`) and
// is settled here on every later tick until it is final: a reorg that took its block away is found here,
// and the same signed bytes are broadcast again (core/finality.ts).
import { parseEventLogs, type Hex, type TransactionReceipt } from 'viem'
import { signedExecutionValue, signedTransferAmount } from '../../core/delegations/redeem.ts'
import { GAS_STEP, gasPeriodAt } from '../../core/lifecycle/gasPlan.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'
import type { TickChainClient } from '../../adapters/chain/tickChainClient.ts'
import { VitalityOracleTickAbi } from '../../adapters/chain/oracleAbi.ts'
import type { CustodyEvent } from '../../core/lifecycle/custodyEvents.ts'
import { phaseNames, type Phase } from '../../core/lifecycle/phase.ts'
import {
  attemptStep,
  runwayAttemptFromRecord,
  MAX_PHASE_POST_ATTEMPTS,
  MAX_REDEMPTION_ATTEMPTS,
  phaseStep,
  ATTEMPTS_SPENT,
  RUNWAY_STEP,
} from '../../core/lifecycle/tickPlan.ts'
import { type GolemRecord, isSpent, slotSentAt, type SlotRef, type TickSlot, type TickStore } from '../../core/store/index.ts'
import { settleSlot } from '../../adapters/chain/sendOnce.ts'
import type { ObservedGolem } from '../../core/lifecycle/observation.ts'
import { attemptsOf, sentAtSeconds, type SlotBase } from './slots.ts'

export type PendingSettlement = {
  /** Events of the slots settled here, at the time of the tick that sent them. */
  events: CustodyEvent[]
  /** This period's runway slot, when it was settled here: this tick must not plan another one. */
  runway?: { status: string; amount: bigint; txHash: Hex | null }
  /** The first of this period's runway attempts not spent, when they were read. */
  runwayAttempt?: number
  /**
   * What the redemption planner must count as in flight: only a recorded, unsettled transaction (its
   * amount read from its signed bytes); a claim that never recorded one moved nothing.
   */
  inFlightAmount: bigint
}

/**
 * The PhaseChanged event of a confirmed phase slot, as the chain recorded it (the PhaseTransition log),
 * timed at the tick that signed the transaction. Every tick that records it (the one that posted, a
 * duplicate, a later settle) writes the same event, so the store keeps it once.
 */
export async function phaseChangedEvent(
  client: TickChainClient,
  store: TickStore,
  ref: SlotRef,
  receipt?: TransactionReceipt,
): Promise<CustodyEvent | null> {
  const slot = await store.getSlot(ref)
  if (slot?.status !== 'confirmed' || !slot.txHash) return null
  const logs = (receipt ?? (await client.getTransactionReceipt({ hash: slot.txHash }))).logs
  const [log] = parseEventLogs({ abi: VitalityOracleTickAbi, logs, eventName: 'PhaseTransition' })
  if (!log) return null
  return {
    type: 'PhaseChanged',
    at: sentAtSeconds(slotSentAt(slot)),
    from: log.args.fromPhase,
    to: log.args.toPhase,
    survivalScoreBps: log.args.survivalScore,
  }
}

/**
 * Outcomes a tick writes only once its runway slot is settled (confirmed, failed, released after a
 * refusal, reconciled) or when it sent none (skipped, revoke, an idle tick). Any other (`running` from a
 * lease a crash or a throw left, `pending`, `busy` when another invocation held the slot, or one not
 * named here) may leave a slot `sent`.
 */
const RUNWAY_SETTLED_OUTCOMES: ReadonlySet<string> = new Set([
  'confirmed',
  'failed',
  'refused',
  'reconciled',
  'skipped',
  'revoke',
  'ticked',
  ATTEMPTS_SPENT,
])

/**
 * Whether this period's runway slot can be left `sent` by an earlier tick, as the record before this
 * tick's lease says. A tick leases the record (lastTick `running`) before it claims a slot and writes
 * its outcome only after its sends: so when the last tick finished with a settled outcome, every tick
 * that claimed this period's slot saw it settled, and no slot needs reading. A confirmed redemption's slot
 * is left `sent` (the outcome stands for its completion), so settled means settled on the record, not in
 * the slot. A Golem never ticked is read.
 */
export function runwaySlotMayBeOpen(lastTick: GolemRecord['lastTick']): boolean {
  return lastTick === null || !RUNWAY_SETTLED_OUTCOMES.has(lastTick.outcome)
}

/**
 * Whether the last tick, in this period, may have spent a runway attempt: its redemption reverted or was
 * never mined, or it was refused, which a tick reports when the attempt after a spent one is refused by
 * its simulation. This tick then starts from the first attempt not spent instead of signing for one the
 * store will refuse.
 */
export function runwayAttemptMayBeSpent(lastTick: GolemRecord['lastTick'], period: bigint): boolean {
  return lastTick !== null && lastTick.period === period && (isSpent(lastTick.outcome) || lastTick.outcome === 'refused')
}

/**
 * `previous`: the record's last tick as it was before this tick's lease. Only when the tick before this
 * one never wrote its outcome (it crashed or threw after taking its lease), or wrote `pending` (its
 * runway redemption was not final yet), can an earlier period hold a slot left `sent`, so only then are
 * earlier periods read; this period's slot is read only when runwaySlotMayBeOpen says so. A tick that
 * follows a settled one reads no slot. The gas slots are read only on a chain whose confirmation depth
 * is over one block: only there does a top-up's slot stay `sent` after its tick, while the key's balance
 * (already topped up) plans no top-up that would reach it.
 */
export async function settlePendingSlots(
  base: SlotBase,
  golem: GolemRecord,
  profile: GolemProfile,
  read: ObservedGolem,
  period: bigint,
  previous: GolemRecord['lastTick'],
): Promise<PendingSettlement> {
  const previousTickUnsettled = previous?.outcome === 'running' || previous?.outcome === 'pending'
  const store: TickStore = base.store
  const golemId = golem.golemId
  const events: CustodyEvent[] = []

  // Phase: the chain is ahead of the store only when a post landed that no tick finished recording.
  const stored = phaseNames.indexOf(golem.phase)
  // Each attempt of a post is looked at in turn while the one before it was spent (runTick's phase post).
  if (stored >= 0 && read.phase > stored) {
    for (const { ref, slot } of await attemptsOf(store, { golemId, period: 0n, step: `phase-${read.phase}` }, MAX_PHASE_POST_ATTEMPTS)) {
      if (!slot?.txHash) continue
      const settled = slot.status === 'sent' ? await settleSlot({ ...base, slot: ref }, slot) : null
      const event = await phaseChangedEvent(base.client, store, ref, settled?.status === 'confirmed' ? settled.receipt : undefined)
      if (event) events.push(event)
    }
  }
  // A post still confirming when its tick finished: a later tick took the record's phase from the chain,
  // so the check above no longer reaches it, and a reorg may since have taken it back (the chain behind
  // the record). Only where the depth is over one block can a post outlive its tick `sent`.
  if (base.confirmations > 1 && stored > 0 && read.phase <= stored) {
    for (const { ref, slot } of await attemptsOf(
      store,
      { golemId, period: 0n, step: phaseStep(stored as Phase, profile.phaseEpoch ?? 0) },
      MAX_PHASE_POST_ATTEMPTS,
    )) {
      if (slot?.status !== 'sent') continue
      const settled = await settleSlot({ ...base, slot: ref }, slot)
      const event = settled.status === 'confirmed' ? await phaseChangedEvent(base.client, store, ref, settled.receipt) : null
      if (event) events.push(event)
    }
  }

  // Runway slots of earlier periods: a tick that crashed after sending, followed by a next tick in a
  // later period (a crash near the boundary, or a scheduler that stopped for a while). The crashed tick
  // ran in the period of the last finished tick or a later one, and ticks come every minute, so the
  // last finished tick's period and the one just before this cover it without scanning history.
  const earlier = previousTickUnsettled
    ? [...new Set([golem.lastTick?.period, period - 1n])].filter((p): p is bigint => p !== undefined && p >= 0n && p < period)
    : []
  for (const p of earlier.sort((a, b) => (a < b ? -1 : 1))) {
    const { settled } = await settleRunway(base, golemId, p)
    if (settled?.event) events.push(settled.event)
  }

  if (profile.gas && base.confirmations > 1) {
    const gasPeriod = gasPeriodAt(profile.gas, read.timestamp)
    for (const p of gasPeriod > 0n ? [gasPeriod - 1n, gasPeriod] : [gasPeriod]) {
      // The period's attempts up to the first not spent: only that one can still be open.
      const open = (await attemptsOf(store, { golemId, period: p, step: GAS_STEP }, MAX_REDEMPTION_ATTEMPTS)).at(-1)
      const gasEvent = open ? await settleGasSlot(base, open.ref, open.slot) : null
      if (gasEvent) events.push(gasEvent)
    }
  }

  // This period's attempts, read only when an earlier tick may have left one open (runwaySlotMayBeOpen) or
  // spent one (runwayAttemptMayBeSpent); once a tick found them all spent, they are not read again.
  const spentAll = runwayAttemptFromRecord(previous, period)
  if (spentAll !== undefined) return { events, runwayAttempt: spentAll, inFlightAmount: 0n }
  if (!runwaySlotMayBeOpen(previous) && !runwayAttemptMayBeSpent(previous, period)) return { events, inFlightAmount: 0n }
  const { attempt, settled: current } = await settleRunway(base, golemId, period)
  if (!current) return { events, runwayAttempt: attempt, inFlightAmount: 0n }
  if (current.event) events.push(current.event)
  // In flight: another tick holds the slot, or its transaction waits in the pool (a mined one is already
  // counted by the chain's own allowance).
  const stillInFlight =
    (current.status === 'busy' && current.reason === 'leased') || (current.status === 'pending' && current.confirmations === 0)
  return {
    events,
    runway: { status: current.status, amount: current.amount, txHash: current.txHash },
    runwayAttempt: attempt,
    inFlightAmount: stillInFlight ? current.amount : 0n,
  }
}

/**
 * A period's runway attempts, settled in turn: one an earlier tick left `sent` is settled from the chain,
 * and one that is spent (already, or by this settlement) passes to the next. Answers the first attempt
 * not spent (MAX_REDEMPTION_ATTEMPTS + 1 once every one is) and what settling it found: null when there was
 * nothing to settle (an absent, open or completed slot).
 */
async function settleRunway(base: SlotBase, golemId: string, period: bigint) {
  for (let attempt = 1; attempt <= MAX_REDEMPTION_ATTEMPTS; attempt++) {
    const ref = { golemId, period, step: attemptStep(RUNWAY_STEP, attempt) }
    const slot = await base.store.getSlot(ref)
    if (isSpent(slot?.status)) continue
    const settled = await settleRunwaySlot(base, ref, slot)
    if (settled === null || !isSpent(settled.status)) return { attempt, settled }
  }
  return { attempt: MAX_REDEMPTION_ATTEMPTS + 1, settled: null }
}

/** Settles one runway slot left `sent` with a recorded transaction; null when there is nothing to settle. */
async function settleRunwaySlot(base: SlotBase, ref: SlotRef, slot: TickSlot | null) {
  if (slot?.status !== 'sent' || !slot.txHash) return null
  // What it redeems, read back from its signed transaction (the slot holds those bytes from before its
  // broadcast).
  const amount = (slot.rawTx ? signedTransferAmount(slot.rawTx) : null) ?? 0n
  const settled = await settleSlot({ ...base, slot: ref }, slot)
  const txHash = 'txHash' in settled ? settled.txHash : slot.txHash
  const event: CustodyEvent | undefined =
    settled.status === 'confirmed'
      ? { type: 'RunwayRedeemed', at: sentAtSeconds(slotSentAt(slot)), amount, txHash: settled.txHash, period: ref.period }
      : undefined
  return {
    status: settled.status,
    reason: 'reason' in settled ? settled.reason : undefined,
    confirmations: settled.status === 'pending' ? settled.confirmations : undefined,
    amount,
    txHash,
    event,
  }
}

/** Settles one gas slot left `sent`: its GasRedeemed event once final (the amount read from its signed transaction). */
async function settleGasSlot(base: SlotBase, ref: SlotRef, slot: TickSlot | null): Promise<CustodyEvent | null> {
  if (slot?.status !== 'sent' || !slot.txHash) return null
  const settled = await settleSlot({ ...base, slot: ref }, slot)
  if (settled.status !== 'confirmed' || !slot.rawTx) return null
  const amount = signedExecutionValue(slot.rawTx)
  if (amount === null) return null
  return { type: 'GasRedeemed', at: sentAtSeconds(slotSentAt(slot)), amount, txHash: settled.txHash, period: ref.period }
}
