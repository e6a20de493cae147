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
  /** Compare-and-swap attempts before giving up (each re-reads the Golem). Default 20. */
  maxAttempts?: number
  /** Waits between attempts (tests pass a no-op). Default: full jitter from 10 ms, doubling, at most 200 ms. */
  sleep?: (ms: number) => Promise<void>
}

export type CreditApplied =
  | { applied: true; runwayEndsAt: bigint; seconds: bigint; reprieveRequested: boolean; attempts: number }
  | {
      applied: false
      reason: 'already' | 'beforeHorizon' | 'golemMissing' | 'golemDead' | 'notSettled' | 'otherGolem'
      runwayEndsAt: bigint | null
      attempts: number
    }

export const PAYMENT_CREDITED_EVENT = 'PaymentCredited'

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
  let cursor: string | null = null
  let checked = 0
  let applied = 0
  do {
    const page = await o.store.listEvents({ golemId, since: sinceMs, order: 'asc', limit: 100, cursor })
    for (const e of page.events) {
      if (e.type !== PAYMENT_CREDITED_EVENT) continue
      const payer = e.data.payer
      const nonce = e.data.nonce
      if (typeof payer !== 'string' || typeof nonce !== 'string') continue
      checked++
      if (known && isCreditApplied(known, paymentCreditId(payer as Address, nonce as Hex))) continue
      if ((await applyPaymentCredit(o, golemId, { payer: payer as Address, nonce: nonce as Hex })).applied) applied++
    }
    cursor = page.cursor
  } while (cursor !== null)
  return { checked, applied }
}
