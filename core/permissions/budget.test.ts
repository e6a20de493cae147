import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { formatUsdc, MAX_DAILY_BUDGET_USDC, parseBudget } from './budget.ts'
import { compileStrategy, BASE_DAILY_CAP, BRIDGE_DAILY_EXTRA, LP_DAILY_CAP, VAULT_DAILY_CAP } from './compileStrategy.ts'
import { CAPABILITIES, CAPABILITY_LEXICON } from './capabilities.ts'
import { NOW, OWNER, REGISTRIES, SESSION_KEY } from '../../test/support/permissions/corpus.ts'
import { StrategyCompileError } from './errors.ts'
import { localRegistry } from './protocolRegistry.ts'

describe('parseBudget', () => {
  it.each([
    ['250', 250_000_000n],
    ['$250', 250_000_000n],
    ['$ 250', 250_000_000n],
    ['$250/day', 250_000_000n],
    ['$250 per day', 250_000_000n],
    ['$250 a day', 250_000_000n],
    ['$250 daily', 250_000_000n],
    ['250 USDC/day', 250_000_000n],
    ['USDC 250 per 24h', 250_000_000n],
    ['$1,250.50/day', 1_250_500_000n],
    ['0.000001', 1n],
    ['1,000,000', MAX_DAILY_BUDGET_USDC],
  ])('%s -> %s', (raw, units) => {
    expect(parseBudget(raw)).toBe(units)
  })

  it.each([
    ['', 'cannot parse'],
    ['lots', 'cannot parse'],
    ['1e30', 'cannot parse'],
    ['$250/day for swaps', 'cannot parse'],
    ['-5', 'positive'],
    ['$-5/day', 'positive'],
    ['0', 'greater than 0'],
    ['0.0000001', '6 decimals'],
    ['1,25', 'three digits'],
    ['12,34,567', 'three digits'],
    ['$700/week', 'only daily'],
    ['$3000 monthly', 'only daily'],
    ['$10/hour', 'only daily'],
    ['$10/fortnightish', 'unknown period'],
    ['1,000,000.000001', 'hard ceiling'],
    ['99999999999999999999999999999999', 'hard ceiling'],
  ])('refuses %j (%s)', (raw, rule) => {
    expect(() => parseBudget(raw)).toThrowError(StrategyCompileError)
    expect(() => parseBudget(raw)).toThrowError(rule)
  })

  it('round-trips every amount it prints, with or without thousands separators', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: MAX_DAILY_BUDGET_USDC }), fc.boolean(), (units, commas) => {
        const [whole = '', frac] = formatUsdc(units).split('.')
        const grouped = commas ? whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',') : whole
        expect(parseBudget(`$${grouped}${frac === undefined ? '' : `.${frac}`}/day`)).toBe(units)
      }),
      { numRuns: 2000 },
    )
  })
})

describe('caps property', () => {
  const DOCUMENTED = new Set([
    BASE_DAILY_CAP, // 100
    BASE_DAILY_CAP + BRIDGE_DAILY_EXTRA, // 300
    LP_DAILY_CAP, // 500
    LP_DAILY_CAP + BRIDGE_DAILY_EXTRA, // 700
    VAULT_DAILY_CAP, // 1000
    VAULT_DAILY_CAP + BRIDGE_DAILY_EXTRA, // 1200
  ])
  // Every capability served locally, so only the cap rule decides the outcome.
  const registry = {
    ...localRegistry(
      {
        usdc: '0x1000000000000000000000000000000000000001',
        weth: '0x2000000000000000000000000000000000000002',
        router: '0x3000000000000000000000000000000000000003',
        vault: '0x4000000000000000000000000000000000000004',
        positionManager: '0x5000000000000000000000000000000000000005',
        bridge: '0x6000000000000000000000000000000000000006',
      },
      { bridge: { destinationDomain: 3 } },
    ),
  }
  const withLimitOrders = { ...registry, capabilities: { ...registry.capabilities, LimitOrders: { calls: [], approvals: [] } } }
  const words = fc.constantFrom(...CAPABILITIES.flatMap((c) => CAPABILITY_LEXICON[c]), 'never', 'help', 'and', '.', 'hold')
  const prose = fc.array(words, { maxLength: 12 }).map((w) => w.join(' '))

  it('is one of the documented values, or exactly the explicit budget', () => {
    fc.assert(
      fc.property(prose, fc.option(fc.bigInt({ min: 1n, max: MAX_DAILY_BUDGET_USDC }), { nil: undefined }), (text, budget) => {
        const line = budget === undefined ? '' : `\nbudget: ${formatUsdc(budget)}/day`
        const plan = compileStrategy({
          text: `---\noverride: true\n---\nhold ${text}${line}`,
          chainId: 31337,
          owner: OWNER,
          sessionKey: SESSION_KEY,
          now: NOW,
          registry: withLimitOrders,
        })
        if (budget === undefined) {
          expect(DOCUMENTED.has(plan.dailyUsdcCap)).toBe(true)
          expect(plan.budgetSource).toBe('capabilities')
        } else {
          expect(plan.dailyUsdcCap).toBe(budget)
          expect(plan.budgetSource).toBe('explicit')
        }
      }),
      { numRuns: 1500 },
    )
  })

  it('sanity: the corpus local registry is the one the property does not use', () => {
    expect(REGISTRIES.local().capabilities.ProvideLiquidity).toBeUndefined()
  })
})
