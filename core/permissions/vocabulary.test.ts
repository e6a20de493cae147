import { describe, expect, it } from 'vitest'
import { analyzeProse, CAPABILITIES, CAPABILITY_LEXICON, type Capability } from './capabilities.ts'
import { UNGRANTABLE } from './ungrantable.ts'
import { HEDGE_RULE, HEDGING_VOCABULARY, NEUTRAL_PHRASES, TRADER_VOCABULARY } from './vocabulary.ts'

const read = (text: string) => {
  const a = analyzeProse(text)
  return { granted: [...a.granted].sort(), warnings: a.warnings }
}

describe('vocabulary tables', () => {
  it('name each phrase once across grants, ungrantables and modifiers', () => {
    const all = [...CAPABILITIES.flatMap((c) => CAPABILITY_LEXICON[c]), ...UNGRANTABLE.flatMap((u) => u.forms), ...NEUTRAL_PHRASES]
    expect(all.filter((f, i) => all.indexOf(f) !== i)).toEqual([])
  })

  it('write phrases lower-case, one space between words', () => {
    for (const f of [...CAPABILITIES.flatMap((c) => CAPABILITY_LEXICON[c]), ...UNGRANTABLE.flatMap((u) => u.forms), ...NEUTRAL_PHRASES]) {
      expect(f).toBe(f.toLowerCase())
      expect(f).toMatch(/^\S+(?: \S+)*$/)
    }
  })

  it('put every trader phrase and hedge in the lexicon, under its capability', () => {
    for (const c of CAPABILITIES) for (const f of TRADER_VOCABULARY[c]) expect(CAPABILITY_LEXICON[c]).toContain(f)
    for (const f of HEDGING_VOCABULARY) expect(CAPABILITY_LEXICON.Swap).toContain(f)
  })
})

describe('every phrase on its own', () => {
  const phrases = CAPABILITIES.flatMap((c) => CAPABILITY_LEXICON[c].map((f) => [f, c] as [string, Capability]))
  it.each(phrases)('"%s" grants exactly %s', (form, capability) => {
    expect(read(`We ${form} today.`).granted).toEqual([capability])
  })

  it.each(UNGRANTABLE.flatMap((u) => u.forms.map((f) => [f, u.what] as const)))('"%s" grants nothing and is named (%s)', (form, what) => {
    const { granted, warnings } = read(`We ${form} today.`)
    expect(granted).toEqual([])
    expect(warnings).toEqual([expect.stringContaining(`line 1: "${form}" asks for ${what}; not granted: `)])
  })

  it.each(NEUTRAL_PHRASES)('"%s" grants nothing and warns nothing', (form) => {
    expect(read(`Watch the ${form} today.`)).toEqual({ granted: [], warnings: [] })
  })
})

describe('traders phrase each capability their own way', () => {
  it.each([
    // trading
    ['Buy WETH on dips and sell into strength.', ['Swap']],
    ['Rotate into WETH when momentum turns; rotate out of it when it fades.', ['Swap']],
    ['Take profit at $4,000 and keep a stop-loss at -8%.', ['Swap']],
    ['Rebalance to 60/40 WETH/USDC every Monday.', ['Swap']],
    ['Convert USDC to WETH along the cheapest multi-hop route.', ['Swap']],
    // market-making
    ['Make markets on USDC/WETH in a concentrated range.', ['ProvideLiquidity']],
    ['Earn trading fees with range orders above the price.', ['ProvideLiquidity']],
    ['Market-making on the 0.05% tier; collect fees daily.', ['ProvideLiquidity']],
    // yield
    ['Park idle USDC in a vault.', ['VaultManagement']],
    ['Farm the best stable APY.', ['VaultManagement']],
    ['Supply to the lending market and earn interest.', ['VaultManagement']],
    ['Lend spare USDC overnight.', ['VaultManagement']],
    // bridge, replicants, limit orders
    ['Send profits home over CCTP.', ['Bridge']],
    ['Spin up child agents to scout pairs.', ['SpawnReplicants']],
    ['Leave resting orders below the market and a limit sell above.', ['LimitOrders']],
  ] as const)('%j -> %j', (text, expected) => {
    expect(read(text).granted).toEqual([...expected].sort())
  })

  it.each([
    ['Hedge ETH exposure by selling into USDC.', 'hedge'],
    ['De-risk when volatility spikes.', 'de-risk'],
    ['Reduce exposure when the feed drops 5%.', 'reduce exposure'],
    ['Go risk-off on a red day.', 'risk-off'],
  ])('%j is read as Swap and says why (%s)', (text, form) => {
    const { granted, warnings } = read(text)
    expect(granted).toEqual(['Swap'])
    expect(warnings).toContain(`line 1: "${form}" is read as Swap: ${HEDGE_RULE}`)
  })
})

describe('a phrase never widens the grant', () => {
  it.each([
    ['Earn trading fees as an LP.', ['ProvideLiquidity']],
    ['Swap where trading fees are lowest.', ['Swap']],
    ['Track the pool price, then swap.', ['Swap']],
    ['Route the swap through the pool with the deepest book.', ['Swap']],
    ['Place a limit buy for WETH at $2,500.', ['LimitOrders']],
    ['Trade perps on ETH.', []],
    ['Margin trading on WETH.', []],
    ['Sell covered calls on the WETH we hold.', []],
    ['Buy options on ETH.', []],
    ['Pull liquidity from old positions.', []],
    ['Remove liquidity when the range is crossed.', []],
  ] as const)('%j -> %j', (text, expected) => {
    expect(read(text).granted).toEqual([...expected].sort())
  })
})

describe('what cannot be granted is named, never dropped', () => {
  it.each([
    ['Trade WETH with 3x leverage.', ['Swap'], '"leverage" asks for leverage or borrowing'],
    ['Borrow USDC against WETH and swap it.', ['Swap'], '"borrow" asks for leverage or borrowing'],
    ['Trade perps on ETH.', [], '"trade perps" asks for perpetuals or futures'],
    ['Go short ETH when the trend breaks.', [], '"go short" asks for short selling'],
    ['Sell covered calls on the WETH we hold.', [], '"sell covered calls" asks for options'],
    ['Provide liquidity; pull liquidity when out of range.', ['ProvideLiquidity'], '"pull liquidity" asks for liquidity removal'],
    ['Earn yield from liquid staking.', ['VaultManagement'], '"liquid staking" asks for staking'],
    ['Supply USDC to Aave for yield.', ['VaultManagement'], '"aave" asks for a protocol the compiler has no contracts for'],
    ['Bridge profits to Solana.', ['Bridge'], '"solana" asks for a chain outside the EVM'],
    ['Trade on Arbitrum.', ['Swap'], '"arbitrum" asks for another chain'],
  ] as const)('%j -> %j, warning %s', (text, expected, named) => {
    const { granted, warnings } = read(text)
    expect(granted).toEqual([...expected].sort())
    expect(
      warnings.some((w) => w.startsWith(`line 1: ${named}; not granted: `)),
      JSON.stringify(warnings),
    ).toBe(true)
  })

  it('names nothing that the text refuses', () => {
    expect(read('Swap daily. Never use leverage, perps or Aave.')).toEqual({ granted: ['Swap'], warnings: [] })
    expect(read('Forbidden:\n- margin trading\n- shorting\n\nSwap on dips.')).toEqual({ granted: ['Swap'], warnings: [] })
  })

  it('names each phrase on its own line, once per line', () => {
    expect(read('Use leverage.\nUse leverage, and more leverage.').warnings.map((w) => w.slice(0, 7))).toEqual(['line 1:', 'line 2:'])
  })
})
