// Applies a settled x402 payment to the Golem's profile in the store, exactly once. Order: the ledger
// records the payment first (processPayment's markSettled: the proof of credit), then this journals
// a PaymentCredited event and folds the credit into the profile with a compare-and-swap on the Golem
// record's version, deciding again on every conflict. The profile remembers the payment's id
// (credit.ts), so a retry, a concurrent duplicate or a later repair cannot apply it twice. The store
// comes in as a port: the API and the tick pass theirs. A caller that has just read the Golem hands
// that read in, so the Golem is read here only when no one has (a repair) or a conflict needs it.
import type { Address, Hex } from 'viem'
import { BardoError } from '../errors.ts'
import { applyCredit, isCreditApplied, paymentCreditId, runwaySecondsFor, type ProfileCredit } from './credit.ts'
import { parseGolemProfile, serializeGolemProfile, type GolemProfile } from './profile.ts'
import { RETRY, retry } from '../retry.ts'
import { contended } from '../store/errors.ts'
import type { EventStore, GolemRecord, GolemStore, PaymentRecord, PaymentStore, SettledPaymentRecord } from '../store/index.ts'

export type CreditStore = Pick<GolemStore, 'getGolem' | 'updateGolem'> &
  Pick<EventStore, 'appendEvent' | 'listEvents'> &
  Pick<PaymentStore, 'getPayment'>

export type CreditOptions = {
  store: CreditStore
  runtimeCostPerHour: bigint
  /** Chain time, unix seconds: the base an ended runway is extended from. */
  chainNow: () => Promise<bigint>
  /**
   * Where a settlement may still be reorged out (a confirmation depth above one block), the credit's
   * standing judged against the chain: only a final credit is applied; a pending one is journaled as
   * confirming and looked at again later, a reversed one is journaled as reversed and never applied.
   * Absent: a settled payment is final at its receipt.
   */
  standing?: (payment: SettledPaymentRecord) => Promise<JudgedStanding>
  /** Compare-and-swap attempts before giving up (each re-reads the Golem). Default 20. */
  maxAttempts?: number
  /** Waits between attempts (tests pass a no-op). Default: full jitter from 10 ms, doubling, at most 200 ms. */
  sleep?: (ms: number) => Promise<void>
}

export type CreditApplied =
  | { applied: true; runwayEndsAt: bigint; seconds: bigint; reprieveRequested: boolean; attempts: number }
  | {
      applied: false
      reason: 'already' | 'beforeHorizon' | 'golemMissing' | 'golemDead' | 'notSettled' | 'otherGolem' | 'confirming' | 'reversed'
      runwayEndsAt: bigint | null
      attempts: number
    }

export const PAYMENT_CREDITED_EVENT = 'PaymentCredited'
/** A settled payment whose settlement is not yet final: no runtime granted; it is looked at again. */
export const PAYMENT_CONFIRMING_EVENT = 'PaymentConfirming'
/** A settled payment whose settlement can never land (reorged out, its authorization expired unused): nothing moved, nothing credited. */
export const PAYMENT_REVERSED_EVENT = 'PaymentReversed'

/** A credit's standing as judged against the chain, with the reason a reversed one is reversed. */
export type JudgedStanding = { standing: 'final' | 'pending' } | { standing: 'reversed'; reason: string }

/** The credit a settled payment record stands for (extend and feed buy runway at the same rate). */
export function creditOfPayment(
  payment: Pick<PaymentRecord, 'payer' | 'nonce' | 'kind' | 'amount' | 'creditedAt'>,
  runtimeCostPerHour: bigint,
): ProfileCredit {
  return {
    kind: payment.kind,
    id: paymentCreditId(payment.payer, payment.nonce),
    payer: payment.payer,
    amount: payment.amount,
    seconds: runwaySecondsFor(payment.amount, runtimeCostPerHour),
    creditedAtMs: payment.creditedAt ?? 0,
  }
}

/** The Golem as the caller read it: the record's version and status, and its profile already parsed. */
export type ReadGolem = Pick<GolemRecord, 'golemId' | 'version' | 'status'> & { profile: GolemProfile }

/** What the caller already holds, so that nothing is read twice. */
export type CreditGiven = {
  /** The settled payment, from the request that just recorded it (a repair reads it from the ledger). */
  payment?: SettledPaymentRecord
  /** The Golem as this request read it; the first compare-and-swap is tried against it. */
  golem?: ReadGolem
}

