// A paid request that carries a payment identifier (x402's idempotency extension), answered once: the
// identifier is bound in the shared store to the payment it first named, and every request under it is
// answered as that payment. Credited: the recorded answer (status, headers, body) is answered again,
// with no second settlement and no second credit. Still settling: the first payment's header is
// processed again once its lease lapses, never the retry's new authorization. The same identifier for
// another Golem, kind or amount is refused, writing nothing.
import { randomUUID } from 'node:crypto'
import type { JsonInputObject, PaymentIdRecord } from '../../core/store/records.ts'
import type { PaymentIdStore } from '../../core/store/store.ts'
import {
  DEFAULT_CLAIM_LEASE_MS,
  DEFAULT_PAYMENT_ID_TTL_MS,
  differingTerm,
  PAYMENT_IDENTIFIER,
  type PaymentIdTerms,
  type PaymentOutcomeCode,
  type X402ErrorCode,
} from '../../core/x402/index.ts'
import type { PaymentAnswer } from './paymentResponse.ts'

export type PaymentIdentifiersOptions = {
  store: PaymentIdStore
  /** How long an identifier is remembered (default 24 h). */
  ttlMs?: number
  /** How long a request holds an identifier before a retry may take it over (default: the ledger's claim lease). */
  leaseMs?: number
  now: () => number
  onUnexpectedError?: (error: unknown) => void
}

export type IdentifiedPayment = PaymentIdTerms & {
  payer: `0x${string}`
  paymentId: string
  header: string
  /** Processes a payment header for this request's Golem and kind, to its answer. */
  run: (header: string) => Promise<PaymentAnswer & { code: PaymentOutcomeCode }>
  /** Answers a refusal made here (nothing was taken). */
  refuse: (code: X402ErrorCode, message: string, details: Record<string, unknown>, retryAfterMs?: number) => Promise<PaymentAnswer>
}

/** After these the identifier keeps naming its payment: it was credited, or may still be settling. */
const KEEPS: ReadonlySet<PaymentOutcomeCode> = new Set([
  'PAYMENT_CREDITED',
  'PAYMENT_SETTLEMENT_PENDING',
  'PAYMENT_IN_PROGRESS',
  'PAYMENT_REPLAYED',
])

export function createPaymentIdentifiers(o: PaymentIdentifiersOptions) {
  const ttlMs = o.ttlMs ?? DEFAULT_PAYMENT_ID_TTL_MS
  const leaseMs = o.leaseMs ?? DEFAULT_CLAIM_LEASE_MS
  const field = PAYMENT_IDENTIFIER

  async function answerOnce(p: IdentifiedPayment): Promise<PaymentAnswer> {
    const ref = { payer: p.payer, paymentId: p.paymentId }
    const owner = randomUUID()
    const now = o.now()
    let bound
    try {
      bound = await o.store.bindPaymentId({
        ...ref,
        golemId: p.golemId,
        kind: p.kind,
        amount: p.amount,
        header: p.header,
        owner,
        now,
        leaseMs,
        ttlMs,
      })
    } catch (error) {
      o.onUnexpectedError?.(error)
      return p.refuse('PAYMENT_LEDGER_UNAVAILABLE', `${field}: the identifier could not be bound; nothing was charged, retry later`, {})
    }
    if (!bound.bound) return answerBound(p, bound.existing, now)

    // Bound afresh this is the request's own header; taken over it is the first payment's.
    const answer = await p.run(bound.record.header)
    try {
      if (answer.code === 'PAYMENT_CREDITED') {
        const recorded: JsonInputObject = { status: answer.status, headers: answer.headers, body: answer.body as JsonInputObject }
        await o.store.answerPaymentId({ ...ref, owner, answer: recorded, now: o.now() })
      } else if (!KEEPS.has(answer.code)) {
        await o.store.releasePaymentId({ ...ref, owner })
      }
    } catch (error) {
      // The payment's own answer stands; the identifier's lease lapses and a retry processes its header again.
      o.onUnexpectedError?.(error)
    }
    return { status: answer.status, headers: answer.headers, body: answer.body }
  }

  function answerBound(p: IdentifiedPayment, existing: PaymentIdRecord, now: number): Promise<PaymentAnswer> | PaymentAnswer {
    const term = differingTerm(existing, p)
    if (term !== null) {
      return p.refuse(
        'PAYMENT_IDENTIFIER_CONFLICT',
        `${field}: ${p.paymentId} was first used for another payment (its ${term} differs); an identifier names one payment, use a new one for a new payment`,
        { field, term },
      )
    }
    if (existing.status === 'answered' && existing.answer !== null) return existing.answer as unknown as PaymentAnswer
    const retryAfterMs = Math.max(0, (existing.leaseUntil ?? now) - now)
    return p.refuse(
      'PAYMENT_IN_PROGRESS',
      `${field}: another request is settling the payment ${p.paymentId} names; retry later`,
      { field },
      retryAfterMs,
    )
  }

  return { answerOnce }
}

export type PaymentIdentifiers = ReturnType<typeof createPaymentIdentifiers>
