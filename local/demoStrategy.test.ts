// The demo's strategy fits its life: every beat the default life can run (one per tick of its own) times
// the slice it asks for stays within the swap's daily spend limit, so the demo's swaps are accepted from
// birth to death; and the strategy itself compiles to the same grant as before.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Address } from 'viem'
import { describe, expect, it } from 'vitest'
import { compileStrategy, dailyLimitPerSpender, localRegistry } from '../core/permissions/index.ts'
import { DEMO_MAX_SLICE_USDC, demoBeatsPerWindow, demoSliceUsdc } from './demoStrategy.ts'
import { localStackSettings } from './runner.ts'

const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as Address
const plan = compileStrategy({
  text: readFileSync(join(import.meta.dirname, '..', 'examples', 'STRATEGY.md'), 'utf8'),
  chainId: 31337,
  owner: address(1),
  sessionKey: address(2),
  runwayDays: 30,
  now: 1_700_000_000,
  registry: localRegistry({
    usdc: address(3),
    weth: address(4),
    vault: address(7),
    router: address(8),
  }),
})
const limit = dailyLimitPerSpender(plan)

describe("the demo's strategy over its life", () => {
  it('the example strategy still compiles to a $25 a day budget with one swap spender', () => {
    expect(plan.dailyUsdcCap).toBe(25_000_000n)
    expect(limit).toBe(25_000_000n)
  })

  it('fits the default life: beats in the life × the slice ≤ the daily spend limit', () => {
    const settings = localStackSettings({})
    const beats = demoBeatsPerWindow(settings)
    const slice = demoSliceUsdc({ plan, ...settings })
    expect(beats).toBe(12 * 12 + 1)
    expect(slice).toBe(170_000n)
    expect(BigInt(beats) * slice).toBeLessThanOrEqual(limit)
  })

  it.each([
    { lifeSeconds: 900, tickSeconds: 1 },
    { lifeSeconds: 600, tickSeconds: 5 },
    { lifeSeconds: 60, tickSeconds: 5 },
    { lifeSeconds: 3 * 86_400, tickSeconds: 5 },
    { lifeSeconds: 30 * 86_400, tickSeconds: 3600 },
  ])('fits a life of $lifeSeconds s ticked every $tickSeconds s, with a slice of at most 1 USDC and more than nothing', (o) => {
    const slice = demoSliceUsdc({ plan, ...o })
    expect(slice).toBeGreaterThan(0n)
    expect(slice).toBeLessThanOrEqual(DEMO_MAX_SLICE_USDC)
    expect(BigInt(demoBeatsPerWindow(o)) * slice).toBeLessThanOrEqual(limit)
  })
})
