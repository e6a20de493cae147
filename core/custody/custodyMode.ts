// How a Golem holds its key, chosen once at provisioning, as plain data that can be stored.
import type { Address } from 'viem'
import type { GolemSigner } from './golemSigner.ts'
import type { SessionKey } from './sessionKey.ts'

/** Hard limits of a LocalKey Golem's delegation. USD amounts in micro-USD (6 decimals). */
export type DelegationBounds = {
  maxDailySpendUsd: bigint
  maxTotalCalls: number
  /** Unix seconds. */
  expiresAt: number
  allowedTargets: readonly Address[]
}

/**
 * How a Golem holds its key. Chosen once at provisioning. Plain data (no
 * secrets): passphrases, the Privy app secret and clients come to the factory separately.
 */
export type CustodyMode =
  | {
      mode: 'Delegation'
      smartAccount: Address
      /** Enforcer addresses on the owner's delegation; the caveat terms live with the delegation. */
      caveatEnforcers: readonly Address[]
      /** Where the Golem's key lives. Default: an in-memory session key. */
      key?: { source: 'session-key' } | { source: 'kms'; keyId: string }
    }
  | { mode: 'Embedded'; privyAppId: string; serverWalletId: string }
  | { mode: 'LocalKey'; privateKeyPath: string; delegationBounds: DelegationBounds }

export type CustodySigner = { signer: GolemSigner; sessionKey?: SessionKey }
