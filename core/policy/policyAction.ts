// What a requested action does to the portfolio, in the constitution's terms: the assets it touches,
// the position it opens or adds to, and the USD it puts at risk. Value moved into the base asset (a
// close, a withdrawal to cash) is not risk; value moved into any other asset, or off this chain, is.
import type { Address } from 'viem'
import type { ActionRequest } from '../actions/actionCall.ts'

/** An asset's price as the edge read it: USD (6 decimals) per whole token, and a vault's underlying asset. */
export type AssetPrice = { readonly decimals: number; readonly usdPerToken: bigint; readonly underlying?: Address }
/** Prices per asset (lowercase address keys); vault shares are priced through their underlying asset. */
export type AssetPrices = ReadonlyMap<string, AssetPrice>

/** USD (6 decimals) of `amount` base units, rounded up; 0 for an asset without a price. */
export function usdOf(prices: AssetPrices, asset: Address, amount: bigint): bigint {
  const p = prices.get(asset.toLowerCase())
  if (!p || amount === 0n) return 0n
  const unit = 10n ** BigInt(p.decimals)
  return (amount * p.usdPerToken + unit - 1n) / unit
}

/** The PolicyAction of a request; `baseAsset` is the constitution's. */
export function policyActionOf(request: ActionRequest, prices: AssetPrices, baseAsset: Address) {
  const into = (asset: Address, usd: bigint) => ({
    acquires: { asset, usd },
    spendUsd: asset.toLowerCase() === baseAsset.toLowerCase() ? 0n : usd,
  })
  const underlying = (vault: Address) => prices.get(vault.toLowerCase())?.underlying
  switch (request.kind) {
    case 'swap':
      return { assets: [request.tokenIn, request.tokenOut], ...into(request.tokenOut, usdOf(prices, request.tokenIn, request.amountIn)) }
    case 'deposit': {
      const asset = underlying(request.vault)
      return {
        assets: asset ? [asset, request.vault] : [request.vault],
        ...into(request.vault, asset ? usdOf(prices, asset, request.assets) : 0n),
      }
    }
    case 'withdraw': {
      const asset = underlying(request.vault)
      if (!asset) return { assets: [request.vault], spendUsd: 0n }
      return { assets: [request.vault, asset], ...into(asset, usdOf(prices, asset, request.assets)) }
    }
    case 'redeem': {
      const asset = underlying(request.vault)
      if (!asset) return { assets: [request.vault], spendUsd: 0n }
      return { assets: [request.vault, asset], ...into(asset, usdOf(prices, request.vault, request.shares)) }
    }
    case 'approve':
      return { assets: [request.token], spendUsd: 0n }
    // The owner's USDC leaves the chain this constitution watches (to the owner's account elsewhere):
    // all of it is at risk against the per-transaction, session and day limits; nothing is acquired here.
    case 'bridge':
      return { assets: [request.token], spendUsd: usdOf(prices, request.token, request.amount) }
    // A liquidity position is an asset of its own, the position manager's: the constitution must approve
    // it, and what goes into the position is the value put at risk.
    case 'provideLiquidity':
      return {
        assets: [request.token0, request.token1, request.positionManager],
        ...into(
          request.positionManager,
          usdOf(prices, request.token0, request.amount0Desired) + usdOf(prices, request.token1, request.amount1Desired),
        ),
      }
    case 'collect':
      return { assets: [request.positionManager], spendUsd: 0n }
    // Closing adds no risk: the position's tokens stay owed to it until collect pays them to the owner.
    case 'removeLiquidity':
      return { assets: [request.positionManager], spendUsd: 0n }
  }
}
