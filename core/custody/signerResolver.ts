// What a tick needs from custody: the Golem's signer from the reference in its profile, and, where
// keys rotate, a fresh key with the delegator's fresh grant to it. Implemented in adapters/signers.
import type { Address } from 'viem'
import type { GolemProfile } from '../lifecycle/profile.ts'
import type { CustodySigner } from './custodyMode.ts'
import type { PaymentLedger, PaymentPolicy } from './paymentPolicy.ts'

/**
 * What a signer may pay, when the caller pays the Golem's own costs: the payment policy, and the
 * ledger of what the key already authorized this period (kept in the store, so the bound holds across
 * processes). Without it the signer signs no payment.
 */
export type SignerPayments = { policy: PaymentPolicy; ledger: PaymentLedger }

/** Finds the Golem's signer from the reference in its profile (memory, keystore, KMS), and retires it. */
export interface SignerResolver {
  resolve(profile: GolemProfile, options?: { payments?: SignerPayments }): Promise<CustodySigner>
  /** Zero the key material for good (death). Idempotent. */
  retire(profile: GolemProfile): Promise<void>
}

/** The runway part of a profile that a renewed grant replaces. */
export type RenewedRunway = Pick<GolemProfile['runway'], 'chain' | 'periodDelegationHash' | 'periodTerms' | 'chainHashes' | 'periodStart'>

/**
 * Key rotation: a fresh key and the delegator's fresh grant to it. Locally the owner's
 * smart account signs; in production the grant comes from the owner's wallet (or the Session Account
 * of the 7715 shape). The renewed grant starts at the next period boundary, so it never reopens a
 * period the old key already redeemed.
 */
export interface KeyRotation {
  /**
   * Whether the key is due, for keys with no in-process SessionKey to ask (KMS): the policy from durable
   * facts. Without it, only a SessionKey's own shouldRotate decides.
   */
  due?(profile: GolemProfile, now: number): Promise<{ rotate: boolean; reason?: string }>
  newKey(profile: GolemProfile, now: bigint): Promise<{ address: Address; signer: GolemProfile['signer'] }>
  /**
   * The renewed grant to the new key; null when only the owner can sign it and the rotation must wait
   * (the rotation then records an owner renewal request instead).
   */
  renew(profile: GolemProfile, newKey: Address, startAt: bigint): Promise<RenewedRunway | null>
  /**
   * The owner's gas grant to the new key, when the rotation can get one. The old grant names the old key
   * as its only redeemer, so without this the new key has no gas grant (it is funded by other means).
   */
  renewGas?(profile: GolemProfile, newKey: Address, startAt: bigint): Promise<NonNullable<GolemProfile['gas']> | undefined>
}
