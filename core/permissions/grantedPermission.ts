// What the owner's wallet granted through ERC-7715, read from its answer to
// `wallet_requestExecutionPermissions`, not from what was asked: the wallet may let the owner lower an
// amount, snap the period to one of its presets, add a NonceEnforcer (MetaMask adds one to every grant, so
// the owner can revoke them all at once) and grant without an expiry. Each permission's `context` is the
// signed delegation from the owner's account to the Golem's Session Account; its caveats are the grant.
// A grant Bardo cannot use is refused naming the field and the rule. Pure.
import { ROOT_AUTHORITY, type Delegation } from '@metamask/smart-accounts-kit'
import { decodeDelegations, hashDelegation } from '@metamask/smart-accounts-kit/utils'
import { getAddress, hexToBigInt, isAddressEqual, isHex, size, type Address, type Hex } from 'viem'
import { fromCaveat } from '../caveats/caveat.ts'
import type { BardoDeployment } from '../deployment.ts'
import { BardoError } from '../errors.ts'

/** A grant the wallet returned that Bardo cannot carry the Golem on; nothing was written. */
export class GrantedPermissionError extends BardoError {
  readonly field: string
  readonly rule: string
  constructor(field: string, rule: string) {
    super('GRANT_REFUSED', `${field}: ${rule}`, { details: { field, rule } })
    this.field = field
    this.rule = rule
  }
}

export type GrantedPeriodic = {
  /** The signed owner -> Session Account delegation (the permission context's one delegation). */
  delegation: Delegation
  hash: Hex
  /** The period caveat's terms, as the tick reads its spend. */
  periodTerms: Hex
  periodAmount: bigint
  periodDuration: bigint
  /** The first period's start (unix seconds). */
  startDate: bigint
  /** The first second the grant no longer holds (TimestampEnforcer's exclusive end), or null: no expiry. */
  expiry: bigint | null
  /** The owner's NonceEnforcer nonce the grant was made at, when the wallet added one. */
  nonce?: { enforcer: Address; delegator: Address; value: bigint }
}

export type GrantedRunway = { token: Address; runway: GrantedPeriodic; gas: GrantedPeriodic }

export type GrantExpectation = {
  deployment: BardoDeployment
  /** The wallet's account: the delegator of both grants. */
  owner: Address
  /** The Golem's Session Account: the delegate of both grants. */
  sessionAccount: Address
  /** The runway token asked for. */
  token: Address
  /** What was asked per period: a grant may be lower, never higher (the plan is the minimum the Golem needs). */
  periodAmount: bigint
  gasPeriodAmount: bigint
  /** Chain time now: a grant must still hold. */
  now: bigint
}

const KINDS = ['erc20-token-periodic', 'native-token-periodic'] as const
type Kind = (typeof KINDS)[number]

function record(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new GrantedPermissionError(field, 'must be an object')
  return value as Record<string, unknown>
}

function kindOf(p: Record<string, unknown>, field: string): Kind {
  const type = record(p.permission, `${field}.permission`).type
  if (!(KINDS as readonly unknown[]).includes(type))
    throw new GrantedPermissionError(`${field}.permission.type`, `must be one of ${KINDS.join(', ')}, got ${JSON.stringify(type)}`)
  return type as Kind
}

function chainIdOf(value: unknown): number | undefined {
  if (typeof value === 'number') return value
  if (typeof value === 'string' && isHex(value)) return Number(hexToBigInt(value))
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value)
  return undefined
}

