// How traders write the capabilities: the phrases beyond the capability words that grant one, and the
// capability words used as modifiers that grant nothing.
import type { Capability } from './capability.ts'

/**
 * Traders' phrases for each capability, by register. Each phrase grants exactly its capability and no
 * other: the grant is the capability's registry calls, never a protocol or venue the phrase may bring to
 * mind. Past tenses describe history, not intent, and are left out.
 */
export const TRADER_VOCABULARY: Record<Capability, readonly string[]> = {
  Swap: [
    // trading
    'buy',
    'buys',
    'buying',
    'sell',
    'sells',
    'selling',
    'convert',
    'converts',
    'converting',
    'rotate into',
    'rotates into',
    'rotating into',
    'rotate out of',
    'rotates out of',
    'rotating out of',
    'take profit',
    'take profits',
    'taking profit',
    'taking profits',
    'take-profit',
    'take-profits',
    'stop-loss',
    'stop-losses',
    'stop loss',
    'stop losses',
    'rebalance',
    'rebalances',
    'rebalancing',
    'arbitrage',
    'arbitraging',
    'multi-hop',
    'multihop',
  ],
  ProvideLiquidity: [
    // market-making
    'make markets',
    'makes markets',
    'making markets',
    'market-make',
    'market-makes',
    'market-making',
    'market make',
    'market making',
    'concentrated range',
    'concentrated ranges',
    'concentrated position',
    'concentrated positions',
    'range order',
    'range orders',
    'collect fees',
    'collecting fees',
    'earn fees',
    'earning fees',
    'earn trading fees',
    'earning trading fees',
    'earn swap fees',
    'earning swap fees',
  ],
  VaultManagement: [
    // yield
    'farm',
    'farms',
    'farming',
    'earn interest',
    'earns interest',
    'earning interest',
    'interest-bearing',
    'supply to',
    'supplies to',
    'supplying',
    'lend',
    'lends',
    'lending',
  ],
  Bridge: ['cctp'],
  SpawnReplicants: ['child agent', 'child agents', 'helper agent', 'helper agents', 'worker agent', 'worker agents', 'spawn agents'],
  LimitOrders: ['limit buy', 'limit buys', 'limit sell', 'limit sells', 'resting order', 'resting orders', 'dutch order', 'dutch orders'],
}

/** Hedging phrases: read as Swap, the one hedge a delegation can carry, with a note saying so. */
export const HEDGING_VOCABULARY: readonly string[] = [
  'hedge',
  'hedges',
  'hedging',
  'de-risk',
  'de-risks',
  'de-risking',
  'derisk',
  'derisks',
  'derisking',
  'reduce exposure',
  'reduces exposure',
  'reducing exposure',
  'cut exposure',
  'cutting exposure',
  'trim exposure',
  'trimming exposure',
  'risk-off',
  'risk off',
]

export const HEDGE_RULE =
  'a hedge is granted only as a spot swap on the chain (selling into USDC, say); perpetuals, shorts and options are not granted'

/**
 * Capability words used as modifiers: they name a fee, a price or a route, not something to do, and grant
 * nothing ("low trading fees", "the pool price", "route through the pool").
 */
export const NEUTRAL_PHRASES: readonly string[] = [
  'trading fee',
  'trading fees',
  'swap fee',
  'swap fees',
  'trading volume',
  'pool price',
  'pool prices',
  "pool's price",
  'through the pool',
  'through pools',
  'via the pool',
  'via pools',
]
