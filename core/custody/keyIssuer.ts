// Where onboarding gets a new Golem's keys: the Golem's own key and, for the ERC-7715 shape, its Session
// Account's key. The issuer keeps each key where the Golem's signer resolver finds it again (process
// memory locally, a KMS key on AWS) and hands out only its address and its reference.
import type { Address } from 'viem'
import type { DelegationSigner } from '../delegations/signers.ts'
import type { SignerRef } from '../lifecycle/profile.ts'

/** `golem`: the key that redeems the grants; `session-account`: the delegate of the wallet's ERC-7715 grant. */
export type IssuedKeyRole = 'golem' | 'session-account'

export interface KeyIssuer {
  /** A new key for a Golem, valid until `expiresAt` (unix seconds). */
  issue(p: { golemId: string; role: IssuedKeyRole; expiresAt: bigint; now: bigint }): Promise<{ address: Address; signer: SignerRef }>
  /** Signs delegations with a key this issuer issued (the Session Account re-delegating to the Golem's key). */
  delegationSigner(signer: SignerRef): DelegationSigner
}
