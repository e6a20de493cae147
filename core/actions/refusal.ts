// One set of words for a refused action, whether the off-chain pre-check found it or the chain's
// revert did: both produce the enforcer's error name and arguments, and these words are built from
// those alone, so the two reasons read the same.
import { getAddress, isAddress, type Address, type Hex } from 'viem'
import { formatBps, formatDate, formatUsd, labelSelector } from '../caveats/format.ts'
import { ACTION_CLASS } from '../caveats/types.ts'
import { phaseNames } from '../lifecycle/phase.ts'

/** Why an action was refused: the caveat, the enforcer's error (name and arguments), and a sentence. */
export type ActionRefusal = {
  /** The caveat that refuses it, by its type name (golemPhase, dreamMode, maxSlippage, ...). */
  readonly caveat: string
  /** The enforcer's custom error name, or its revert string for the framework's string reverts. */
  readonly error: string
  readonly args: readonly unknown[]
  /** `<caveat>: <what was violated, with the numbers>`. */
  readonly reason: string
  /** The call of a batch it concerns (0 for a single call). */
  readonly call: number
}

/** Errors a price-reading caveat raises; which caveat it was depends on the delegation (see `pricedBy`). */
const PRICE_ERRORS = new Set(['StalePrice', 'InvalidPrice', 'UnpricedAsset', 'SequencerDown', 'SequencerGracePeriodNotOver'])

const CAVEAT_OF: Readonly<Record<string, string>> = {
  ActionNotAllowedInPhase: 'golemPhase',
  UnclassifiedAction: 'golemPhase',
  NotARunwayTransfer: 'golemPhase',
  ProtectedTarget: 'golemPhase',
  GolemNotRegistered: 'golemPhase',
  DelegationNotYetActive: 'golemPhase',
  DelegationExpired: 'golemPhase',
  GolemDreaming: 'dreamMode',
  SlippageExceeded: 'maxSlippage',
  MalformedSwap: 'maxSlippage',
  PoolPriceOffFeeds: 'maxSlippage',
  NoPool: 'maxSlippage',
  MalformedLiquidityRemoval: 'maxSlippage',
  LiquidityRemovalAfterOtherCall: 'maxSlippage',
  DailySpendLimitExceeded: 'dailySpendLimit',
  'AllowedTargetsEnforcer:target-address-not-allowed': 'allowedTargets',
  'AllowedMethodsEnforcer:method-not-allowed': 'allowedMethods',
  'ValueLteEnforcer:value-too-high': 'valueLte',
  'AllowedCalldataEnforcer:invalid-calldata': 'allowedCalldata',
  CannotUseADisabledDelegation: 'delegationManager',
  InvalidDelegate: 'delegationManager',
  InvalidDelegationSignature: 'delegationManager',
}

const classNames = (mask: number): string =>
  Object.entries(ACTION_CLASS)
    .filter(([, bit]) => (mask & bit) !== 0)
    .map(([name]) => name)
    .join(' + ')

const phaseName = (phase: bigint | number): string => `${phaseNames[Number(phase)] ?? 'an unknown phase'} (phase ${phase})`
const a = (v: unknown): string => (typeof v === 'string' && isAddress(v, { strict: false }) ? getAddress(v) : String(v))
const n = (v: unknown): bigint => BigInt(v as bigint)

/**
 * The refusal for an enforcer error. `pricedBy` names the caveat that reads prices on the delegation
 * (a stale feed is that caveat's refusal); `detail` adds what only the pre-check knows (the byte a pin
 * expected), after the chain's own words.
 */
export function refusalOf(
  error: { name: string; args: readonly unknown[] },
  options: { call?: number; pricedBy?: string; detail?: string } = {},
): ActionRefusal {
  // A framework revert string arrives decoded as Error(string): the string is the error.
  const isString = error.name === 'Error' && typeof error.args[0] === 'string'
  const name = isString ? (error.args[0] as string) : error.name
  const args = isString ? [] : error.args
  const caveat = PRICE_ERRORS.has(name) ? (options.pricedBy ?? 'priceFeed') : (CAVEAT_OF[name] ?? 'unknown')
  const words = wordsOf(name, args)
  return {
    caveat,
    error: name,
    args,
    reason: `${caveat}: ${words}${options.detail ? ` (${options.detail})` : ''}`,
    call: options.call ?? 0,
  }
}

