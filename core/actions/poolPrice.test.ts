// MaxSlippage's bound on a liquidity removal off-chain: the pool's price against the feeds', rounded as
// the enforcer rounds (checked against a plain bigint reference over random prices), and the pre-check
// that refuses a removal from a moved pool with the enforcer's error, arguments and words.
import fc from 'fast-check'
import { getAddress, type Address } from 'viem'
import { describe, expect, it } from 'vitest'
import { DEC_21_2026, DEPLOYMENT, ENV, FEED_ETH, FEED_USDC, GOLEM, NOW, OWNER, USDC, WETH } from '../../test/support/caveats/fixtures.ts'
import { buildGolemDelegation } from '../delegations/buildGolemDelegation.ts'
import { DelegationTree } from '../delegations/tree.ts'
import { SELECTORS } from '../permissions/selectors.ts'
import { encodeActionCall } from './actionCall.ts'
import type { GrantedAction } from './chooseDelegation.ts'
import { poolPriceOffFeeds, removalPrice, type PricedToken } from './poolPrice.ts'
import { observationNeeds, precheckActions, removalKey, type ActionObservation, type RemovalPool } from './precheckAction.ts'

const MAX = 2n ** 256n - 1n
const Q96 = 2n ** 96n
const MANAGER: Address = getAddress('0x0000000000000000000000000000000000000b0b')
const POOL: Address = getAddress('0x000000000000000000000000000000000000b001')
const usdc: PricedToken = { decimals: 6, price: 10n ** 8n, feedDecimals: 8 }
const weth: PricedToken = { decimals: 18, price: 3_000n * 10n ** 8n, feedDecimals: 8 }
/** WETH base units per USDC base unit at $3,000 per WETH, in Q96: 10^12 / 3000. */
const FAIR_X96 = (10n ** 12n * Q96) / 3_000n

/** The rule written out once, with no shared factor taken out and no saturation. */
function reference(sqrtPriceX96: bigint, t0: PricedToken, t1: PricedToken) {
  const pool = (sqrtPriceX96 * sqrtPriceX96) / Q96
  const exact = (t0.price * 10n ** BigInt(t1.decimals + t1.feedDecimals) * Q96) / (t1.price * 10n ** BigInt(t0.decimals + t0.feedDecimals))
  const feed = exact > MAX ? MAX : exact
  const gap = pool > feed ? pool - feed : feed - pool
  const bps = feed === 0n ? (pool === 0n ? 0n : MAX) : (gap * 10_000n) / feed
  return { poolPriceX96: pool, feedPriceX96: feed, deviationBps: bps > MAX ? MAX : bps }
}

/** The integer square root, so a test can put the pool at a chosen Q96 price. */
function sqrt(v: bigint): bigint {
  if (v < 2n) return v
  let x = v
  let y = (x + 1n) / 2n
  while (y < x) [x, y] = [y, (y + v / y) / 2n]
  return x
}
const sqrtAt = (priceX96: bigint) => sqrt(priceX96 * Q96)

