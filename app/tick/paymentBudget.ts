// The Golem's spending on x402 payments per payment period, kept in the store so the signer's
// per-period bound holds across processes and concurrent ticks: a payment is reserved against the
// bound (a conditional write) before it is signed, committed once it is credited, released when it is
// refused. The record is the store's budget record of the Golem's payment account, beside (and never
// mixed with) the runway budget of the Golem itself.
import type { PaymentLedger, PaymentPolicy } from '../../core/custody/paymentPolicy.ts'
import type { BudgetRecord, SlotRef } from '../../core/store/index.ts'

/**
 * One reservation per claim of a payment's slot. A released reservation id can never reserve again (the
 * store's rule), so a slot re-claimed after a failed or crashed attempt needs a fresh id; the first claim
 * keeps the plain `${period}:${step}`.
 */
export const reservationIdOf = (slot: SlotRef, claims: number) =>
  claims <= 1 ? `${slot.period}:${slot.step}` : `${slot.period}:${slot.step}:${claims}`

/** The budget account of a Golem's own payments. */
export const paymentBudgetId = (golemId: string): string => `${golemId}:payments`

/** Spent and reserved in the period, less one reservation (the payment being signed). */
export function authorizedBesides(budget: BudgetRecord | null, reservationId?: string): bigint {
  if (!budget) return 0n
  const own = budget.reservations.find((r) => r.reservationId === reservationId && r.state === 'reserved')
  return budget.spent + budget.reserved - (own?.amount ?? 0n)
}

/**
 * The signer's view of the stored budget for one period. It answers the bound for any other period
 * (the signer's clock crossed a boundary since the read) so that payment is refused, never signed
 * against an unread period; it records nothing itself, the store's commit does.
 */
export class StoredPaymentLedger implements PaymentLedger {
  constructor(
    private readonly policy: Pick<PaymentPolicy, 'maxPerPeriod'>,
    private readonly period: bigint,
    private readonly authorized: bigint,
  ) {}
  spent(period: bigint): bigint {
    return period === this.period ? this.authorized : this.policy.maxPerPeriod
  }
  record(): void {}
}
