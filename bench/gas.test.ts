// Sanity of the gas bench on a real devnet: the baseline is measured, every enforcer does work beyond
// the empty caveat, stateful enforcers pay more on the first redemption, and a second run gives exactly
// the same numbers (the bench claims determinism). No absolute gas is asserted: enforcers may change.
import { describe, expect, it } from 'vitest'
import { formatGasBench, runGasBench, type GasBenchResult } from './gas.ts'

const STATEFUL = ['dailySpendLimit', 'replicantBudget']

describe('gas bench', () => {
  let first: GasBenchResult

  it('measures the bare scope, the per-caveat overhead and all nine enforcers', async () => {
    first = await runGasBench()
    expect(first.bare.repeat).toBeLessThan(first.bare.first) // the period's storage is created once
    expect(first.hookOverhead.first).toBe(first.hookOverhead.repeat)
    expect(first.hookOverhead.repeat).toBeGreaterThan(0n)
    expect(first.enforcers.map((e) => e.caveat).sort()).toEqual(
      ['dailySpendLimit', 'dreamMode', 'emotionalState', 'golemPhase', 'knowledgeRoyalty', 'maxSlippage', 'mortalityTimeWindow', 'replicantBudget', 'vaultNav'],
    )
    for (const e of first.enforcers) {
      expect(e.marginal.repeat, e.caveat).toBeGreaterThan(0n)
      expect(e.overBare.repeat, e.caveat).toBe(e.marginal.repeat + first.hookOverhead.repeat)
      if (STATEFUL.includes(e.caveat)) expect(e.marginal.first, e.caveat).toBeGreaterThan(e.marginal.repeat)
      else expect(e.marginal.first, e.caveat).toBe(e.marginal.repeat)
    }
  }, 180_000)

  it('compares the runway as built with the bare scope and the folded prototype', () => {
    const [built, folded] = first.policies
    expect(built!.caveats).toEqual(['ValueLte', 'ERC20PeriodTransfer', 'golemPhase', 'mortalityTimeWindow'])
    expect(built!.ratio.repeat).toBeCloseTo(Number(built!.gas.repeat) / Number(first.bare.repeat), 12)
    expect(built!.verdict).toBe(built!.ratio.repeat <= first.goal ? 'PASS' : 'MISS')
    expect(folded!.gas.repeat).toBeLessThan(built!.gas.repeat)
    expect(formatGasBench(first)).toMatch(/Complete Bardo runway policy: repeat [\d,]+ = \d\.\d{4}x bare \(goal <= 1\.25x, budget [\d,]+\): (PASS|MISS)/)
  })

  it('gives the same gas on a second run', async () => {
    const again = await runGasBench()
    expect(again).toEqual(first)
  }, 180_000)
})