describe('removalPrice: the enforcer’s arithmetic', () => {
  it('prices a pool at the feeds’ price with no deviation, and a pool at four times it 30000 bps off', () => {
    const fair = removalPrice(sqrtAt(FAIR_X96), usdc, weth)
    expect(fair).not.toBe('overflow')
    if (fair === 'overflow') return
    expect(fair.feedPriceX96).toBe(FAIR_X96)
    expect(fair.deviationBps).toBe(0n)
    // The floored square root puts the pool a hair under four times the feeds.
    const moved = removalPrice(sqrtAt(FAIR_X96) * 2n, usdc, weth)
    if (moved === 'overflow') throw new Error('overflow')
    expect([29_999n, 30_000n]).toContain(moved.deviationBps)
  })

  // A feed price of exactly 10000 (Q96): token0 at 10000 USD, token1 at 1 USD, no decimals anywhere.
  const t0: PricedToken = { decimals: 0, price: 10_000n, feedDecimals: 0 }
  const t1: PricedToken = { decimals: 0, price: 1n, feedDecimals: 0 }
  const priced = (sqrtPriceX96: bigint) => {
    const p = removalPrice(sqrtPriceX96, t0, t1)
    if (p === 'overflow') throw new Error('overflow')
    return p
  }

  it('floors the deviation: a pool 100.25 bps off is 100 bps off, within a 100 bps cap and past a 99 bps one', () => {
    // sqrt 100.5 gives a pool price of 10100.25.
    const p = priced((Q96 * 201n) / 2n)
    expect(p).toEqual({ poolPriceX96: (Q96 * 40_401n) / 4n, feedPriceX96: 10_000n * Q96, deviationBps: 100n })
    expect(poolPriceOffFeeds(p, 100)).toBe(false)
    expect(poolPriceOffFeeds(p, 99)).toBe(true)
  })

  it('compares both sides against the feeds’ price: 1% of sqrt up is 201 bps off, 1% down 199 bps', () => {
    const above = priced(101n * Q96)
    const below = priced(99n * Q96)
    expect(above.deviationBps).toBe(201n)
    expect(below.deviationBps).toBe(199n)
    expect([poolPriceOffFeeds(above, 200), poolPriceOffFeeds(below, 200)]).toEqual([true, false])
    expect([poolPriceOffFeeds(above, 201), poolPriceOffFeeds(below, 198)]).toEqual([false, true])
  })

  it('with no feed price (it floors to 0): no deviation for an unpriced pool, the maximum for a priced one', () => {
    const dust: PricedToken = { decimals: 30, price: 1n, feedDecimals: 18 }
    const dear: PricedToken = { decimals: 0, price: 10n ** 20n, feedDecimals: 0 }
    expect(removalPrice(0n, dust, dear)).toMatchObject({ feedPriceX96: 0n, deviationBps: 0n })
    expect(removalPrice(Q96, dust, dear)).toMatchObject({ feedPriceX96: 0n, deviationBps: MAX })
  })

  it('gives the chain the last word where the enforcer’s checked arithmetic panics', () => {
    const huge: PricedToken = { decimals: 255, price: 1n, feedDecimals: 255 }
    expect(removalPrice(Q96, usdc, huge)).toBe('overflow')
    const wide: PricedToken = { decimals: 60, price: 1n, feedDecimals: 0 }
    expect(removalPrice(Q96, { ...usdc, price: 2n ** 200n }, wide)).toBe('overflow')
  })

  it('agrees with the plain reference over random pools, prices and decimals', () => {
    const token = fc.record({
      decimals: fc.integer({ min: 0, max: 24 }),
      price: fc.bigInt({ min: 1n, max: 2n ** 96n }),
      feedDecimals: fc.integer({ min: 0, max: 18 }),
    })
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 160n - 1n }), token, token, (s, t0, t1) => {
        expect(removalPrice(s, t0, t1)).toEqual(reference(s, t0, t1))
      }),
      { numRuns: 2_000 },
    )
  })

  it('refuses exactly when the pool lies outside feed · (1 ± (cap + 1) / 10000), over random pools near the feeds', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -2_000, max: 2_000 }),
        fc.bigInt({ min: 0n, max: 10n ** 9n }),
        fc.integer({ min: 0, max: 1_000 }),
        (step, jitter, cap) => {
          const target = (FAIR_X96 * BigInt(10_000 + step)) / 10_000n + jitter
          const price = removalPrice(sqrtAt(target), usdc, weth)
          if (price === 'overflow') throw new Error('overflow')
          const gap =
            price.poolPriceX96 > price.feedPriceX96 ? price.poolPriceX96 - price.feedPriceX96 : price.feedPriceX96 - price.poolPriceX96
          expect(poolPriceOffFeeds(price, cap)).toBe(gap * 10_000n >= BigInt(cap + 1) * price.feedPriceX96)
        },
      ),
      { numRuns: 2_000 },
    )
  })
})

