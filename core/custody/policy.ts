import { ANY_BENEFICIARY, ROOT_AUTHORITY, type Delegation } from '@metamask/smart-accounts-kit'
import { SIGNABLE_DELEGATION_TYPED_DATA } from '@metamask/smart-accounts-kit/utils'
import {
  decodeFunctionData,
  erc20Abi,
  getAbiItem,
  isAddress,
  isAddressEqual,
  isHex,
  size,
  slice,
  toFunctionSelector,
  type Address,
  type Hex,
  type TransactionSerializable,
} from 'viem'
import { CustodyConfigError, SignerPolicyError } from './errors.ts'
import { DelegationManagerAbi } from '../delegations/frameworkAbi.ts'
import { assertPaymentPolicy, type PaymentPolicy } from './paymentPolicy.ts'
import { InvariantError } from '../errors.ts'

/** Where a Golem may send transactions and for which chain and DelegationManager it signs. */
export type SignerPolicyConfig = {
  chainId: number
  delegationManager: Address
  /** The Golem's own oracle contracts; a transaction to any of them is an oracle update. */
  oracles: { vitality?: Address | undefined; dream?: Address | undefined; daimon?: Address | undefined }
  /** Optional ceiling on maxFeePerGas / gasPrice, so a bad fee estimate cannot drain the gas balance. */
  maxFeePerGas?: bigint | undefined
  /**
   * The owner's account (the root delegator of the Golem's grant): the only recipient of a token or
   * native transfer from the key. Without it the key transfers nothing at all.
   */
  owner?: Address | undefined
  /** ERC-20 tokens the key may hand back to the owner (the runway token). */
  returnTokens?: readonly Address[] | undefined
  /** The Golem's own payments (EIP-3009 on one asset, to configured payees, bounded); none without it. */
  payments?: PaymentPolicy | undefined
  /** The councils (MultiSig DeleGators) this Golem's key sits on; it co-signs proposals of these only. */
  councils?: readonly Address[] | undefined
}

export type TransactionPurpose = 'redemption' | 'disable-delegation' | 'oracle-update' | 'token-return' | 'native-return'
export type SigningPurpose = TransactionPurpose | 'sub-delegation' | 'payment' | 'council-proposal'

const selectorOf = (name: 'redeemDelegations' | 'disableDelegation'): Hex => {
  const item = DelegationManagerAbi.find((i) => i.type === 'function' && i.name === name)
  if (item?.type !== 'function') throw new InvariantError('ABI_ITEM_MISSING', `DelegationManager ABI has no ${name}`)
  return toFunctionSelector(item)
}
export const REDEEM_DELEGATIONS_SELECTOR = selectorOf('redeemDelegations')
export const DISABLE_DELEGATION_SELECTOR = selectorOf('disableDelegation')
export const ERC20_TRANSFER_SELECTOR = toFunctionSelector(getAbiItem({ abi: erc20Abi, name: 'transfer' }))

export function assertPolicyConfig(config: SignerPolicyConfig): void {
  if (!Number.isSafeInteger(config.chainId) || config.chainId <= 0)
    throw new CustodyConfigError('policy.chainId', 'must be a positive integer')
  if (!isAddress(config.delegationManager, { strict: false }))
    throw new CustodyConfigError('policy.delegationManager', 'must be an address')
  for (const [name, value] of Object.entries(config.oracles ?? {})) {
    if (value !== undefined && !isAddress(value, { strict: false }))
      throw new CustodyConfigError(`policy.oracles.${name}`, 'must be an address')
  }
  if (config.maxFeePerGas !== undefined && config.maxFeePerGas <= 0n)
    throw new CustodyConfigError('policy.maxFeePerGas', 'must be positive')
  if (config.owner !== undefined && !isAddress(config.owner, { strict: false }))
    throw new CustodyConfigError('policy.owner', 'must be an address')
  for (const token of config.returnTokens ?? []) {
    if (!isAddress(token, { strict: false })) throw new CustodyConfigError('policy.returnTokens', 'must be a list of addresses')
  }
  if ((config.returnTokens ?? []).length > 0 && config.owner === undefined)
    throw new CustodyConfigError('policy.owner', 'is required when returnTokens are set')
  if (config.payments !== undefined) assertPaymentPolicy(config.payments)
  for (const council of config.councils ?? []) {
    if (!isAddress(council, { strict: false })) throw new CustodyConfigError('policy.councils', 'must be a list of addresses')
  }
}

/**
 * Decides what a transaction is for, or refuses it. The only transactions a Golem signs are
 * redemptions and disables at the DelegationManager, calls to its own oracles, and handing funds back
 * to its owner (an ERC-20 `transfer` of a configured token to the owner, a plain native transfer to
 * the owner), on one chain, never installing code (7702) or carrying blobs. Native value goes to the
 * owner only.
 */
