import { describe, expect, it } from 'vitest'
import { nextPeriodBoundary, rotationFitsGrant } from './renewal.ts'

describe('renewal rules', () => {
  it("starts a replacement grant on the old grant's next period boundary", () => {
    expect(nextPeriodBoundary(1_000n, 60n, 1_000n)).toBe(1_060n)
    expect(nextPeriodBoundary(1_000n, 60n, 1_059n)).toBe(1_060n)
    expect(nextPeriodBoundary(1_000n, 60n, 1_060n)).toBe(1_120n)
    expect(nextPeriodBoundary(1_000n, 60n, 900n)).toBe(1_000n)
    expect(() => nextPeriodBoundary(1_000n, 0n, 1_000n)).toThrow(/periodDuration: must be greater than 0/)
  })

  it('never rotates into a grant that would end before it starts (the last period has nothing to hand over)', () => {
    expect(rotationFitsGrant(1_060n, 1_100n)).toBe(true)
    expect(rotationFitsGrant(1_100n, 1_100n)).toBe(false)
    expect(rotationFitsGrant(35n * 86_400n, 30n * 86_400n)).toBe(false)
  })
})
