// Shared test fixtures: a policy, well-formed DelegationManager calldata and a sub-delegation.
import { DelegationManager } from '@metamask/delegation-abis'
import type { Delegation } from '@metamask/smart-accounts-kit'
import {
  encodeFunctionData,
  type Address,
  type Hex,
  type recoverTypedDataAddress,
  type TransactionSerializable,
  type TypedDataDefinition,
} from 'viem'
import type { SignerPolicyConfig } from '../../../core/custody/policy.ts'

export const CHAIN_ID = 31337
export const DELEGATION_MANAGER: Address = '0xdb9B1e94B5b69Df7e401DDbedE43491141047dB3'
export const VITALITY_ORACLE: Address = '0x1111111111111111111111111111111111111111'
export const DREAM_ORACLE: Address = '0x2222222222222222222222222222222222222222'
export const DAIMON_ORACLE: Address = '0x3333333333333333333333333333333333333333'
export const RANDOM_TARGET: Address = '0x9999999999999999999999999999999999999999'
export const REPLICANT: Address = '0x4444444444444444444444444444444444444444'
export const ENFORCER: Address = '0x5555555555555555555555555555555555555555'
export const PARENT_HASH: Hex = '0x7b1a3f0c6f1d1b7a4c6d8e9f00112233445566778899aabbccddeeff00112233'

export const policy = (overrides: Partial<SignerPolicyConfig> = {}): SignerPolicyConfig => ({
  chainId: CHAIN_ID,
  delegationManager: DELEGATION_MANAGER,
  oracles: { vitality: VITALITY_ORACLE, dream: DREAM_ORACLE, daimon: DAIMON_ORACLE },
  ...overrides,
})

export const subDelegation = (delegator: Address, overrides: Partial<Delegation> = {}): Omit<Delegation, 'signature'> => ({
  delegate: REPLICANT,
  delegator,
  authority: PARENT_HASH,
  caveats: [{ enforcer: ENFORCER, terms: '0x1234', args: '0x' }],
  salt: '0x01',
  ...overrides,
})

export const redeemCalldata = (): Hex =>
  encodeFunctionData({
    abi: DelegationManager,
    functionName: 'redeemDelegations',
    args: [['0x'], ['0x0000000000000000000000000000000000000000000000000000000000000000'], ['0x']],
  })

export const disableCalldata = (delegator: Address): Hex => {
  const d = subDelegation(delegator)
  return encodeFunctionData({
    abi: DelegationManager,
    functionName: 'disableDelegation',
    args: [{ ...d, salt: BigInt(d.salt), signature: '0x' }],
  })
}

export const tx = (overrides: Partial<TransactionSerializable> = {}): TransactionSerializable =>
  ({
    type: 'eip1559',
    chainId: CHAIN_ID,
    nonce: 7,
    gas: 300_000n,
    maxFeePerGas: 2_000_000_000n,
    maxPriorityFeePerGas: 1_000_000n,
    to: DELEGATION_MANAGER,
    value: 0n,
    data: redeemCalldata(),
    ...overrides,
  }) as TransactionSerializable

/** A GolemSigner's typed data in the shape viem's recover/verify helpers take (the kit types it loosely). */
export const typed = (td: TypedDataDefinition) => td as unknown as Omit<Parameters<typeof recoverTypedDataAddress>[0], 'signature'>