export function classifyTransaction(tx: TransactionSerializable, config: SignerPolicyConfig, signer: Address): TransactionPurpose {
  if (tx.type === 'eip7702' || tx.authorizationList !== undefined)
    throw new SignerPolicyError('no-authorization-list', 'transaction.authorizationList: EIP-7702 authorizations are never signed')
  if (tx.type === 'eip4844' || tx.blobs !== undefined || tx.blobVersionedHashes !== undefined)
    throw new SignerPolicyError('no-blob-transactions', 'transaction.type: blob transactions are never signed')
  if (tx.chainId !== config.chainId)
    throw new SignerPolicyError('chain-id', `transaction.chainId must be ${config.chainId}, got ${String(tx.chainId)}`)
  if (!tx.to) throw new SignerPolicyError('no-contract-creation', 'transaction.to is missing: contract creation is never signed')
  const fee = tx.maxFeePerGas ?? tx.gasPrice
  if (config.maxFeePerGas !== undefined && fee !== undefined && fee > config.maxFeePerGas)
    throw new SignerPolicyError('fee-cap', `transaction.maxFeePerGas ${fee} exceeds the cap ${config.maxFeePerGas}`)

  const data = tx.data ?? '0x'
  const value = tx.value ?? 0n
  const toOwner = config.owner !== undefined && isAddressEqual(tx.to, config.owner)
  if (value !== 0n) {
    if (!toOwner)
      throw new SignerPolicyError('no-value', `transaction.value must be 0: native value goes only to the owner's account, not ${tx.to}`)
    if (size(data) !== 0)
      throw new SignerPolicyError(
        'native-return-plain',
        "transaction.data must be empty: a native transfer to the owner calls nothing on the owner's account",
      )
    return 'native-return'
  }
  if (toOwner)
    throw new SignerPolicyError(
      'native-return-plain',
      "transaction to the owner's account must be a plain native transfer with a positive value",
    )
  const returnToken = (config.returnTokens ?? []).find((t) => isAddressEqual(t, tx.to!))
  if (returnToken !== undefined) return classifyTokenReturn(data, config)
  if (isAddressEqual(tx.to, config.delegationManager)) {
    const selector = size(data) >= 4 ? slice(data, 0, 4) : '0x'
    if (selector !== REDEEM_DELEGATIONS_SELECTOR && selector !== DISABLE_DELEGATION_SELECTOR)
      throw new SignerPolicyError(
        'allowed-method',
        `transaction.data selector ${selector} is not redeemDelegations (${REDEEM_DELEGATIONS_SELECTOR}) or disableDelegation (${DISABLE_DELEGATION_SELECTOR})`,
      )
    let decoded
    try {
      decoded = decodeFunctionData({ abi: DelegationManagerAbi, data })
    } catch {
      throw new SignerPolicyError(
        'calldata-decodes',
        `transaction.data does not decode as DelegationManager.${selector === REDEEM_DELEGATIONS_SELECTOR ? 'redeemDelegations' : 'disableDelegation'}`,
      )
    }
    if (decoded.functionName === 'redeemDelegations') return 'redemption'
    if (decoded.functionName === 'disableDelegation') {
      const [delegation] = decoded.args as readonly [{ delegator: Address }]
      // The DelegationManager only lets a delegator disable its own delegations; refusing others here
      // keeps a Golem from paying gas for a transaction that can only revert.
      if (!isAddressEqual(delegation.delegator, signer))
        throw new SignerPolicyError('own-delegation', `disableDelegation delegator ${delegation.delegator} is not this signer ${signer}`)
      return 'disable-delegation'
    }
  }
  if (oracleAddresses(config).some((o) => isAddressEqual(o, tx.to!))) {
    if (size(data) < 4)
      throw new SignerPolicyError('oracle-call', 'transaction.data to an oracle must call a function (at least a 4-byte selector)')
    return 'oracle-update'
  }
  throw new SignerPolicyError(
    'allowed-target',
    `transaction.to ${tx.to} is neither the DelegationManager, one of this Golem's oracles, nor a token it returns to its owner`,
  )
}

