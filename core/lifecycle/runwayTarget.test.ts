import { describe, expect, it } from 'vitest'
import { keyCeilingOf, runwayTarget } from './runwayTarget.ts'

const DAY = 86_400n
const HOUR = 3_600n

describe('just-in-time runway', () => {
  it("holds the coming period's runtime, bought in whole hours, at least one", () => {
    expect(runwayTarget({ periodAmount: 50_000_000n, periodDuration: DAY, runtimeCostPerHour: 500_000n })).toBe(12_000_000n)
    expect(runwayTarget({ periodAmount: 50_000_000n, periodDuration: 60n, runtimeCostPerHour: 500_000n })).toBe(500_000n)
    expect(runwayTarget({ periodAmount: 50_000_000n, periodDuration: HOUR + 1n, runtimeCostPerHour: 500_000n })).toBe(1_000_000n)
  })

  it('never past the ceiling: the one the owner set, or one period by default', () => {
    expect(runwayTarget({ periodAmount: 5_000_000n, periodDuration: DAY, runtimeCostPerHour: 500_000n })).toBe(5_000_000n)
    expect(runwayTarget({ periodAmount: 50_000_000n, periodDuration: DAY, keyCeiling: 2_000_000n, runtimeCostPerHour: 500_000n })).toBe(
      2_000_000n,
    )
    // A Golem whose costs are not known here is topped up to its ceiling.
    expect(runwayTarget({ periodAmount: 50_000_000n, periodDuration: DAY })).toBe(50_000_000n)
    expect(runwayTarget({ periodAmount: 50_000_000n, periodDuration: DAY, keyCeiling: 0n })).toBe(0n)
    expect(keyCeilingOf({ periodAmount: 7n })).toBe(7n)
  })

  it('refuses negative inputs, naming the field', () => {
    expect(() => runwayTarget({ periodAmount: -1n, periodDuration: DAY })).toThrow(/^periodAmount: must not be negative/)
    expect(() => runwayTarget({ periodAmount: 1n, periodDuration: DAY, keyCeiling: -1n })).toThrow(/^keyCeiling: must not be negative/)
    expect(() => runwayTarget({ periodAmount: 1n, periodDuration: DAY, runtimeCostPerHour: -5n })).toThrow(
      /^runtimeCostPerHour: must not be negative/,
    )
  })
})
