// The EIP-712 payload a delegation is signed over and the DelegationManager checks its signature against,
// built as the smart-accounts-kit signs it: the DelegationManager's domain on the chain, the signable
// Delegation types, and the delegation without its signature.
import { SIGNABLE_DELEGATION_TYPED_DATA, toDelegationStruct } from '@metamask/smart-accounts-kit/utils'
import type { Address, TypedDataDefinition } from 'viem'
import type { UnsignedDelegation } from './signers.ts'

export type DelegationDomain = { chainId: number; delegationManager: Address }

/** A deployment's delegation domain: its chain and the framework's DelegationManager on it. */
export const delegationDomainOf = (d: { chainId: number; environment: { DelegationManager: Address } }): DelegationDomain => ({
  chainId: d.chainId,
  delegationManager: d.environment.DelegationManager,
})

export function delegationTypedData(delegation: UnsignedDelegation, at: DelegationDomain): TypedDataDefinition {
  const { signature: _signature, ...message } = toDelegationStruct({ ...delegation, signature: '0x' })
  return {
    domain: { name: 'DelegationManager', version: '1', chainId: at.chainId, verifyingContract: at.delegationManager },
    types: SIGNABLE_DELEGATION_TYPED_DATA,
    primaryType: 'Delegation',
    message,
  } as TypedDataDefinition
}
