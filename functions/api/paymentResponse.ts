// A payment's outcome as the HTTP answer, and the only place a payment speaks HTTP: the status from
// the table of payment outcome codes (errors.ts), the x402 headers (PAYMENT-RESPONSE on a credit,
// PAYMENT-REQUIRED on every 402, Retry-After while a settlement is pending) and the JSON body. A 402
// is never cached.
import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http'
import type { PaymentRequirements, ResourceInfo } from '@x402/core/types'
import type { PaymentKind } from '../../core/x402/pricing.ts'
import type { PaymentOutcome } from '../../core/x402/processPayment.ts'
import { X402_VERSION } from '../../core/x402/requirements.ts'
import { paymentStatus, type PaymentStatus } from './errors.ts'

const PAYMENT_REQUIRED_HEADER = 'PAYMENT-REQUIRED'
const PAYMENT_RESPONSE_HEADER = 'PAYMENT-RESPONSE'

export type PaymentAnswer = {
  status: PaymentStatus
  headers: Record<string, string>
  body: Record<string, unknown>
}

/** The x402 extensions an answer carries: declared in a 402 (`required`), or in a settlement's PAYMENT-RESPONSE. */
export type PaymentExtensions = { required?: Record<string, unknown>; settlement?: Record<string, unknown> }

const descriptions: Record<PaymentKind, string> = {
  extend: "Extend a Golem's life by runtime hours",
  feed: 'Feed a Golem: reprieve funding at death',
}

/** The resource a payer pays for: the request's URL, named in PAYMENT-REQUIRED. */
export function paymentResource(kind: PaymentKind, url: string): ResourceInfo {
  return { url, description: descriptions[kind], mimeType: 'application/json' }
}

/**
 * The answer to a payment. `accepts` is what a 402 offers (paymentOffers.ts; default: the outcome's
 * requirement alone). `profile` is what applying the credit did to the Golem (a credited
 * payment's body reports it); without it the body is the receipt alone.
 */
export function answerPayment(
  outcome: PaymentOutcome,
  resource: ResourceInfo,
  profile?: Record<string, unknown>,
  extensions: PaymentExtensions = {},
  accepts?: PaymentRequirements[],
): PaymentAnswer {
  const status: PaymentStatus = paymentStatus[outcome.code]
  if (outcome.ok) {
    const { credit, settlement } = outcome
    const creditJson =
      credit.kind === 'extend'
        ? { kind: credit.kind, seconds: credit.seconds.toString(), amount: credit.amount.toString() }
        : { kind: credit.kind, amount: credit.amount.toString() }
    const body: Record<string, unknown> = {
      golemId: credit.golemId,
      credit: creditJson,
      payer: outcome.payer,
      txHash: outcome.txHash,
      network: settlement.network,
      reconciled: outcome.reconciled,
    }
    if (profile !== undefined) body.profile = profile
    const settled = extensions.settlement === undefined ? settlement : { ...settlement, extensions: extensions.settlement }
    return { status, headers: { [PAYMENT_RESPONSE_HEADER]: encodePaymentResponseHeader(settled) }, body }
  }
  const headers: Record<string, string> = {}
  // Every 402 repeats the requirements, so a standard x402 client can pay correctly and retry.
  if (status === 402) {
    headers[PAYMENT_REQUIRED_HEADER] = encodePaymentRequiredHeader({
      x402Version: X402_VERSION,
      error: outcome.code,
      resource,
      accepts: accepts ?? [outcome.requirements],
      ...(extensions.required === undefined ? {} : { extensions: extensions.required }),
    })
  }
  if (outcome.retryAfterMs !== undefined) headers['Retry-After'] = String(Math.ceil(outcome.retryAfterMs / 1000))
  return { status, headers, body: { code: outcome.code, message: outcome.message, details: outcome.details } }
}

/** The answer as an HTTP response: JSON body and its x402 headers. */
export function toResponse(answer: PaymentAnswer): Response {
  const headers = new Headers({ 'content-type': 'application/json; charset=utf-8', ...answer.headers })
  if (answer.status === 402) headers.set('cache-control', 'no-store')
  return new Response(JSON.stringify(answer.body), { status: answer.status, headers })
}
