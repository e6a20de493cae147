// The off-chain pre-check of an action: runs the chosen delegation's stateful caveats (phase and life
// window, dreaming, the day's USD budget for approvals, a swap's slippage and a liquidity removal's pool
// price against the feeds) on what the edge observed, in the order the DelegationManager runs them, and
// returns the refusal the chain would give (same error, same arguments), or undefined. A batch is
// checked call by call, each call seeing the spend the earlier ones recorded, as the chain runs the
// redemptions of one transaction in order.
import { decodeAbiParameters, decodeFunctionData, getAddress, size, slice, type Address, type Hex } from 'viem'
import type { DecodedCaveat } from '../caveats/caveat.ts'
import { ACTION_CLASS, DEFAULT_PHASE_MASKS, type MaxSlippageCaveat, type TokenFeed } from '../caveats/types.ts'
import { exactInputAbi } from './actionAbi.ts'
import type { ActionCall } from './actionCall.ts'
import type { GrantedAction } from './chooseDelegation.ts'
import { poolPriceOffFeeds, removalPrice } from './poolPrice.ts'
import { refusalOf, type ActionRefusal } from './refusal.ts'
import { swapPathEnds } from './swapPath.ts'
import { priceError, slippageOf, toUsd, tokenAmountOf, wordAt, type FeedReading } from './usdValuation.ts'
import { InvariantError } from '../errors.ts'

const SUBDELEGATION = 0x08
const EXACT_INPUT_SINGLE = '0x04e45aaf'
const EXACT_INPUT = '0xb858183f'
const ERC20_TRANSFER = '0xa9059cbb'
const DECREASE_LIQUIDITY = '0x0c49ccbe'
const DAY = 86_400n

/**
 * What MaxSlippage reads for a liquidity removal: the position's tokens and fee (positions(tokenId)), the
 * pool the manager's factory names for them, and that pool's sqrtPriceX96 (slot0), or no price when the
 * address holds no contract. 'unreadable' when a read reverted (no such position): the chain then refuses
 * with the manager's own error, which custody does not guess.
 */
export type RemovalPool = { token0: Address; token1: Address; fee: number; pool: Address; sqrtPriceX96: bigint | undefined } | 'unreadable'

/** The key of a removal's reading: the position manager and the position. */
export const removalKey = (positionManager: Address, tokenId: bigint): string => `${positionManager.toLowerCase()}:${tokenId}`

/** Everything the stateful caveats read on-chain, read once by the edge before the check. */
export type ActionObservation = {
  /** Chain time (the latest block's timestamp). */
  readonly now: bigint
  readonly delegationManager: Address
  /** Who sends the redemption (the Golem's key). */
  readonly redeemer: Address
  /** VitalityOracle.getPhase per Golem address (lowercase keys). */
  readonly vitality: ReadonlyMap<string, { registered: boolean; phase: number }>
  /** DreamOracle.dreamingSince per Golem address (lowercase keys); 0 when awake. */
  readonly dreamingSince: ReadonlyMap<string, bigint>
  /** GolemPhaseEnforcer.actionClassOf per selector (lowercase keys); 0 is unclassified. */
  readonly actionClasses: ReadonlyMap<string, number>
  /** Price feed readings per feed address (lowercase keys). */
  readonly feeds: ReadonlyMap<string, FeedReading>
  /** DailySpendLimit.spentOn(manager, hash, today) per delegation hash (lowercase keys). */
  readonly spentTodayUsd: ReadonlyMap<string, bigint>
  /** The pool of each position a MaxSlippage-bound call removes liquidity from, by removalKey. */
  readonly removals: ReadonlyMap<string, RemovalPool>
}

/** What the edge must read for these calls on these delegations. */
export type ObservationNeeds = {
  golems: Address[]
  selectors: Hex[]
  feeds: Address[]
  spendHashes: Hex[]
  /** Positions whose pool MaxSlippage prices before a removal. */
  removals: { positionManager: Address; tokenId: bigint }[]
}

