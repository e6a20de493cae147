// An x402 payment's outcome as the HTTP answer: its status, its x402 headers and a JSON body; a 402
// is never cached.
import type { PaymentOutcome } from '../../core/x402/index.ts'

/** The outcome as an HTTP response: JSON body, x402 headers (PAYMENT-RESPONSE or PAYMENT-REQUIRED). */
export function toResponse(outcome: PaymentOutcome): Response {
  const headers = new Headers({ 'content-type': 'application/json; charset=utf-8', ...outcome.headers })
  if (outcome.status === 402) headers.set('cache-control', 'no-store')
  return new Response(JSON.stringify(outcome.body), { status: outcome.status, headers })
}
