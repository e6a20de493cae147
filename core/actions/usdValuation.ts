// The enforcers' own arithmetic in bigint, so the pre-check reaches the same numbers the chain will
// (DailySpendLimit's USD value of an approval, MaxSlippage's expected output), rounding as they round.
import { hexToBigInt, size, slice, type Address, type Hex } from 'viem'
import type { TokenFeed } from '../caveats/types.ts'

const MAX = 2n ** 256n - 1n
const APPROVE = '0x095ea7b3'
const TRANSFER = '0xa9059cbb'
const TRANSFER_FROM = '0x23b872dd'

/** A feed's latest answer as the enforcers read it (latestRoundData and decimals). */
export type FeedReading = { answer: bigint; updatedAt: bigint; decimals: number }

/** The failure the enforcers would raise on this feed reading, or undefined when it is usable. */
export function priceError(feed: Address, r: FeedReading, maxAge: number, now: bigint): { name: string; args: unknown[] } | undefined {
  if (now > r.updatedAt && now - r.updatedAt > BigInt(maxAge)) return { name: 'StalePrice', args: [feed, r.updatedAt, BigInt(maxAge)] }
  if (r.answer <= 0n) return { name: 'InvalidPrice', args: [feed, r.answer] }
  return undefined
}

/** ceil(amount * price * 1e6 / 10^(tokenDecimals + feedDecimals)), UsdValuation.toUsd's rule; MAX stays MAX. */
export function toUsd(amount: bigint, price: bigint, tokenDecimals: number, feedDecimals: number): bigint {
  if (amount === 0n) return 0n
  if (amount === MAX) return MAX
  const e = tokenDecimals + feedDecimals
  const num = amount * price * (e <= 6 ? 10n ** BigInt(6 - e) : 1n)
  const den = e <= 6 ? 1n : 10n ** BigInt(e - 6)
  const v = (num + den - 1n) / den
  return v > MAX ? MAX : v
}

/** The ERC-20 amount a call can take out of the account (transfer, transferFrom, approve), as DailySpendLimit counts it. */
export function tokenAmountOf(callData: Hex): bigint | undefined {
  if (size(callData) < 4) return undefined
  const selector = slice(callData, 0, 4)
  if (selector === APPROVE || selector === TRANSFER) return wordAt(callData, 36)
  if (selector === TRANSFER_FROM) return wordAt(callData, 68)
  return undefined
}

/** MaxSlippage's expected output at feed prices (floored) and the implied slippage in bps (floored, 0 when at or above). */
export function slippageOf(
  swap: { amountIn: bigint; minOut: bigint },
  tokenIn: { feed: TokenFeed; reading: FeedReading },
  tokenOut: { feed: TokenFeed; reading: FeedReading },
): { expectedOut: bigint; bps: bigint } {
  const eOut = tokenOut.feed.decimals + tokenOut.reading.decimals
  const eIn = tokenIn.feed.decimals + tokenIn.reading.decimals
  const num = eOut >= eIn ? tokenIn.reading.answer * 10n ** BigInt(eOut - eIn) : tokenIn.reading.answer
  const den = eOut >= eIn ? tokenOut.reading.answer : tokenOut.reading.answer * 10n ** BigInt(eIn - eOut)
  const expectedOut = (swap.amountIn * num) / den
  const bps = swap.minOut < expectedOut ? ((expectedOut - swap.minOut) * 10_000n) / expectedOut : 0n
  return { expectedOut, bps }
}

/** The 32-byte word at `offset`, zero-padded past the end (what CALLDATALOAD sees). */
export function wordAt(data: Hex, offset: number): bigint {
  const bytes = size(data)
  if (offset >= bytes) return 0n
  const end = Math.min(offset + 32, bytes)
  const word = hexToBigInt(slice(data, offset, end))
  return word << BigInt((32 - (end - offset)) * 8)
}