export function observationNeeds(items: readonly { call: ActionCall; delegation: GrantedAction }[]): ObservationNeeds {
  const golems = new Set<string>()
  const selectors = new Set<string>()
  const feeds = new Set<string>()
  const spendHashes = new Set<string>()
  const removals = new Map<string, { positionManager: Address; tokenId: bigint }>()
  for (const { call, delegation } of items) {
    const selector = selectorOf(call.callData)
    selectors.add(selector)
    for (const c of delegation.caveats) {
      if (c.type === 'golemPhase' || c.type === 'dreamMode') golems.add(getAddress(c.golem))
      if (c.type === 'maxSlippage' || c.type === 'dailySpendLimit') for (const f of c.feeds) feeds.add(getAddress(f.feed))
      if (c.type === 'dailySpendLimit') spendHashes.add(delegation.hash.toLowerCase())
      if (c.type === 'maxSlippage' && selector === DECREASE_LIQUIDITY && size(call.callData) >= REMOVAL_BYTES) {
        const removal = { positionManager: getAddress(call.target), tokenId: wordAt(call.callData, 4) }
        removals.set(removalKey(removal.positionManager, removal.tokenId), removal)
      }
    }
  }
  return {
    golems: [...golems] as Address[],
    selectors: [...selectors] as Hex[],
    feeds: [...feeds] as Address[],
    spendHashes: [...spendHashes] as Hex[],
    removals: [...removals.values()],
  }
}

/** Checks each call on its delegation in order; the first refusal, or undefined when the chain should accept them all. */
export function precheckActions(
  items: readonly { call: ActionCall; delegation: GrantedAction }[],
  observation: ActionObservation,
): ActionRefusal | undefined {
  const spent = new Map(observation.spentTodayUsd)
  for (const [i, item] of items.entries()) {
    const refusal = precheckCall(item.call, item.delegation, observation, spent, i)
    if (refusal) return refusal
  }
  return undefined
}