describe('the pre-check of a removal', () => {
  const FEEDS = [
    { token: USDC, decimals: 6, feed: FEED_USDC },
    { token: WETH, decimals: 18, feed: FEED_ETH },
  ]
  const [token0, token1] = BigInt(USDC) < BigInt(WETH) ? [USDC, WETH] : [WETH, USDC]
  const t0 = token0 === USDC ? usdc : weth
  const t1 = token0 === USDC ? weth : usdc
  const fair = removalPrice(sqrtAt(FAIR_X96), usdc, weth)
  const fairX96 = token0 === USDC ? FAIR_X96 : (Q96 * Q96) / FAIR_X96

  function grant(): GrantedAction[] {
    const tree = new DelegationTree({ environment: ENV, deployment: DEPLOYMENT, now: () => NOW })
    const g = buildGolemDelegation({
      tree,
      owner: OWNER,
      golem: GOLEM,
      bardo: [
        { type: 'golemPhase', golem: GOLEM, startTime: NOW, endTime: DEC_21_2026 },
        { type: 'dreamMode', golem: GOLEM },
      ],
      actions: [
        {
          name: 'ProvideLiquidity: decreaseLiquidity',
          targets: [MANAGER],
          selectors: [SELECTORS.decreaseLiquidity],
          receivers: [],
          bardo: [{ type: 'maxSlippage', maxSlippageBps: 100, maxPriceAge: 3_600, feeds: FEEDS }],
        },
      ],
    })
    return g.actions!.map((a) => ({ hash: a.hash, label: a.name, chain: tree.chain(a.hash), caveats: tree.get(a.hash)!.caveats }))
  }

  const removal = (tokenId = 7n) =>
    encodeActionCall({ kind: 'removeLiquidity', positionManager: MANAGER, tokenId, liquidity: 1_000n }, OWNER)
  const pool = (sqrtPriceX96: bigint | undefined): RemovalPool => ({ token0, token1, fee: 500, pool: POOL, sqrtPriceX96 })

  function observation(read: RemovalPool, p: { ethUpdatedAt?: bigint } = {}): ActionObservation {
    const now = NOW + 100n
    return {
      now,
      delegationManager: ENV.DelegationManager,
      redeemer: GOLEM,
      vitality: new Map([[GOLEM.toLowerCase(), { registered: true, phase: 0 }]]),
      dreamingSince: new Map([[GOLEM.toLowerCase(), 0n]]),
      actionClasses: new Map([[SELECTORS.decreaseLiquidity, 0x02]]),
      feeds: new Map([
        [FEED_USDC.toLowerCase(), { answer: 10n ** 8n, updatedAt: now, decimals: 8 }],
        [FEED_ETH.toLowerCase(), { answer: 3_000n * 10n ** 8n, updatedAt: p.ethUpdatedAt ?? now, decimals: 8 }],
      ]),
      spentTodayUsd: new Map(),
      removals: new Map([[removalKey(MANAGER, 7n), read]]),
    }
  }
  const check = (read: RemovalPool, p: { ethUpdatedAt?: bigint } = {}) =>
    precheckActions([{ call: removal(), delegation: grant()[0]! }], observation(read, p))

  it('asks the edge for the position’s pool', () => {
    expect(observationNeeds([{ call: removal(), delegation: grant()[0]! }]).removals).toEqual([{ positionManager: MANAGER, tokenId: 7n }])
  })

  it('lets a removal from a pool at the feeds’ price through', () => {
    expect(fair).not.toBe('overflow')
    expect(check(pool(sqrtAt(fairX96)))).toBeUndefined()
  })

  it('refuses a removal from a pool moved off the feeds: maxSlippage, PoolPriceOffFeeds with the enforcer’s numbers', () => {
    const moved = sqrtAt(fairX96) * 2n
    const expected = removalPrice(moved, t0, t1)
    if (expected === 'overflow') throw new Error('overflow')
    const refusal = check(pool(moved))
    expect(refusal).toMatchObject({
      caveat: 'maxSlippage',
      error: 'PoolPriceOffFeeds',
      args: [POOL, expected.poolPriceX96, expected.feedPriceX96, expected.deviationBps, 100n],
      call: 0,
    })
    expect(expected.deviationBps).toBeGreaterThan(100n)
    expect(refusal!.reason).toMatch(
      /^maxSlippage: the position's pool 0x0{36}B001 is priced [\d.]+% off the price feeds \(pool \d+, feeds \d+, token1 per token0 in Q96\); at most 1% is allowed, so the removal would be paid out at a moved price$/,
    )
  })

  it('refuses a position whose pool does not exist: NoPool, naming its tokens and fee', () => {
    expect(check(pool(undefined))).toMatchObject({ caveat: 'maxSlippage', error: 'NoPool', args: [token0, token1, 500] })
  })

  it('refuses a stale feed before pricing the pool, as the enforcer reads the feeds first', () => {
    expect(check(pool(sqrtAt(fairX96) * 2n), { ethUpdatedAt: NOW - 10_000n })).toMatchObject({
      caveat: 'maxSlippage',
      error: 'StalePrice',
    })
  })

  it('refuses a pool of a token the caveat does not price: UnpricedAsset', () => {
    const other = getAddress('0xffffffffffffffffffffffffffffffffffffff01')
    expect(check({ token0, token1: other, fee: 500, pool: POOL, sqrtPriceX96: Q96 })).toMatchObject({
      error: 'UnpricedAsset',
      args: [other],
    })
  })

  it('leaves a position it could not read to the chain', () => {
    expect(check('unreadable')).toBeUndefined()
  })
})
