// POST /api/v1/extend and /feed wired to core/x402: processPayment verifies and settles the EIP-3009
// payment with the in-process facilitator and records it in the store's ledger (credited once, keyed
// by (payer, nonce)); then credits.ts applies it to the Golem's profile, exactly once. The route order
// (validation, death rules, then payment) lives in routes/payments.ts.
import type { Context } from 'hono'
import type { Address, Hex } from 'viem'
import type { PaymentOutcome, X402Payments } from '../../core/x402/index.ts'
import { toResponse } from './paymentResponse.ts'
import { applyPaymentCredit, type CreditApplied, type CreditOptions } from '../../core/lifecycle/applyPaymentCredit.ts'
import type { GolemView, PaymentRoutes } from './deps.ts'

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

export function createX402PaymentRoutes(o: X402PaymentRoutesOptions): PaymentRoutes {
  const creditOptions: CreditOptions = { ...o.credit, runtimeCostPerHour: o.payments.config.pricing.runtimeCostPerHour }

  /**
   * After the ledger has answered. Accepted: apply the credit to the profile. Replayed: the ledger
   * holds the payment as credited, so a crash between recording it and updating the profile is
   * repaired here, once (the profile knows the payment's id); the answer stays 409.
   */
  async function finish(golem: GolemView, outcome: PaymentOutcome): Promise<Response> {
    if (outcome.ok) {
      let applied: CreditApplied
      try {
        const settled = {
          status: 'settled' as const,
          payer: outcome.payer,
          nonce: outcome.nonce,
          golemId: outcome.credit.golemId,
          kind: outcome.credit.kind,
          amount: outcome.credit.amount,
          txHash: outcome.txHash,
          creditedAt: outcome.creditedAt,
        }
        applied = await applyPaymentCredit(creditOptions, golem.id, { payer: outcome.payer, nonce: outcome.nonce }, settled)
      } catch (error) {
        // The payment is settled and recorded, so the payer is told it was paid; the profile update is
        // repaired by replaying the same payment (409 + repair) or by reconcileCredits.
        o.onUnexpectedError?.(error)
        return toResponse({ ...outcome, body: { ...outcome.body, profile: { applied: false, reason: 'pending' } } })
      }
      return toResponse({ ...outcome, body: { ...outcome.body, profile: creditJson(applied) } })
    }
    if (outcome.code === 'PAYMENT_REPLAYED' && typeof outcome.details.payer === 'string' && typeof outcome.details.nonce === 'string') {
      await applyPaymentCredit(creditOptions, golem.id, {
        payer: outcome.details.payer as Address,
        nonce: outcome.details.nonce as Hex,
      }).catch((error: unknown) => o.onUnexpectedError?.(error))
    }
    return toResponse(outcome)
  }

  return {
    extend: {
      handle: async ({ body, golem, c }) =>
        finish(golem, await o.payments.extend({ header: header(c), golemId: golem.id, golem, hours: body.hours, resourceUrl: c.req.url })),
    },
    feed: {
      handle: async ({ golem, c }) =>
        finish(golem, await o.payments.feed({ header: header(c), golemId: golem.id, golem, resourceUrl: c.req.url })),
    },
  }
}
