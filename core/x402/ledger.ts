// Where "credited exactly once" is decided. A payment is identified by (payer, EIP-3009 nonce):
// nonces are per authorizer on the token, so keying by the nonce alone would let anyone who signs
// their own authorization with a copied nonce block someone else's payment.
// The store (core/store PaymentStore: claimPayment / creditPaymentOnce / releasePayment) implements
// the same contract durably.
import type { Address, Hex } from 'viem'
import type { Credit, PaymentKind } from './pricing.ts'

export type PaymentRef = { payer: Address; nonce: Hex }

export type PaymentClaim = {
  golemId: string
  kind: PaymentKind
  amount: bigint
  /** Unique per request: only the claim's owner may settle or release it. */
  owner: string
  /** Unix ms. */
  now: number
  /** A pending claim lapses after this long, so a crash cannot block a payment forever. */
  leaseMs: number
}

/** What a claim is bound to: the Golem, the kind and the signed amount it was first made for. */
export type ClaimTerms = Pick<PaymentClaim, 'golemId' | 'kind' | 'amount'>
export type ClaimField = keyof ClaimTerms

/**
 * - claimed: this request now holds the payment and may settle it
 * - duplicate: the payment was already settled and credited (a replay)
 * - pending-elsewhere: another request holds an unexpired claim on it (a concurrent duplicate)
 * - { boundTo }: the payment was first claimed for other terms (another Golem, kind or amount); a
 *   claim never rebinds, even after its lease lapsed, because its settlement may already be on-chain
 */
export type ClaimOutcome = 'claimed' | 'duplicate' | 'pending-elsewhere' | { boundTo: ClaimField }

/** The first term in which `claim` differs from the payment's existing binding, or null. */
export function boundField(existing: ClaimTerms, claim: ClaimTerms): ClaimField | null {
  if (existing.golemId !== claim.golemId) return 'golemId'
  if (existing.kind !== claim.kind) return 'kind'
  if (existing.amount !== claim.amount) return 'amount'
  return null
}

export type SettledPayment = {
  txHash: Hex
  credit: Credit
  owner: string
  now: number
  /** The settlement's signed transaction, to broadcast again unchanged if a reorg drops it. */
  signedTx?: Hex
  /** The payer's authorization is void from this unix second. */
  validBefore?: bigint
}

export interface PaymentLedger {
  /** Atomic: of any number of concurrent claims on one ref, at most one is 'claimed'. */
  claim(ref: PaymentRef, claim: PaymentClaim): Promise<ClaimOutcome>
  /**
   * Completes the owner's claim and records the credit. 'duplicate' if the payment was credited
   * already (then this credit must not be applied).
   */
  markSettled(ref: PaymentRef, settled: SettledPayment): Promise<'settled' | 'duplicate'>
  /** Drops the owner's pending claim (the payment did not settle); a no-op for anyone else's. */
  release(ref: PaymentRef, owner: string): Promise<void>
}
