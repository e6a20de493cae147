// POST /api/v1/extend and /feed wired to core/x402, one way: the death rules have observed the Golem
// (its record read once, its profile parsed once); core's processPayment decides and takes the payment
// (claim, verify, settle, record it in the store's ledger, keyed by (payer, nonce)) and returns an
// outcome that says what to credit; applyPaymentCredit applies that credit to the profile once, on
// the record already read; then paymentResponse.ts answers, with the x402 extensions of
// paymentExtensions.ts. A payment that carries a payment identifier is answered once per identifier
// (paymentIdentifier.ts). The route order (validation, death rules, then payment) lives in
// routes/payments.ts.
import type { Context } from 'hono'
import { applyPaymentCredit, type CreditApplied, type CreditOptions, type ReadGolem } from '../../core/lifecycle/applyPaymentCredit.ts'
import {
  paymentIdentifierOf,
  type PaymentKind,
  type PaymentOutcome,
  type PaymentRefused,
  type X402Payments,
} from '../../core/x402/index.ts'
import type { GolemView, PaymentRoutes } from './deps.ts'
import type { PaymentExtensionIssuer, ReceiptSignerInfo } from './paymentExtensions.ts'
import type { PaymentIdentifiers } from './paymentIdentifier.ts'
import { createPaymentOffers, type PaymentOffers } from './paymentOffers.ts'
import { paymentStatus } from './errors.ts'
import { answerPayment, type PaymentAnswer, paymentResource, toResponse } from './paymentResponse.ts'

export type X402PaymentRoutesOptions = {
  payments: X402Payments
  /** Applies the credit; `runtimeCostPerHour` should be the payments' pricing. */
  credit: Omit<CreditOptions, 'runtimeCostPerHour'>
  /** What the 402 declares and the settlement carries (payment-identifier, bazaar, signed offers and receipts). */
  extensions: PaymentExtensionIssuer
  /** What a 402 offers to be paid with (default: the EIP-3009 requirement alone). */
  offers?: PaymentOffers
  /** The receipt signer `extensions` signs with, to publish. */
  signer?: ReceiptSignerInfo
  /** Payment identifiers in the shared store; without them an identifier is read and checked, then ignored. */
  identifiers?: PaymentIdentifiers
  onUnexpectedError?: (error: unknown) => void
}

const header = (c: Context) => c.req.header('payment-signature')

/** A refusal that asks the payer to pay (again): its answer declares the extensions. */
const paymentStatus402 = (outcome: PaymentRefused) => paymentStatus[outcome.code] === 402

function creditJson(applied: CreditApplied) {
  return applied.applied
    ? {
        applied: true,
        runwayEndsAt: applied.runwayEndsAt.toString(),
        seconds: applied.seconds.toString(),
        reprieveRequested: applied.reprieveRequested,
      }
    : { applied: false, reason: applied.reason, runwayEndsAt: applied.runwayEndsAt?.toString() ?? null }
}

/** The Golem as the death rules read it, when the registry read it from the store with its profile. */
function readOf(golem: GolemView): ReadGolem | undefined {
  if (golem.version === undefined || golem.profile === undefined) return undefined
  return { golemId: golem.id, version: golem.version, status: golem.lifecycle, profile: golem.profile }
}

export function createX402PaymentRoutes(o: X402PaymentRoutesOptions): PaymentRoutes {
  const offers = o.offers ?? createPaymentOffers({})
  const creditOptions: CreditOptions = { ...o.credit, runtimeCostPerHour: o.payments.config.pricing.runtimeCostPerHour }

  /**
   * Applies what the outcome says to credit; returns the profile part of a credited payment's answer.
   * Credited: apply the settled payment. Replayed: the ledger holds the payment as credited, so a crash
   * between recording it and updating the profile is repaired here, once (the profile knows the
   * payment's id); the answer stays 409.
   */
  async function credit(golem: GolemView, outcome: PaymentOutcome): Promise<Record<string, unknown> | undefined> {
    const read = readOf(golem)
    if (outcome.ok) {
      try {
        return creditJson(await applyPaymentCredit(creditOptions, golem.id, outcome.payment, { payment: outcome.payment, golem: read }))
      } catch (error) {
        // The payment is settled and recorded, so the payer is told it was paid; the profile update is
        // repaired by replaying the same payment (409 + repair) or by reconcileCredits.
        o.onUnexpectedError?.(error)
        return { applied: false, reason: 'pending' }
      }
    }
    if (outcome.alreadyCredited !== undefined) {
      const applied = await applyPaymentCredit(creditOptions, golem.id, outcome.alreadyCredited, { golem: read }).catch(
        (error: unknown) => {
          o.onUnexpectedError?.(error)
          return undefined
        },
      )
      // The payer's retry is where it reads a credit not yet final, or reversed: the replay says which.
      if (applied !== undefined && !applied.applied && (applied.reason === 'confirming' || applied.reason === 'reversed'))
        outcome.details.credit = { standing: applied.reason }
    }
    return undefined
  }

  /** The outcome as the HTTP answer, with the extensions it declares (a 402) or carries (a settlement). */
  async function answer(
    kind: PaymentKind,
    url: string,
    outcome: PaymentOutcome,
    profile?: Record<string, unknown>,
  ): Promise<PaymentAnswer> {
    const resource = paymentResource(kind, url)
    if (outcome.ok) return answerPayment(outcome, resource, profile, { settlement: await o.extensions.settlement(url, outcome.settlement) })
    if (!paymentStatus402(outcome)) return answerPayment(outcome, resource, profile)
    const accepts = await offers(outcome.requirements)
    return answerPayment(outcome, resource, profile, { required: await o.extensions.required(kind, url, accepts) }, accepts)
  }

  async function pay(kind: PaymentKind, golem: GolemView, c: Context, hours?: number): Promise<Response> {
    const request = { header: header(c), golemId: golem.id, golem, hours }
    const url = c.req.url
    const run = async (paymentHeader: string | undefined) => {
      const paid = { ...request, header: paymentHeader }
      const outcome = kind === 'extend' ? await o.payments.extend(paid) : await o.payments.feed(paid)
      const profile = await credit(golem, outcome)
      return { code: outcome.code, ...(await answer(kind, url, outcome, profile)) }
    }
    if (request.header === undefined || request.header === '') return toResponse(await run(request.header))

    const checked = o.payments.check(kind, request)
    if (!checked.ok) return toResponse(await answer(kind, url, checked))
    const read = paymentIdentifierOf(checked.payload)
    const refuse = async (code: PaymentRefused['code'], message: string, details: Record<string, unknown>, retryAfterMs?: number) => {
      const refused: PaymentRefused = { ok: false, code, message, details, requirements: o.payments.requirements(kind, hours) }
      if (retryAfterMs !== undefined) refused.retryAfterMs = retryAfterMs
      return answer(kind, url, refused)
    }
    if (!read.ok) return toResponse(await refuse('PAYMENT_IDENTIFIER_INVALID', read.message, { field: 'payment-identifier' }))
    if (read.id === null || o.identifiers === undefined) return toResponse(await run(request.header))
    const answered = await o.identifiers.answerOnce({
      payer: checked.ref.payer,
      paymentId: read.id,
      golemId: golem.id,
      kind,
      amount: checked.value,
      header: request.header,
      run,
      refuse,
    })
    return toResponse(answered)
  }

  return {
    extend: { handle: ({ body, golem, c }) => pay('extend', golem, c, body.hours) },
    feed: { handle: ({ golem, c }) => pay('feed', golem, c) },
    ...(o.signer === undefined ? {} : { signer: o.signer }),
  }
}
