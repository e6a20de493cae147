// x402's idempotency extension (payment-identifier) as Bardo reads it: the 402 declares it (optional),
// and a payment may carry an identifier that names it across retries. An identifier is its payer's,
// and it names one payment: one Golem, kind and amount. A stock client's retry signs a new
// authorization (a fresh EIP-3009 nonce) under the same identifier, so "the same payment" is these
// terms, not the signature.
import { isValidPaymentId, PAYMENT_IDENTIFIER, PAYMENT_ID_MAX_LENGTH, PAYMENT_ID_MIN_LENGTH } from '@x402/extensions/payment-identifier'
import type { ParsedPaymentPayload } from './header.ts'
import type { PaymentKind } from './pricing.ts'

export { PAYMENT_IDENTIFIER }

/** How long an identifier is remembered after its first use, unless configured. */
export const DEFAULT_PAYMENT_ID_TTL_MS = 24 * 3600_000

export const PAYMENT_ID_RULE = `must be ${PAYMENT_ID_MIN_LENGTH}-${PAYMENT_ID_MAX_LENGTH} letters, digits, '_' or '-'`

export type PaymentIdentifierRead = { ok: true; id: string | null } | { ok: false; message: string }

/**
 * The identifier a payment carries, or null. Only `info.id` is read, against the format this server
 * declared: the schema a client echoes back is never compiled (it is the client's JSON, not ours).
 */
export function paymentIdentifierOf(payload: ParsedPaymentPayload): PaymentIdentifierRead {
  const extension = payload.extensions?.[PAYMENT_IDENTIFIER]
  if (extension === undefined) return { ok: true, id: null }
  const info = typeof extension === 'object' && extension !== null ? (extension as { info?: unknown }).info : undefined
  if (typeof info !== 'object' || info === null || Array.isArray(info)) {
    return { ok: false, message: `extensions.${PAYMENT_IDENTIFIER}.info: must be an object` }
  }
  const id = (info as { id?: unknown }).id
  if (id === undefined) return { ok: true, id: null }
  if (!isValidPaymentId(id as string)) return { ok: false, message: `extensions.${PAYMENT_IDENTIFIER}.info.id: ${PAYMENT_ID_RULE}` }
  return { ok: true, id: id as string }
}

/** What an identifier names. */
export type PaymentIdTerms = { golemId: string; kind: PaymentKind; amount: bigint }

/** The first term in which `b` differs from the payment the identifier named, or null when it is the same payment. */
export function differingTerm(named: PaymentIdTerms, b: PaymentIdTerms): 'golemId' | 'kind' | 'amount' | null {
  if (named.golemId !== b.golemId) return 'golemId'
  if (named.kind !== b.kind) return 'kind'
  if (named.amount !== b.amount) return 'amount'
  return null
}