/** One granted permission, checked against the grant Bardo asked for. */
function readPeriodic(p: Record<string, unknown>, kind: Kind, field: string, x: GrantExpectation): GrantedPeriodic {
  const { deployment } = x
  const env = deployment.environment
  if (chainIdOf(p.chainId) !== deployment.chainId)
    throw new GrantedPermissionError(`${field}.chainId`, `must be this deployment's chain ${deployment.chainId}`)
  if (
    p.delegationManager !== undefined &&
    (typeof p.delegationManager !== 'string' || !isAddressEqual(p.delegationManager as Address, env.DelegationManager))
  )
    throw new GrantedPermissionError(`${field}.delegationManager`, `must be this deployment's DelegationManager ${env.DelegationManager}`)
  if (typeof p.context !== 'string' || !isHex(p.context) || size(p.context) === 0)
    throw new GrantedPermissionError(`${field}.context`, 'must be the hex-encoded permission context')
  let context: Delegation[]
  try {
    context = decodeDelegations(p.context)
  } catch {
    throw new GrantedPermissionError(`${field}.context`, 'must decode to signed delegations')
  }
  if (context.length !== 1)
    throw new GrantedPermissionError(`${field}.context`, `must hold one delegation from the owner's account, got ${context.length}`)
  const delegation = context[0]!
  if (delegation.authority !== ROOT_AUTHORITY)
    throw new GrantedPermissionError(`${field}.context`, "must be a root grant from the owner's account")
  if (!isAddressEqual(delegation.delegator, x.owner))
    throw new GrantedPermissionError(`${field}.context.delegator`, `must be the owner's account ${x.owner}`)
  if (!isAddressEqual(delegation.delegate, x.sessionAccount))
    throw new GrantedPermissionError(`${field}.context.delegate`, `must be the Golem's Session Account ${x.sessionAccount}`)
  if (delegation.signature === '0x') throw new GrantedPermissionError(`${field}.context.signature`, 'must be signed by the owner')

  let period: { caveat: Hex; amount: bigint; duration: bigint; start: bigint; token?: Address } | undefined
  let expiry: bigint | null = null
  let nonce: GrantedPeriodic['nonce']
  for (const [i, caveat] of delegation.caveats.entries()) {
    if (env.caveatEnforcers.NonceEnforcer && isAddressEqual(caveat.enforcer, env.caveatEnforcers.NonceEnforcer)) {
      nonce = { enforcer: getAddress(caveat.enforcer), delegator: getAddress(delegation.delegator), value: hexToBigInt(caveat.terms) }
      continue
    }
    const decoded = fromCaveat(caveat, deployment, env)
    if (decoded.type === 'timestamp' && decoded.beforeThreshold > 0n) {
      expiry = expiry === null || decoded.beforeThreshold < expiry ? decoded.beforeThreshold : expiry
    } else if (kind === 'erc20-token-periodic' && decoded.type === 'erc20PeriodTransfer') {
      period = {
        caveat: caveat.terms,
        amount: decoded.periodAmount,
        duration: decoded.periodDuration,
        start: decoded.startDate,
        token: decoded.tokenAddress,
      }
    } else if (kind === 'native-token-periodic' && decoded.type === 'nativeTokenPeriodTransfer') {
      period = { caveat: caveat.terms, amount: decoded.periodAmount, duration: decoded.periodDuration, start: decoded.startDate }
    } else if (decoded.type === 'unknown') {
      throw new GrantedPermissionError(
        `${field}.context.caveats[${i}].enforcer`,
        `must be an enforcer of this deployment's framework, got ${caveat.enforcer}`,
      )
    }
  }
  const what = kind === 'erc20-token-periodic' ? 'ERC20PeriodTransfer' : 'NativeTokenPeriodTransfer'
  if (!period) throw new GrantedPermissionError(`${field}.context.caveats`, `must hold the ${what} caveat of a ${kind} grant`)
  if (period.token !== undefined && !isAddressEqual(period.token, x.token))
    throw new GrantedPermissionError(`${field}.permission.data.tokenAddress`, `must be the runway token ${x.token}`)
  const asked = kind === 'erc20-token-periodic' ? x.periodAmount : x.gasPeriodAmount
  if (period.amount <= 0n) throw new GrantedPermissionError(`${field}.permission.data.periodAmount`, 'must be greater than 0')
  if (period.amount > asked)
    throw new GrantedPermissionError(
      `${field}.permission.data.periodAmount`,
      `must be at most the ${asked} asked for (the plan is the least the Golem needs; a larger grant only widens what a leaked key could take)`,
    )
  if (expiry !== null && expiry <= x.now) throw new GrantedPermissionError(`${field}.rules.expiry`, `must be later than now (${x.now})`)
  return {
    delegation,
    hash: hashDelegation(delegation),
    periodTerms: period.caveat,
    periodAmount: period.amount,
    periodDuration: period.duration,
    startDate: period.start,
    expiry,
    ...(nonce ? { nonce } : {}),
  }
}

/** The runway and gas grants in the wallet's answer, as granted. */
export function grantedRunwayOf(permissions: readonly unknown[], x: GrantExpectation): GrantedRunway {
  const found: Partial<Record<Kind, GrantedPeriodic>> = {}
  for (const [i, raw] of permissions.entries()) {
    const field = `permissions[${i}]`
    const p = record(raw, field)
    const kind = kindOf(p, field)
    if (found[kind]) throw new GrantedPermissionError(`${field}.permission.type`, `must not repeat ${kind}`)
    found[kind] = readPeriodic(p, kind, field, x)
  }
  const runway = found['erc20-token-periodic']
  const gas = found['native-token-periodic']
  if (!runway || !gas)
    throw new GrantedPermissionError(
      'permissions',
      'must hold the erc20-token-periodic runway grant and the native-token-periodic gas grant',
    )
  return { token: getAddress(x.token), runway, gas }
}
