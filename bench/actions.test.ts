import { describe, expect, it } from 'vitest'
import { formatActionsBench, runActionsBench } from './actions.ts'

describe('actions bench', () => {
  it('times the pre-check and the redemption of the same executed beats and prints them against each other', async () => {
    const r = await runActionsBench({ samples: 3 })
    expect(r.samples).toBe(3)
    expect(r.precheckP50).toBeGreaterThan(0)
    expect(r.redeemP50).toBeGreaterThan(0)
    expect(r.ratio).toBeCloseTo(r.precheckP50 / r.redeemP50)
    expect(formatActionsBench(r)).toMatch(/off-chain pre-check, per action .* baseline: the redemption/s)
  })
})