/**
 * Applies the settled payment (payer, nonce) to `golemId`. Safe to call any number of times, from any
 * number of processes: only the first call that wins the compare-and-swap changes the profile.
 */
export async function applyPaymentCredit(
  o: CreditOptions,
  golemId: string,
  ref: { payer: Address; nonce: Hex },
  given: CreditGiven = {},
): Promise<CreditApplied> {
  if (given.golem !== undefined && given.golem.golemId !== golemId) {
    throw new BardoError('INVALID_CREDIT', `golem.golemId: must be the credited Golem ${golemId}, got ${given.golem.golemId}`)
  }
  const payment = given.payment ?? (await o.store.getPayment(ref))
  if (payment?.status !== 'settled' || payment.creditedAt === null)
    return { applied: false, reason: 'notSettled', runwayEndsAt: null, attempts: 0 }
  if (payment.golemId !== golemId) return { applied: false, reason: 'otherGolem', runwayEndsAt: null, attempts: 0 }
  const credit = creditOfPayment(payment, o.runtimeCostPerHour)
  const settled: SettledPaymentRecord = { ...payment, status: 'settled' }
  const data = { kind: credit.kind, payer: credit.payer, nonce: payment.nonce, amount: credit.amount, txHash: payment.txHash }

  // A credit already in the profile was final when it was applied; any other is judged first.
  if (o.standing !== undefined && !(given.golem !== undefined && isCreditApplied(given.golem.profile, credit.id))) {
    const judged = await o.standing(settled)
    if (judged.standing !== 'final') {
      const reversed = judged.standing === 'reversed'
      // Idempotent like the credit's own event: the same (at, eventId) on every look.
      await o.store.appendEvent({
        golemId,
        type: reversed ? PAYMENT_REVERSED_EVENT : PAYMENT_CONFIRMING_EVENT,
        at: credit.creditedAtMs,
        eventId: `payment-${reversed ? 'reversed' : 'confirming'}-${credit.id}`,
        data: reversed ? { ...data, reason: judged.reason } : { ...data, seconds: credit.seconds },
      })
      // No runway is reported: this credit changed none, and a caller must not take the current one for its result.
      return { applied: false, reason: reversed ? 'reversed' : 'confirming', runwayEndsAt: null, attempts: 0 }
    }
  }

  // The journal: idempotent by (at, eventId), both fixed by the payment, so a retry appends nothing.
  await o.store.appendEvent({
    golemId,
    type: PAYMENT_CREDITED_EVENT,
    at: credit.creditedAtMs,
    eventId: `payment-${credit.id}`,
    data: {
      kind: credit.kind,
      payer: credit.payer,
      nonce: payment.nonce,
      amount: credit.amount,
      seconds: credit.seconds,
      txHash: payment.txHash,
    },
  })

  const now = await o.chainNow()
  const policy = {
    attempts: o.maxAttempts ?? 20,
    backoff: { baseMs: 10, capMs: 200 },
    exhausted: contended('updateGolem'),
    sleep: o.sleep,
  }
  let read = given.golem
  return retry<CreditApplied>(policy, async (n) => {
    const attempt = n + 1
    const record = read ?? (await readGolem(o.store, golemId))
    read = undefined
    if (!record) return { applied: false, reason: 'golemMissing', runwayEndsAt: null, attempts: attempt }
    const { profile } = record
    // Dead is final (the store refuses any change); the payment stays recorded in the ledger and the journal.
    if (record.status === 'dead') return { applied: false, reason: 'golemDead', runwayEndsAt: profile.life.runwayEndsAt, attempts: attempt }
    const result = applyCredit(profile, credit, now)
    if (!result.applied) return { applied: false, reason: result.reason, runwayEndsAt: profile.life.runwayEndsAt, attempts: attempt }
    const updated = await o.store.updateGolem({
      golemId,
      expectedVersion: record.version,
      patch: { profile: serializeGolemProfile(result.profile) },
      now: Number(now) * 1000,
    })
    if (updated.updated) {
      return {
        applied: true,
        runwayEndsAt: result.profile.life.runwayEndsAt,
        seconds: credit.seconds,
        reprieveRequested: credit.kind === 'feed',
        attempts: attempt,
      }
    }
    if (updated.reason === 'missing') return { applied: false, reason: 'golemMissing', runwayEndsAt: null, attempts: attempt }
    // Someone else wrote the Golem (a tick, another credit): decide again on the record the conflict
    // answered with, or on a fresh read when the store did not send it.
    read = updated.current === null ? undefined : readOf(updated.current)
    return RETRY
  })
}