/** An ERC-20 call to a configured token: only `transfer(owner, amount)` is a Golem's to sign. */
function classifyTokenReturn(data: Hex, config: SignerPolicyConfig): TransactionPurpose {
  const selector = size(data) >= 4 ? slice(data, 0, 4) : '0x'
  if (selector !== ERC20_TRANSFER_SELECTOR)
    throw new SignerPolicyError(
      'token-transfer-only',
      `transaction.data selector ${selector} is not ERC-20 transfer (${ERC20_TRANSFER_SELECTOR})`,
    )
  const notTransfer = () =>
    new SignerPolicyError('calldata-decodes', 'transaction.data does not decode as ERC-20 transfer(address,uint256)')
  let decoded: ReturnType<typeof decodeFunctionData<typeof erc20Abi>>
  try {
    decoded = decodeFunctionData({ abi: erc20Abi, data })
  } catch {
    throw notTransfer()
  }
  if (decoded.functionName !== 'transfer') throw notTransfer()
  const [recipient, amount] = decoded.args
  if (!isAddressEqual(recipient, config.owner!))
    throw new SignerPolicyError('owner-only-recipient', `transfer recipient ${recipient} is not the owner's account ${config.owner}`)
  if (amount === 0n) throw new SignerPolicyError('token-return-amount', 'transfer amount must be positive')
  return 'token-return'
}

export function oracleAddresses(config: SignerPolicyConfig): Address[] {
  return [config.oracles.vitality, config.oracles.dream, config.oracles.daimon].filter((a): a is Address => a !== undefined)
}

export type DelegationTypedDataInput = {
  domain?: Record<string, unknown> | undefined
  types?: Record<string, unknown> | undefined
  primaryType?: string | undefined
  message?: Record<string, unknown> | undefined
}

/**
 * Accepts typed data only if it is exactly a Delegation for this chain's DelegationManager, from
 * this signer, chained to a parent (never a root delegation of the Golem's own account), to a named
 * delegate (never open), with at least one caveat: the shape of a Replicant sub-delegation.
 */
export function checkDelegationTypedData(td: DelegationTypedDataInput, config: SignerPolicyConfig, signer: Address): void {
  const m = checkOwnDelegationEnvelope(td, config, signer)
  if (typeof m.authority !== 'string' || !isHex(m.authority) || size(m.authority) !== 32 || m.authority.toLowerCase() === ROOT_AUTHORITY)
    throw new SignerPolicyError('sub-delegation-only', 'delegation.authority must be the parent delegation hash, not ROOT_AUTHORITY')
  if (typeof m.delegate !== 'string' || !isAddress(m.delegate, { strict: false }) || isAddressEqual(m.delegate, ANY_BENEFICIARY))
    throw new SignerPolicyError('no-open-delegation', 'delegation.delegate must be a specific address, not the open-delegation marker')
  if (!Array.isArray(m.caveats) || m.caveats.length === 0)
    throw new SignerPolicyError('caveats-required', 'delegation.caveats must not be empty: a sub-delegation only narrows')
}

/**
 * The envelope every delegation a Golem signs shares: exactly the DelegationManager's Delegation and
 * Caveat types, its v1 domain on this chain, and this signer as the delegator. Returns the message.
 */
export function checkOwnDelegationEnvelope(
  td: DelegationTypedDataInput,
  config: Pick<SignerPolicyConfig, 'chainId' | 'delegationManager'>,
  signer: Address,
): Partial<Record<keyof Delegation, unknown>> {
  if (td.primaryType !== 'Delegation')
    throw new SignerPolicyError('typed-data-is-delegation', `typedData.primaryType must be Delegation, got ${String(td.primaryType)}`)
  const types = { ...(td.types ?? {}) }
  delete types.EIP712Domain
  if (JSON.stringify(sortKeys(types)) !== JSON.stringify(sortKeys(SIGNABLE_DELEGATION_TYPED_DATA)))
    throw new SignerPolicyError(
      'typed-data-is-delegation',
      'typedData.types must be exactly the DelegationManager Delegation and Caveat types',
    )
  const d = td.domain ?? {}
  const domainKeys = Object.keys(d).sort().join(',')
  if (
    domainKeys !== 'chainId,name,verifyingContract,version' ||
    d.name !== 'DelegationManager' ||
    d.version !== '1' ||
    Number(d.chainId) !== config.chainId ||
    typeof d.verifyingContract !== 'string' ||
    !isAddress(d.verifyingContract, { strict: false }) ||
    !isAddressEqual(d.verifyingContract, config.delegationManager)
  )
    throw new SignerPolicyError(
      'delegation-domain',
      `typedData.domain must be DelegationManager v1 on chain ${config.chainId} at ${config.delegationManager}`,
    )
  const m = (td.message ?? {}) as Partial<Record<keyof Delegation, unknown>>
  if (typeof m.delegator !== 'string' || !isAddress(m.delegator, { strict: false }) || !isAddressEqual(m.delegator, signer))
    throw new SignerPolicyError('own-delegation', `delegation.delegator ${String(m.delegator)} is not this signer ${signer}`)
  return m
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, sortKeys(v)]),
    )
  return value
}