function wordsOf(name: string, args: readonly unknown[]): string {
  switch (name) {
    case 'ActionNotAllowedInPhase':
      return `the Golem is in ${phaseName(n(args[1]))}, which does not allow ${labelSelector(args[2] as Hex)} (${classNames(Number(args[3]))})`
    case 'UnclassifiedAction':
      return `${labelSelector(args[1] as Hex)} on ${a(args[0])} has no action class in the phase table, so no phase allows it`
    case 'NotARunwayTransfer':
      return `${labelSelector(args[1] as Hex)} on ${a(args[0])} is not a plain transfer, and this runway delegation allows nothing else`
    case 'ProtectedTarget':
      return `no call may target the owner's account or the DelegationManager (${a(args[0])})`
    case 'GolemNotRegistered':
      return `the Golem ${a(args[0])} is not registered with the VitalityOracle (never registered, or dead)`
    case 'DelegationNotYetActive':
      return `the Golem's life window opens at ${formatDate(n(args[1]))}; chain time is ${formatDate(n(args[0]))}`
    case 'DelegationExpired':
      return `the Golem's life window ended at ${formatDate(n(args[1]))}; chain time is ${formatDate(n(args[0]))}`
    case 'GolemDreaming':
      return `the Golem ${a(args[0])} has been dreaming since ${formatDate(n(args[1]))}, and nothing executes while it dreams`
    case 'SlippageExceeded':
      return `the swap's minimum output ${n(args[1])} is ${formatBps(Number(args[2]))} below the ${n(args[0])} the price feeds imply; at most ${formatBps(Number(args[3]))} is allowed`
    case 'MalformedSwap':
      return `the swap's calldata (${labelSelector(args[0] as Hex)}) does not decode, so its slippage cannot be checked`
    case 'PoolPriceOffFeeds': {
      const [deviation, cap] = [n(args[3]), n(args[4])]
      // The maximum stands for a pool priced where the feeds give no price at all (a feed price of 0).
      const off =
        deviation === 2n ** 256n - 1n ? 'where the price feeds give no price' : `${formatBps(Number(deviation))} off the price feeds`
      return `the position's pool ${a(args[0])} is priced ${off} (pool ${n(args[1])}, feeds ${n(args[2])}, token1 per token0 in Q96); at most ${formatBps(Number(cap))} is allowed, so the removal would be paid out at a moved price`
    }
    case 'NoPool':
      return `the position manager's factory names no pool for ${a(args[0])}/${a(args[1])} at fee ${n(args[2])}, so the position's price cannot be checked`
    case 'MalformedLiquidityRemoval':
      return `the removal's calldata (${labelSelector(args[0] as Hex)}) does not decode, so its pool cannot be priced`
    case 'LiquidityRemovalAfterOtherCall':
      return `call ${n(args[0])} removes liquidity after call ${n(args[1])}, which could move the pool first`
    case 'DailySpendLimitExceeded': {
      const [spent, requested, limit] = [n(args[1]), n(args[2]), n(args[3])]
      const left = limit > spent ? limit - spent : 0n
      return `this call is worth ${formatUsd(requested)}, but only ${formatUsd(left)} of today's ${formatUsd(limit)} is left (${formatUsd(spent)} spent)`
    }
    case 'StalePrice':
      return `the price feed ${a(args[0])} was last updated at ${formatDate(n(args[1]))}, more than ${n(args[2])} s ago`
    case 'InvalidPrice':
      return `the price feed ${a(args[0])} answers ${String(args[1])}, not a positive price`
    case 'UnpricedAsset':
      return `${a(args[0])} has no price feed in the caveat, so it cannot be valued`
    case 'AllowedTargetsEnforcer:target-address-not-allowed':
      return 'the call targets a contract the delegation does not allow'
    case 'AllowedMethodsEnforcer:method-not-allowed':
      return 'the call is a method the delegation does not allow'
    case 'ValueLteEnforcer:value-too-high':
      return 'the call sends more ETH than the delegation allows'
    case 'AllowedCalldataEnforcer:invalid-calldata':
      return 'the call names an argument the delegation pins to another value'
    case 'CannotUseADisabledDelegation':
      return 'the owner has revoked this delegation'
    default:
      return `the chain refused it with ${name}(${args.map((x) => String(x)).join(', ')})`
  }
}

/** The address an AllowedCalldata pin fixes, spelled for a refusal. */
export const describePin = (pinned: Address | undefined, owner: Address, value: Hex): string =>
  pinned === undefined
    ? value
    : pinned.toLowerCase() === owner.toLowerCase()
      ? `the owner's account ${getAddress(owner)}`
      : getAddress(pinned)