function precheckCall(
  call: ActionCall,
  g: GrantedAction,
  o: ActionObservation,
  spent: Map<string, bigint>,
  index: number,
): ActionRefusal | undefined {
  const selector = selectorOf(call.callData)
  const delegator = g.chain[0]!.delegator
  const priced = g.caveats.find((c) => c.type === 'maxSlippage' || c.type === 'dailySpendLimit')?.type
  const refuse = (name: string, args: unknown[], detail?: string) =>
    refusalOf({ name, args }, { call: index, ...(priced ? { pricedBy: priced } : {}), ...(detail ? { detail } : {}) })
  for (const c of g.caveats) {
    const failed = checkCaveat(c)
    if (failed) return refuse(failed.name, failed.args, failed.detail)
  }
  return undefined

  function checkCaveat(c: DecodedCaveat): { name: string; args: unknown[]; detail?: string } | undefined {
    switch (c.type) {
      case 'golemPhase': {
        if (c.startTime !== undefined && o.now < c.startTime) return { name: 'DelegationNotYetActive', args: [o.now, c.startTime] }
        if (c.endTime !== undefined && o.now > c.endTime) return { name: 'DelegationExpired', args: [o.now, c.endTime] }
        if (c.runway && size(call.callData) !== 0 && selector !== ERC20_TRANSFER)
          return { name: 'NotARunwayTransfer', args: [getAddress(call.target), selector] }
        const v = o.vitality.get(c.golem.toLowerCase())
        if (!v) throw new InvariantError('PRECHECK_READING_MISSING', `precheck: no VitalityOracle reading for ${c.golem}`)
        if (!v.registered) return { name: 'GolemNotRegistered', args: [getAddress(c.golem)] }
        if (call.target.toLowerCase() === delegator.toLowerCase() || call.target.toLowerCase() === o.delegationManager.toLowerCase())
          return {
            name: 'ProtectedTarget',
            args: [getAddress(call.target), selector, getAddress(delegator), getAddress(o.delegationManager)],
          }
        // Runway terms class every call they let through as TRANSFER, without the selector table.
        const cls = c.runway ? ACTION_CLASS.TRANSFER : o.actionClasses.get(selector.toLowerCase())
        if (cls === undefined) throw new InvariantError('PRECHECK_READING_MISSING', `precheck: no action class reading for ${selector}`)
        if (cls === 0 || (size(call.callData) !== 0 && selector === '0x00000000'))
          return { name: 'UnclassifiedAction', args: [getAddress(call.target), selector] }
        const required = cls | (o.redeemer.toLowerCase() === c.golem.toLowerCase() ? 0 : SUBDELEGATION)
        const masks = c.phaseMasks ?? DEFAULT_PHASE_MASKS
        const mask = v.phase > 4 ? 0 : masks[v.phase]!
        if ((required & mask) !== required)
          return { name: 'ActionNotAllowedInPhase', args: [getAddress(c.golem), v.phase, selector, required] }
        return undefined
      }
      case 'mortalityTimeWindow':
        if (o.now < c.startTime) return { name: 'DelegationNotYetActive', args: [o.now, c.startTime] }
        if (o.now > c.endTime) return { name: 'DelegationExpired', args: [o.now, c.endTime] }
        return undefined
      case 'dreamMode': {
        const since = o.dreamingSince.get(c.golem.toLowerCase())
        if (since === undefined) throw new InvariantError('PRECHECK_READING_MISSING', `precheck: no DreamOracle reading for ${c.golem}`)
        return since !== 0n ? { name: 'GolemDreaming', args: [getAddress(c.golem), since] } : undefined
      }
      case 'maxSlippage': {
        if (selector === DECREASE_LIQUIDITY) return checkRemoval(c)
        const swap =
          selector === EXACT_INPUT_SINGLE
            ? decodeExactInputSingle(call.callData)
            : selector === EXACT_INPUT
              ? decodeExactInput(call.callData)
              : undefined
        if (swap === undefined) return undefined
        if (swap === 'malformed') return { name: 'MalformedSwap', args: [selector] }
        const side = (token: Address) => {
          const feed = c.feeds.find((f) => f.token.toLowerCase() === token.toLowerCase())
          return feed ? { feed, reading: reading(feed) } : undefined
        }
        const tokenIn = side(swap.tokenIn)
        if (!tokenIn) return { name: 'UnpricedAsset', args: [swap.tokenIn] }
        const tokenOut = side(swap.tokenOut)
        if (!tokenOut) return { name: 'UnpricedAsset', args: [swap.tokenOut] }
        const stale =
          priceError(tokenIn.feed.feed, tokenIn.reading, c.maxPriceAge, o.now) ??
          priceError(tokenOut.feed.feed, tokenOut.reading, c.maxPriceAge, o.now)
        if (stale) return stale
        const { expectedOut, bps } = slippageOf({ amountIn: swap.amountIn, minOut: swap.minOut }, tokenIn, tokenOut)
        if (bps > BigInt(c.maxSlippageBps))
          return { name: 'SlippageExceeded', args: [expectedOut, swap.minOut, bps, BigInt(c.maxSlippageBps)] }
        return undefined
      }
      case 'dailySpendLimit': {
        if (call.value !== 0n) {
          const native = c.feeds.find((f) => f.token.toLowerCase() === '0x0000000000000000000000000000000000000000')
          if (!native) return { name: 'UnpricedAsset', args: ['0x0000000000000000000000000000000000000000'] }
        }
        const amount = tokenAmountOf(call.callData)
        const feed = c.feeds.find((f) => f.token.toLowerCase() === call.target.toLowerCase())
        let usd = 0n
        if (amount !== undefined && amount !== 0n && feed) {
          const r = reading(feed)
          const bad = priceError(feed.feed, r, c.maxPriceAge, o.now)
          if (bad) return bad
          usd = toUsd(amount, r.answer, feed.decimals, r.decimals)
        }
        if (call.value !== 0n) {
          const native = c.feeds.find((f) => f.token.toLowerCase() === '0x0000000000000000000000000000000000000000')!
          const r = reading(native)
          const bad = priceError(native.feed, r, c.maxPriceAge, o.now)
          if (bad) return bad
          usd += toUsd(call.value, r.answer, 18, r.decimals)
        }
        if (usd === 0n) return undefined
        const key = g.hash.toLowerCase()
        const already = spent.get(key) ?? 0n
        const cap = c.dailyLimitUsd > 2n ** 192n - 1n ? 2n ** 192n - 1n : c.dailyLimitUsd
        if (already > cap || usd > cap - already)
          return { name: 'DailySpendLimitExceeded', args: [o.now / DAY, already, usd, c.dailyLimitUsd] }
        spent.set(key, already + usd)
        return undefined
      }
      default:
        return undefined
    }
  }

  /** MaxSlippage's bound on a decreaseLiquidity, in the enforcer's order: the call, the pool, the feeds, the price. */
  function checkRemoval(c: MaxSlippageCaveat): { name: string; args: unknown[] } | undefined {
    if (size(call.callData) < REMOVAL_BYTES) return { name: 'MalformedLiquidityRemoval', args: [DECREASE_LIQUIDITY] }
    const read = o.removals.get(removalKey(call.target, wordAt(call.callData, 4)))
    if (read === undefined)
      throw new InvariantError('PRECHECK_READING_MISSING', `precheck: no pool reading for the removal on ${call.target}`)
    if (read === 'unreadable') return undefined
    if (read.sqrtPriceX96 === undefined) return { name: 'NoPool', args: [read.token0, read.token1, read.fee] }
    const feed0 = c.feeds.find((f) => f.token.toLowerCase() === read.token0.toLowerCase())
    if (!feed0) return { name: 'UnpricedAsset', args: [read.token0] }
    const feed1 = c.feeds.find((f) => f.token.toLowerCase() === read.token1.toLowerCase())
    if (!feed1) return { name: 'UnpricedAsset', args: [read.token1] }
    const [r0, r1] = [reading(feed0), reading(feed1)]
    const stale = priceError(feed0.feed, r0, c.maxPriceAge, o.now) ?? priceError(feed1.feed, r1, c.maxPriceAge, o.now)
    if (stale) return stale
    const price = removalPrice(
      read.sqrtPriceX96,
      { decimals: feed0.decimals, price: r0.answer, feedDecimals: r0.decimals },
      { decimals: feed1.decimals, price: r1.answer, feedDecimals: r1.decimals },
    )
    if (price === 'overflow' || !poolPriceOffFeeds(price, c.maxSlippageBps)) return undefined
    return {
      name: 'PoolPriceOffFeeds',
      args: [read.pool, price.poolPriceX96, price.feedPriceX96, price.deviationBps, BigInt(c.maxSlippageBps)],
    }
  }

  function reading(feed: TokenFeed): FeedReading {
    const r = o.feeds.get(feed.feed.toLowerCase())
    if (!r) throw new InvariantError('PRECHECK_READING_MISSING', `precheck: no reading for price feed ${feed.feed}`)
    return r
  }
}

