// A local stand-in for the owner's MetaMask wallet on the ERC-7715 path (devnet, tests, demo): it takes
// the `wallet_requestExecutionPermissions` params core/permissions/erc7715.ts builds (MetaMask's
// permissions Snap's shape, `signer`) or the kit sends (the later shape, `to`) and grants them the way
// MetaMask does, as one signed delegation per permission from the owner's smart account to the
// requested account, and answers in the request's own response shape (`context` = the encoded chain).
import {
  createErc20TokenPeriodicCaveats,
  createNativeTokenPeriodicCaveats,
  type Erc20TokenPeriodicPermission,
  type NativeTokenPeriodicPermission,
  type PermissionRequest,
  type PermissionResponse,
  type Rule,
} from '@metamask/7715-permission-types'
import { NonceEnforcer } from '@metamask/delegation-abis'
import { ROOT_AUTHORITY, type Caveat, type Delegation, type SmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import { createCaveatBuilder, encodeDelegations, generateSalt } from '@metamask/smart-accounts-kit/utils'
import { getAddress, hexToBigInt, isAddress, isAddressEqual, isHex, toHex, type Address, type Hex, type PublicClient } from 'viem'
import { BardoError } from '../errors.ts'
import type { WalletPermissionRequest, WalletPermissionResponse } from './erc7715.ts'

export type PeriodicPermission = Erc20TokenPeriodicPermission | NativeTokenPeriodicPermission
export type PeriodicPermissionRequest = PermissionRequest<PeriodicPermission>
export type PeriodicPermissionResponse = PermissionResponse<PeriodicPermission>
/** The same request and answer in the shape MetaMask's permissions Snap 0.7.0 takes (erc7715.ts builds it). */
export type WalletPeriodicRequest = WalletPermissionRequest<PeriodicPermission>
export type WalletPeriodicResponse = WalletPermissionResponse<PeriodicPermission>
export type PeriodicGrant = PeriodicPermissionResponse | WalletPeriodicResponse

/** A request the local wallet refuses; `field` names the part of the request and `rule` what it broke. Nothing is signed. */
export class LocalOwnerWalletError extends BardoError {
  readonly field: string
  readonly rule: string
  constructor(field: string, rule: string) {
    super('LOCAL_OWNER_WALLET', `${field}: ${rule}`, { details: { field, rule } })
    this.field = field
    this.rule = rule
  }
}

/** What the wallet needs of the owner's MetaMask smart account (`toMetaMaskSmartAccount(...)` has it all). */
export type OwnerSmartAccount = {
  address: Address
  signDelegation(params: { delegation: Omit<Delegation, 'signature'> }): Promise<Hex>
  isDeployed(): Promise<boolean>
  getFactoryArgs(): Promise<{ factory?: Address | undefined; factoryData?: Hex | undefined }>
}

export type LocalOwnerWalletParameters = {
  smartAccount: OwnerSmartAccount
  environment: SmartAccountsEnvironment
  chainId: number
  /** Reads the owner's current NonceEnforcer nonce, which every grant carries (so the owner can revoke all at once). */
  publicClient: Pick<PublicClient, 'readContract'>
  /** Unix seconds: the default `startTime`, and expiries at or before it are refused. Defaults to the wall clock. */
  now?: () => number
}

export type LocalOwnerWallet = {
  readonly address: Address
  /** Grants every request or none (all are validated before the first is signed), answering in each request's shape. */
  requestExecutionPermissions(requests: readonly WalletPeriodicRequest[]): Promise<WalletPeriodicResponse[]>
  requestExecutionPermissions(requests: readonly PeriodicPermissionRequest[]): Promise<PeriodicPermissionResponse[]>
  requestExecutionPermissions(requests: readonly (PeriodicPermissionRequest | WalletPeriodicRequest)[]): Promise<PeriodicGrant[]>
  /** The grants made so far, in order. */
  grantedPermissions(): readonly PeriodicGrant[]
  /** EIP-1193 subset, so viem's `custom()` transport (and the kit's erc7715ProviderActions) can talk to it. */
  request(args: { method: string; params?: unknown }): Promise<unknown>
}

const SUPPORTED_RULES = ['expiry', 'redeemer'] as const

/**
 * MetaMask grants an ERC-7715 periodic permission as a root delegation from the owner's account to the
 * requested account (`to`) holding, as `@metamask/7715-permission-types` creates and decodes them: the
 * permission's own caveats (`erc20-token-periodic`: ERC20PeriodTransfer + ValueLte(0);
 * `native-token-periodic`: NativeTokenPeriodTransfer + ExactCalldata(0x)), a TimestampEnforcer
 * `(0, expiry)` for an `expiry` rule, a RedeemerEnforcer for a `redeemer` rule, and the NonceEnforcer
 * at the owner's current nonce. The response's `context` is `encodeDelegations([delegation])`.
 */
export function createLocalOwnerWallet(params: LocalOwnerWalletParameters): LocalOwnerWallet {
  const { smartAccount, environment, chainId } = params
  const now = params.now ?? (() => Math.floor(Date.now() / 1000))
  const granted: PeriodicGrant[] = []
  const enforcers = environment.caveatEnforcers

  const currentNonce = async (): Promise<bigint> =>
    params.publicClient.readContract({
      address: need(enforcers.NonceEnforcer, 'NonceEnforcer'),
      abi: NonceEnforcer,
      functionName: 'currentNonce',
      args: [environment.DelegationManager, smartAccount.address],
    }) as Promise<bigint>

  /** Validates one request and returns its caveats without the nonce (read once, at signing time). */
  const caveatsFor = (
    request: PeriodicPermissionRequest | WalletPeriodicRequest,
    i: number,
  ): { caveats: Caveat[]; startTime: number; to: Address } => {
    const field = (name: string) => `requests[${i}].${name}`
    if (!request || typeof request !== 'object') throw new LocalOwnerWalletError(`requests[${i}]`, 'must be a permission request object')
    if (!isHex(request.chainId) || hexToBigInt(request.chainId) !== BigInt(chainId))
      throw new LocalOwnerWalletError(field('chainId'), `must be ${toHex(chainId)}, the wallet's chain, got ${String(request.chainId)}`)
    const snapShape = 'signer' in request
    if (snapShape && request.signer?.type !== 'account')
      throw new LocalOwnerWalletError(field('signer.type'), `must be account, got ${String(request.signer?.type)}`)
    const [fromField, from] = snapShape ? ['address', request.address] : ['from', request.from]
    const [toField, to] = snapShape ? ['signer.data.address', request.signer.data?.address] : ['to', request.to]
    if (from !== undefined && from !== null && (!isAddress(from, { strict: false }) || !isAddressEqual(from, smartAccount.address)))
      throw new LocalOwnerWalletError(field(fromField), `must be the wallet's account ${smartAccount.address}, got ${String(from)}`)
    if (!isAddress(to, { strict: false })) throw new LocalOwnerWalletError(field(toField), `must be an address, got ${String(to)}`)
    if (isAddressEqual(to, smartAccount.address)) throw new LocalOwnerWalletError(field(toField), "must not be the wallet's own account")
    const permission = request.permission
    const startTime = permission?.data?.startTime ?? now()
    const data = { ...permission?.data, startTime, justification: permission?.data?.justification ?? '' }
    let caveats: Caveat[]
    try {
      if (permission?.type === 'erc20-token-periodic') {
        caveats = createErc20TokenPeriodicCaveats({
          permission: { ...permission, data: data as Required<Erc20TokenPeriodicPermission['data']> } as never,
          contracts: {
            erc20PeriodTransferEnforcer: need(enforcers.ERC20PeriodTransferEnforcer, 'ERC20PeriodTransferEnforcer'),
            valueLteEnforcer: need(enforcers.ValueLteEnforcer, 'ValueLteEnforcer'),
          },
        }) as Caveat[]
      } else if (permission?.type === 'native-token-periodic') {
        caveats = createNativeTokenPeriodicCaveats({
          permission: { ...permission, data: data as Required<NativeTokenPeriodicPermission['data']> } as never,
          contracts: {
            nativeTokenPeriodTransferEnforcer: need(enforcers.NativeTokenPeriodTransferEnforcer, 'NativeTokenPeriodTransferEnforcer'),
            exactCalldataEnforcer: need(enforcers.ExactCalldataEnforcer, 'ExactCalldataEnforcer'),
          },
        }) as Caveat[]
      } else {
        throw new LocalOwnerWalletError(
          field('permission.type'),
          `must be erc20-token-periodic or native-token-periodic, got ${String((permission as { type?: unknown })?.type)}`,
        )
      }
    } catch (error) {
      if (error instanceof LocalOwnerWalletError) throw error
      throw new LocalOwnerWalletError(field('permission.data'), (error as Error).message)
    }
    return { caveats: [...caveats, ...ruleCaveats((request.rules ?? []) as Rule[], field, startTime)], startTime, to: getAddress(to) }
  }

  const ruleCaveats = (rules: readonly Rule[], field: (name: string) => string, startTime: number): Caveat[] => {
    const builder = createCaveatBuilder(environment)
    const seen = new Set<string>()
    rules.forEach((rule, j) => {
      const at = field(`rules[${j}]`)
      if (!SUPPORTED_RULES.includes(rule?.type as never))
        throw new LocalOwnerWalletError(`${at}.type`, `must be one of ${SUPPORTED_RULES.join(', ')}, got ${String(rule?.type)}`)
      if (seen.has(rule.type)) throw new LocalOwnerWalletError(`${at}.type`, `${rule.type} is given twice`)
      seen.add(rule.type)
      if (rule.type === 'expiry') {
        const timestamp = rule.data?.timestamp
        if (!Number.isSafeInteger(timestamp) || timestamp <= 0)
          throw new LocalOwnerWalletError(`${at}.data.timestamp`, `must be unix seconds, got ${String(timestamp)}`)
        if (timestamp <= now()) throw new LocalOwnerWalletError(`${at}.data.timestamp`, `${timestamp} is not in the future (now ${now()})`)
        if (timestamp <= startTime)
          throw new LocalOwnerWalletError(`${at}.data.timestamp`, `${timestamp} must be after startTime ${startTime}`)
        // TimestampEnforcer: valid while afterThreshold < now < beforeThreshold; 0 means no lower bound.
        builder.addCaveat('timestamp', { afterThreshold: 0, beforeThreshold: timestamp })
      } else {
        const addresses = rule.data?.addresses
        if (!Array.isArray(addresses) || addresses.length === 0 || !addresses.every((a) => isAddress(a, { strict: false })))
          throw new LocalOwnerWalletError(`${at}.data.addresses`, 'must be a non-empty list of addresses')
        builder.addCaveat('redeemer', { redeemers: addresses.map((a: string) => getAddress(a)) })
      }
    })
    return builder.build()
  }

  const requestExecutionPermissions = async (
    requests: readonly (PeriodicPermissionRequest | WalletPeriodicRequest)[],
  ): Promise<PeriodicGrant[]> => {
    if (!Array.isArray(requests) || requests.length === 0)
      throw new LocalOwnerWalletError('requests', 'must be a non-empty list of permission requests')
    const planned = requests.map((r, i) => ({ request: r, ...caveatsFor(r, i) }))
    const nonce = await currentNonce()
    const nonceCaveat = createCaveatBuilder(environment)
      .addCaveat('nonce', { nonce: toHex(nonce) })
      .build()
    const deployed = await smartAccount.isDeployed()
    const dependencies: { factory: Address; factoryData: Hex }[] = []
    if (!deployed) {
      const { factory, factoryData } = await smartAccount.getFactoryArgs()
      if (factory && factoryData) dependencies.push({ factory, factoryData })
    }
    const responses: PeriodicGrant[] = []
    for (const { request, caveats, startTime, to } of planned) {
      const unsigned = {
        delegate: to,
        delegator: smartAccount.address,
        authority: ROOT_AUTHORITY,
        caveats: [...caveats, ...nonceCaveat],
        salt: generateSalt(),
      }
      const delegation: Delegation = { ...unsigned, signature: await smartAccount.signDelegation({ delegation: unsigned }) }
      const permission = { ...request.permission, data: { ...request.permission.data, startTime } } as PeriodicPermission
      const context = encodeDelegations([delegation])
      responses.push(
        'signer' in request
          ? {
              ...request,
              address: smartAccount.address,
              permission,
              context,
              dependencyInfo: dependencies,
              signerMeta: { delegationManager: environment.DelegationManager },
            }
          : { ...request, from: smartAccount.address, permission, context, dependencies, delegationManager: environment.DelegationManager },
      )
    }
    granted.push(...responses)
    return responses
  }

  return {
    address: smartAccount.address,
    requestExecutionPermissions: requestExecutionPermissions as LocalOwnerWallet['requestExecutionPermissions'],
    grantedPermissions: () => [...granted],
    async request({ method, params: rpcParams }) {
      switch (method) {
        case 'wallet_requestExecutionPermissions':
          return requestExecutionPermissions(rpcParams as PeriodicPermissionRequest[])
        case 'wallet_getGrantedExecutionPermissions':
          return [...granted]
        case 'wallet_getSupportedExecutionPermissions': {
          const info = { chainIds: [toHex(chainId)], ruleTypes: [...SUPPORTED_RULES] }
          return { 'erc20-token-periodic': info, 'native-token-periodic': info }
        }
        case 'eth_chainId':
          return toHex(chainId)
        case 'eth_accounts':
          return [smartAccount.address]
        default:
          throw new LocalOwnerWalletError('method', `${method} is not supported by the local owner wallet`)
      }
    },
  }
}

function need(address: Address | undefined, name: string): Address {
  if (!address) throw new LocalOwnerWalletError('environment.caveatEnforcers', `has no ${name}`)
  return address
}
