// What a strategy may ask for that no delegation of this compiler can carry. A phrase here grants nothing
// (not even a capability word inside it: "margin trading" is not a Swap) and is named in a warning.

/**
 * Why no liquidity removal is ever granted. A removal's minimum amounts are free calldata words and no
 * caveat checks them against a price feed, so a leaked key could move the pool's price and remove
 * liquidity at it in one transaction (a sandwich); and it acts on any position the owner's account
 * controls, including ones minted outside Bardo. The owner removes liquidity from their own account.
 */
export const LIQUIDITY_REMOVAL_RULE =
  "liquidity removal is never granted: its minimum amounts are free, so a leaked key could move the pool's price and remove liquidity at it, from any position the owner's account controls; the owner removes liquidity from their own account"

export type Ungrantable = {
  /** What the phrases ask for, as the warning names it. */
  readonly what: string
  /** Why it is not granted. */
  readonly rule: string
  /**
   * An instrument rather than an action: a trading word directly before it ("trade perps", "sell covered
   * calls") is read as part of it, so it grants no Swap.
   */
  readonly instrument: boolean
  readonly forms: readonly string[]
}

const DERIVATIVES_RULE = 'no registry serves a derivatives venue, and a derivative position can lose more than the daily USDC cap bounds'
const OTHER_CHAIN_RULE =
  'the grant acts only on the chain it is compiled for; another chain is reached only by Bridge, to the EVM destination the owner configures'

export const UNGRANTABLE: readonly Ungrantable[] = [
  {
    what: 'leverage or borrowing',
    instrument: true,
    rule: 'no registry serves a lending market or margin account, and a debt is not bounded by the daily USDC cap',
    forms: [
      'leverage',
      'leveraged',
      'levered',
      'leveraging',
      'margin trading',
      'on margin',
      'margin account',
      'margin position',
      'margin positions',
      'leveraged trading',
      'leverage trading',
      'borrow',
      'borrows',
      'borrowing',
      'loan',
      'loans',
      'looping',
    ],
  },
  {
    what: 'perpetuals or futures',
    instrument: true,
    rule: DERIVATIVES_RULE,
    forms: ['perp', 'perps', 'perpetual', 'perpetuals', 'perpetual futures', 'futures', 'perp trading', 'perps trading', 'futures trading'],
  },
  {
    what: 'short selling',
    instrument: true,
    rule: 'a short needs borrowing or a derivative, and neither is granted; selling into USDC is granted as Swap',
    forms: [
      'shorting',
      'short sell',
      'short sells',
      'short-sell',
      'short-sells',
      'short selling',
      'short-selling',
      'sell short',
      'selling short',
      'go short',
      'goes short',
      'going short',
      'short position',
      'short positions',
    ],
  },
  {
    what: 'options',
    instrument: true,
    rule: DERIVATIVES_RULE,
    forms: [
      'options trading',
      'options contracts',
      'options positions',
      'options strategies',
      'buy options',
      'buying options',
      'sell options',
      'selling options',
      'trade options',
      'trading options',
      'buy calls',
      'buying calls',
      'buy puts',
      'buying puts',
      'sell calls',
      'selling calls',
      'sell puts',
      'selling puts',
      'puts and calls',
      'calls and puts',
      'call option',
      'call options',
      'put option',
      'put options',
      'covered call',
      'covered calls',
      'covered-call',
      'covered-calls',
      'options vault',
      'options vaults',
    ],
  },
  {
    what: 'liquidity removal',
    instrument: false,
    rule: LIQUIDITY_REMOVAL_RULE,
    forms: [
      'remove liquidity',
      'removes liquidity',
      'removing liquidity',
      'pull liquidity',
      'pulls liquidity',
      'pulling liquidity',
      'withdraw liquidity',
      'withdraws liquidity',
      'withdrawing liquidity',
      'exit the pool',
      'exits the pool',
      'exiting the pool',
    ],
  },
  {
    what: 'staking',
    instrument: false,
    rule: "no registry serves a staking contract; a deposit into the owner's ERC-4626 vaults is granted as VaultManagement",
    forms: ['staking', 'restake', 'restakes', 'restaking', 'liquid staking'],
  },
  {
    what: 'a protocol the compiler has no contracts for',
    instrument: false,
    rule: "only the chain registry's contracts are granted (Uniswap V3, Circle CCTP and the ERC-4626 vaults the owner lists)",
    forms: [
      'aave',
      'morpho',
      'curve finance',
      'curve pool',
      'curve pools',
      'balancer',
      'gmx',
      'dydx',
      'hyperliquid',
      'synthetix',
      'lido',
      'pendle',
      'aerodrome',
      'velodrome',
      'sushiswap',
      'pancakeswap',
      '1inch',
      'stargate',
      'layerzero',
      'wormhole',
      'eigenlayer',
      'ethena',
      'yearn',
      'convex finance',
      'compound finance',
    ],
  },
  {
    what: 'a chain outside the EVM',
    instrument: false,
    rule: "the grant acts only on the chain it is compiled for, and Bridge reaches only an EVM destination where the owner's account has the same address",
    forms: ['solana', 'bitcoin', 'cosmos', 'tron', 'aptos'],
  },
  {
    what: 'another chain',
    instrument: false,
    rule: OTHER_CHAIN_RULE,
    forms: [
      'arbitrum',
      'op mainnet',
      'on optimism',
      'to optimism',
      'from optimism',
      'polygon',
      'avalanche',
      'linea',
      'unichain',
      'zksync',
      'ethereum mainnet',
      'bnb chain',
      'bsc',
    ],
  },
]
