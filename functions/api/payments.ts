// POST /api/v1/extend and /feed wired to core/x402, one way: the death rules have observed the Golem
// (its record read once, its profile parsed once); core's processPayment decides and takes the payment
// (claim, verify, settle, record it in the store's ledger, keyed by (payer, nonce)) and returns an
// outcome that says what to credit; applyPaymentCredit applies that credit to the profile once, on
// the record already read; then paymentResponse.ts answers. The route order (validation, death rules,
// then payment) lives in routes/payments.ts.
import type { Context } from 'hono'
import { applyPaymentCredit, type CreditApplied, type CreditOptions, type ReadGolem } from '../../core/lifecycle/applyPaymentCredit.ts'
import type { PaymentKind, PaymentOutcome, X402Payments } from '../../core/x402/index.ts'
import type { GolemView, PaymentRoutes } from './deps.ts'
import { answerPayment, paymentResource, toResponse } from './paymentResponse.ts'

export type X402PaymentRoutesOptions = {
  payments: X402Payments
  /** Applies the credit; `runtimeCostPerHour` should be the payments' pricing. */
  credit: Omit<CreditOptions, 'runtimeCostPerHour'>
  onUnexpectedError?: (error: unknown) => void
}

const header = (c: Context) => c.req.header('payment-signature')

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
      await applyPaymentCredit(creditOptions, golem.id, outcome.alreadyCredited, { golem: read }).catch((error: unknown) =>
        o.onUnexpectedError?.(error),
      )
    }
    return undefined
  }

  async function pay(kind: PaymentKind, golem: GolemView, c: Context, hours?: number): Promise<Response> {
    const request = { header: header(c), golemId: golem.id, golem }
    const outcome = kind === 'extend' ? await o.payments.extend({ ...request, hours }) : await o.payments.feed(request)
    const profile = await credit(golem, outcome)
    return toResponse(answerPayment(outcome, paymentResource(kind, c.req.url), profile))
  }

  return {
    extend: { handle: ({ body, golem, c }) => pay('extend', golem, c, body.hours) },
    feed: { handle: ({ golem, c }) => pay('feed', golem, c) },
  }
}