const readOf = (record: GolemRecord): ReadGolem => ({
  golemId: record.golemId,
  version: record.version,
  status: record.status,
  profile: parseGolemProfile(record.profile),
})

async function readGolem(store: CreditStore, golemId: string): Promise<ReadGolem | null> {
  const record = await store.getGolem(golemId)
  return record && readOf(record)
}

/**
 * Repair for a crash between journaling a credit and updating the profile: re-applies every
 * PaymentCredited event of the Golem since `sinceMs` (idempotent). Credits the caller's copy of the
 * profile already holds are skipped without a read. The tick runs it once a period; a payer who
 * replays the payment repairs it at once (the API answers 409 and applies it).
 */
export async function reconcileCredits(
  o: CreditOptions,
  golemId: string,
  sinceMs: number,
  known?: GolemProfile,
): Promise<{ checked: number; applied: number }> {
  let checked = 0
  let applied = 0
  const { credits, reversed } = await journaledCredits(
    o.store,
    golemId,
    sinceMs,
    o.standing === undefined ? [] : [PAYMENT_CONFIRMING_EVENT],
  )
  for (const [id, ref] of credits) {
    // A reversed credit is never applied: the journal says so, and the chain is not asked again.
    if (reversed.has(id)) continue
    checked++
    if (known && isCreditApplied(known, id)) continue
    if ((await applyPaymentCredit(o, golemId, ref)).applied) applied++
  }
  return { checked, applied }
}

/**
 * Advances the Golem's credits still confirming (journaled since `sinceMs`, neither credited nor
 * reversed since): each is judged again, applied once it is final, reversed once it can never land.
 * Without `o.standing` there is nothing to advance.
 */
export async function advanceConfirmingCredits(
  o: CreditOptions,
  golemId: string,
  sinceMs: number,
): Promise<{ checked: number; applied: number; reversed: number }> {
  let checked = 0
  let applied = 0
  let reversedNow = 0
  if (o.standing === undefined) return { checked, applied, reversed: reversedNow }
  const journal = await journaledCredits(o.store, golemId, sinceMs, [PAYMENT_CONFIRMING_EVENT])
  for (const [id, ref] of journal.credits) {
    // Credited or reversed since: settled in the journal (a credit whose profile update was lost is reconcileCredits' repair).
    if (journal.credited.has(id) || journal.reversed.has(id)) continue
    checked++
    const result = await applyPaymentCredit(o, golemId, ref)
    if (result.applied) applied++
    else if (result.reason === 'reversed') reversedNow++
  }
  return { checked, applied, reversed: reversedNow }
}

type CreditRef = { payer: Address; nonce: Hex }

/**
 * The payments the journal names since `sinceMs`, by credit id: those with a PaymentCredited event and
 * those with an event of the `open` types, with the ids already credited and those reversed (events of
 * one payment share their time, so the sets, not the order, tell).
 */
async function journaledCredits(
  store: CreditStore,
  golemId: string,
  sinceMs: number,
  open: string[],
): Promise<{ credits: Map<string, CreditRef>; credited: Set<string>; reversed: Set<string> }> {
  const credits = new Map<string, CreditRef>()
  const credited = new Set<string>()
  const reversed = new Set<string>()
  let cursor: string | null = null
  do {
    const page = await store.listEvents({ golemId, since: sinceMs, order: 'asc', limit: 100, cursor })
    for (const e of page.events) {
      if (e.type !== PAYMENT_CREDITED_EVENT && e.type !== PAYMENT_REVERSED_EVENT && !open.includes(e.type)) continue
      const payer = e.data.payer
      const nonce = e.data.nonce
      if (typeof payer !== 'string' || typeof nonce !== 'string') continue
      const id = paymentCreditId(payer as Address, nonce as Hex)
      if (e.type === PAYMENT_REVERSED_EVENT) reversed.add(id)
      else {
        if (e.type === PAYMENT_CREDITED_EVENT) credited.add(id)
        credits.set(id, { payer: payer as Address, nonce: nonce as Hex })
      }
    }
    cursor = page.cursor
  } while (cursor !== null)
  return { credits, credited, reversed }
}