/** decreaseLiquidity((tokenId, liquidity, amount0Min, amount1Min, deadline)): a selector and five static words. */
const REMOVAL_BYTES = 4 + 160

const selectorOf = (callData: Hex): Hex => (size(callData) >= 4 ? (slice(callData, 0, 4).toLowerCase() as Hex) : '0x00000000')

/** exactInput's path ends and amounts; 'malformed' where MaxSlippage reverts MalformedSwap (a path of no whole hop). */
function decodeExactInput(callData: Hex): { tokenIn: Address; tokenOut: Address; amountIn: bigint; minOut: bigint } | 'malformed' {
  const [{ path, amountIn, amountOutMinimum }] = decodeFunctionData({ abi: exactInputAbi, data: callData }).args
  const ends = swapPathEnds(path)
  return ends ? { ...ends, amountIn, minOut: amountOutMinimum } : 'malformed'
}

function decodeExactInputSingle(callData: Hex): { tokenIn: Address; tokenOut: Address; amountIn: bigint; minOut: bigint } {
  const [tokenIn, tokenOut, , , amountIn, minOut] = decodeAbiParameters(
    [
      { type: 'address' },
      { type: 'address' },
      { type: 'uint24' },
      { type: 'address' },
      { type: 'uint256' },
      { type: 'uint256' },
      { type: 'uint160' },
    ],
    slice(callData, 4),
  )
  return { tokenIn, tokenOut, amountIn, minOut }
}
