// USD values of token amounts, in USD6 (USD with 6 decimals, like USDC): the unit the Bardo USD
// enforcers count in, so a runway redemption and a DailySpendLimit spend read the same on a dashboard.

export const USD6_DECIMALS = 6

/** How the indexer prices a token: a Chainlink-style feed, or at par ($1 per whole token) when none is named. */
export type TokenPrice = { decimals: number; feed?: `0x${string}` }

const pow10 = (n: number) => 10n ** BigInt(n)

/**
 * `amount` base units at `answer` (the feed's price with `feedDecimals` decimals) in USD6, rounded up
 * as the on-chain valuation rounds, so the indexer never shows less than an enforcer counted.
 * Null when the price is not positive (a feed that has no data yet).
 */
export function usdValue(amount: bigint, tokenDecimals: number, answer: bigint, feedDecimals: number): bigint | null {
  if (answer <= 0n || amount < 0n) return null
  const numerator = amount * answer * pow10(USD6_DECIMALS)
  const denominator = pow10(tokenDecimals) * pow10(feedDecimals)
  return numerator === 0n ? 0n : (numerator - 1n) / denominator + 1n
}

/** A USD-pegged token without a feed: one whole token is one dollar. */
export function usdAtPar(amount: bigint, tokenDecimals: number): bigint | null {
  return usdValue(amount, tokenDecimals, 1n, 0)
}
