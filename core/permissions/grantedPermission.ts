// What the owner's wallet actually granted for a Golem's runway and gas, read from its
// `wallet_requestExecutionPermissions` answer: the wallet may have let the owner lower an amount or pick
// another preset period, may add caveats of its own (MetaMask adds the owner's NonceEnforcer nonce) and
// may grant without an expiry, so Bardo re-delegates from what the signed delegations say, not from
// what it asked for.
import { ROOT_AUTHORITY, type Delegation, type SmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import { decodeCaveat, decodeDelegations, hashDelegation } from '@metamask/smart-accounts-kit/utils'
import { getAddress, hexToBigInt, isAddress, isAddressEqual, isHex, type Address, type Hex } from 'viem'
import { BardoError } from '../errors.ts'
import type { RunwayPermissionRequests } from './erc7715.ts'

/** A granted permission the plan cannot use; `field` names the part of the answer and `rule` what it broke. */
export class GrantedPermissionError extends BardoError {
  readonly field: string
  readonly rule: string
  constructor(field: string, rule: string) {
    super('GRANTED_PERMISSION', `${field}: ${rule}`, { details: { field, rule } })
    this.field = field
    this.rule = rule
  }
}

/** One periodic permission as the owner's signed root delegation grants it. */
export type GrantedPeriodicPermission = {
  type: 'erc20-token-periodic' | 'native-token-periodic'
  /** The ERC-20 moved (the runway's USDC); null for the native-token (gas) permission. */
  token: Address | null
  /** Base units per period, as granted (the owner may have lowered the requested amount). */
  periodAmount: bigint
  /** Seconds, as granted (one of the wallet's presets). */
  periodDuration: number
  /** Unix seconds: the first period's start. */
  startDate: number
  /** Unix seconds (the TimestampEnforcer's exclusive end), or null when the wallet granted no expiry. */
  expiry: number | null
  /** The owner's NonceEnforcer nonce the grant carries: incrementing it revokes every grant at once. */
  nonce: bigint
  /** The owner's account. */
  delegator: Address
  /** The Golem's session account. */
  delegate: Address
  delegationManager: Address
  /** The owner's root delegation (the last of `chain`) and its hash. */
  root: { delegation: Delegation; hash: Hex }
  /** The permission context decoded, leaf first: what a re-delegation's `permission.context` takes. */
  chain: readonly Delegation[]
}

export type GrantedRunway = { runway: GrantedPeriodicPermission; gas: GrantedPeriodicPermission }

export type ReadGrantedRunwayParameters = {
  /** The wallet's answer to `toErc7715Request(plan)`: the granted permissions, runway then gas. */
  granted: unknown
  /** What was asked (toErc7715Request's result): the grant is checked against it. */
  request: RunwayPermissionRequests
  environment: SmartAccountsEnvironment
  /** Unix seconds. */
  now: number
  /** The shortest life the plan can use: an expiry before `now + minimumLifeSeconds` is refused. */
  minimumLifeSeconds: number
}

const PERMISSION_TYPES = ['erc20-token-periodic', 'native-token-periodic'] as const

/**
 * Reads both grants and refuses, naming the field and the rule, any the plan cannot use: another
 * chain, delegate, owner or token, a delegation manager other than the deployment's, a zero amount, an
 * amount or a spending rate above the request, a period longer than both the requested life and period, an expiry
 * before `now + minimumLifeSeconds`, a delegation that is not a root, or a caveat whose enforcer is
 * not one such a permission holds.
 */
export function readGrantedRunway(params: ReadGrantedRunwayParameters): GrantedRunway {
  const { granted } = params
  if (!Array.isArray(granted) || granted.length !== 2)
    throw new GrantedPermissionError('granted', 'must be the two granted permissions, the runway then the gas')
  return { runway: readOne(params, granted[0], 0), gas: readOne(params, granted[1], 1) }
}

type Answer = {
  chainId?: unknown
  permission?: { type?: unknown }
  context?: unknown
  signerMeta?: { delegationManager?: unknown }
  delegationManager?: unknown
}

function readOne(params: ReadGrantedRunwayParameters, value: unknown, i: 0 | 1): GrantedPeriodicPermission {
  const { environment, request: requests } = params
  const request = requests[i]
  const at = (name: string) => `granted.${i}.${name}`
  if (!value || typeof value !== 'object') throw new GrantedPermissionError(`granted.${i}`, 'must be a granted permission object')
  const answer = value as Answer
  const type = PERMISSION_TYPES[i]
  if (answer.permission?.type !== type) throw new GrantedPermissionError(at('permission.type'), `must be ${type}`)
  if (!isHex(answer.chainId) || hexToBigInt(answer.chainId) !== hexToBigInt(request.chainId))
    throw new GrantedPermissionError(at('chainId'), `must be the requested chain ${request.chainId}`)
  // The Snap names the manager in signerMeta; the later ERC-7715 answer names it at the top.
  const manager = answer.signerMeta?.delegationManager ?? answer.delegationManager
  if (typeof manager !== 'string' || !isAddress(manager, { strict: false }) || !isAddressEqual(manager, environment.DelegationManager))
    throw new GrantedPermissionError(
      at('signerMeta.delegationManager'),
      `must be the deployment's DelegationManager ${environment.DelegationManager}`,
    )

  let chain: Delegation[]
  try {
    chain = isHex(answer.context) ? decodeDelegations(answer.context) : []
  } catch {
    chain = []
  }
  if (chain.length === 0) throw new GrantedPermissionError(at('context'), 'must encode the granted delegation chain')
  const leaf = chain[0]!
  const root = chain.at(-1)!
  if (root.authority.toLowerCase() !== ROOT_AUTHORITY.toLowerCase())
    throw new GrantedPermissionError(at('context'), "the chain's last delegation must be a root delegation")
  const sessionAccount = request.signer.data.address
  if (!isAddressEqual(leaf.delegate, sessionAccount))
    throw new GrantedPermissionError(at('delegate'), "must be the Golem's session account")
  if (!isAddressEqual(root.delegator, request.address)) throw new GrantedPermissionError(at('delegator'), "must be the owner's account")

  const terms = readCaveats(root, environment, type, at)
  const requestedAmount = hexToBigInt(request.permission.data.periodAmount)
  const requestedPeriod = request.permission.data.periodDuration
  const requestedStart = request.permission.data.startTime ?? params.now
  const requestedLife = (request.rules[0]?.data.timestamp as number) - requestedStart
  if (type === 'erc20-token-periodic') {
    const token = (request.permission.data as { tokenAddress: Address }).tokenAddress
    if (terms.token === null || !isAddressEqual(terms.token, token))
      throw new GrantedPermissionError(at('token'), `must be the plan's token ${getAddress(token)}`)
  }
  if (terms.periodAmount === 0n) throw new GrantedPermissionError(at('periodAmount'), 'must be more than 0')
  if (terms.periodAmount > requestedAmount)
    throw new GrantedPermissionError(
      at('periodAmount'),
      `must not exceed the requested ${requestedAmount} (the owner may lower it, not raise it)`,
    )
  // A period longer than the life pays the Golem once at most; the request's own period may already be
  // (a short life on the wallet's daily preset), so only a longer one than both is refused.
  if (terms.periodDuration > Math.max(requestedLife, requestedPeriod))
    throw new GrantedPermissionError(
      at('periodDuration'),
      `must not be longer than the plan's life of ${requestedLife} seconds or the requested period of ${requestedPeriod}`,
    )
  // A shorter period with the same amount spends faster than the plan allows.
  if (terms.periodAmount * BigInt(requestedPeriod) > requestedAmount * BigInt(terms.periodDuration))
    throw new GrantedPermissionError(
      at('periodDuration'),
      `${terms.periodAmount} every ${terms.periodDuration} seconds spends faster than the requested ${requestedAmount} every ${requestedPeriod}`,
    )
  const earliest = params.now + params.minimumLifeSeconds
  if (terms.expiry !== null && terms.expiry < earliest)
    throw new GrantedPermissionError(at('expiry'), `must not be before ${earliest} (now plus the plan's minimum life)`)
  if (terms.expiry !== null && terms.startDate >= terms.expiry)
    throw new GrantedPermissionError(at('startDate'), `must be before the expiry ${terms.expiry}`)
  return {
    type,
    token: terms.token,
    periodAmount: terms.periodAmount,
    periodDuration: terms.periodDuration,
    startDate: terms.startDate,
    expiry: terms.expiry,
    nonce: terms.nonce,
    delegator: getAddress(root.delegator),
    delegate: getAddress(leaf.delegate),
    delegationManager: getAddress(manager),
    root: { delegation: root, hash: hashDelegation(root) },
    chain,
  }
}

type Terms = {
  token: Address | null
  periodAmount: bigint
  periodDuration: number
  startDate: number
  expiry: number | null
  nonce: bigint
}

/**
 * The enforcers each permission type is made of (MetaMask's own decoder requires the same): its period
 * transfer, ValueLte(0) or ExactCalldata(0x) so nothing else moves, the NonceEnforcer, and a
 * TimestampEnforcer when it expires.
 */
function readCaveats(
  root: Delegation,
  environment: SmartAccountsEnvironment,
  type: GrantedPeriodicPermission['type'],
  at: (name: string) => string,
): Terms {
  const erc20 = type === 'erc20-token-periodic'
  const period = erc20 ? 'erc20PeriodTransfer' : 'nativeTokenPeriodTransfer'
  const guard = erc20 ? 'valueLte' : 'exactCalldata'
  const allowed = [period, guard, 'nonce', 'timestamp']
  const byType = new Map<string, Record<string, unknown>>()
  root.caveats.forEach((caveat, k) => {
    const known = Object.values(environment.caveatEnforcers).some((a) => a !== undefined && isAddressEqual(a, caveat.enforcer))
    const refuse = () =>
      new GrantedPermissionError(at(`caveats.${k}`), `enforcer ${caveat.enforcer} must be one of the deployment's ${allowed.join(', ')}`)
    if (!known) throw refuse()
    let decoded: Record<string, unknown> & { type: string }
    try {
      decoded = decodeCaveat({ caveat, environment }) as Record<string, unknown> & { type: string }
    } catch {
      throw refuse()
    }
    if (!allowed.includes(decoded.type))
      throw new GrantedPermissionError(at(`caveats.${k}`), `a ${decoded.type} caveat is not part of a ${type} permission`)
    if (byType.has(decoded.type)) throw new GrantedPermissionError(at(`caveats.${k}`), `a second ${decoded.type} caveat`)
    byType.set(decoded.type, decoded)
  })
  const terms = byType.get(period)
  if (!terms) throw new GrantedPermissionError(at('caveats'), `must hold the ${period} caveat`)
  const guardTerms = byType.get(guard)
  if (erc20 ? guardTerms?.maxValue !== 0n : guardTerms?.calldata !== '0x')
    throw new GrantedPermissionError(
      at('caveats'),
      erc20 ? 'must hold valueLte(0): no native value moves' : 'must hold exactCalldata(0x): no call is made',
    )
  const nonce = byType.get('nonce')
  if (!nonce) throw new GrantedPermissionError(at('nonce'), "must be present: the owner's NonceEnforcer caveat")
  const timestamp = byType.get('timestamp')
  if (timestamp && timestamp.afterThreshold !== 0)
    throw new GrantedPermissionError(at('expiry'), 'the timestamp caveat must set no earliest time')
  return {
    token: erc20 ? getAddress(terms.tokenAddress as Address) : null,
    periodAmount: terms.periodAmount as bigint,
    periodDuration: Number(terms.periodDuration),
    startDate: Number(terms.startDate),
    expiry: timestamp ? Number(timestamp.beforeThreshold) : null,
    nonce: hexToBigInt(nonce.nonce as Hex),
  }
}
