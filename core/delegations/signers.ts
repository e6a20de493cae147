import type { Delegation } from '@metamask/smart-accounts-kit'
import type { Hex } from 'viem'

export type UnsignedDelegation = Omit<Delegation, 'signature'>

/**
 * Signs one delegation and returns the signature. Core never holds a key: the owner's smart account,
 * the custody GolemSigner or a Session Account signer is passed in by the caller.
 */
export type DelegationSigner = (delegation: UnsignedDelegation) => Promise<Hex>

/** A MetaMask smart account (`toMetaMaskSmartAccount(...)`) as a DelegationSigner. */
export const smartAccountSigner =
  (account: { signDelegation(params: { delegation: UnsignedDelegation; chainId?: number }): Promise<Hex> }): DelegationSigner =>
  (delegation) =>
    account.signDelegation({ delegation })

/** A signer that returns the signed delegation (core/custody's GolemSigner.signDelegation) as a DelegationSigner. */
export const signedDelegationSigner =
  (signer: { signDelegation(delegation: UnsignedDelegation): Promise<Delegation> }): DelegationSigner =>
  async (delegation) =>
    (await signer.signDelegation(delegation)).signature
