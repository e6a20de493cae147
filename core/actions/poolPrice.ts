// MaxSlippage's bound on a liquidity removal, in bigint: the position's pool must be priced within the
// cap of the price feeds, because the manager pays the position out at the pool's price in the same
// call. The arithmetic and its rounding are the enforcer's, so custody refuses exactly what the chain
// would refuse, with the same numbers.

const MAX = 2n ** 256n - 1n
const Q96 = 2n ** 96n

/** One token of the pool as MaxSlippage prices it: the decimals its terms give it and its feed's answer. */
export type PricedToken = {
  /** The token's decimals, as the caveat's feed entry lists them. */
  readonly decimals: number
  /** The feed's answer (USD per whole token), positive. */
  readonly price: bigint
  /** The feed's own decimals. */
  readonly feedDecimals: number
}

/** The two prices of a pool, token1 base units per token0 base unit in Q96, and how far apart they are. */
export type RemovalPrice = {
  /** sqrtPriceX96² / 2⁹⁶, floored. */
  readonly poolPriceX96: bigint
  /** p0 · 10^(dec1 + feedDec1) · 2⁹⁶ / (p1 · 10^(dec0 + feedDec0)), floored. */
  readonly feedPriceX96: bigint
  /** |pool − feed| · 10000 / feed, floored; with no feed price, 0 if the pool has none either, else the maximum. */
  readonly deviationBps: bigint
}

/**
 * The pool's price against the feeds', as MaxSlippage's removalPrice computes it; 'overflow' where the
 * enforcer's checked arithmetic panics (a power of ten or a scaled price past 2²⁵⁶), so the chain, not
 * custody, has the last word.
 */
export function removalPrice(sqrtPriceX96: bigint, token0: PricedToken, token1: PricedToken): RemovalPrice | 'overflow' {
  const poolPriceX96 = mulDiv(sqrtPriceX96, sqrtPriceX96, Q96)
  const e1 = token1.decimals + token1.feedDecimals
  const e0 = token0.decimals + token0.feedDecimals
  // Only one side carries a power of ten, as in the enforcer.
  const scale = 10n ** BigInt(Math.abs(e1 - e0))
  if (scale > MAX) return 'overflow'
  const num = e1 >= e0 ? token0.price * scale : token0.price
  const den = e1 >= e0 ? token1.price : token1.price * scale
  if (num > MAX || den > MAX) return 'overflow'
  const feedPriceX96 = mulDiv(num, Q96, den)
  let deviationBps: bigint
  if (feedPriceX96 === 0n) deviationBps = poolPriceX96 === 0n ? 0n : MAX
  else {
    const gap = poolPriceX96 > feedPriceX96 ? poolPriceX96 - feedPriceX96 : feedPriceX96 - poolPriceX96
    deviationBps = mulDiv(gap, 10_000n, feedPriceX96)
  }
  return { poolPriceX96, feedPriceX96, deviationBps }
}

/** Whether the pool is priced off the feeds by more than the cap: the enforcer refuses when deviationBps > maxSlippageBps. */
export const poolPriceOffFeeds = (price: RemovalPrice, maxSlippageBps: number): boolean => price.deviationBps > BigInt(maxSlippageBps)

/** UsdValuation.mulDiv rounded down: x · y / d, saturating at 2²⁵⁶ − 1. */
function mulDiv(x: bigint, y: bigint, d: bigint): bigint {
  const v = (x * y) / d
  return v > MAX ? MAX : v
}
