import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { computeVitality, economicClock, epistemicClock, stochasticClock, defaultVitalityParameters } from './vitality.ts'
import { phaseForVitality, Phase } from './phase.ts'

const DAY = 86_400n
const base = { bornAt: 0n, runwayEndsAt: 30n * DAY, runwayTotalSeconds: 30n * DAY, lastInsightAt: 0n, seed: 'golem-1' }

describe('vitality model', () => {
  it('starts at full vitality and ends at zero when the runway ends', () => {
    const start = computeVitality({ ...base, now: 0n, parameters: { shockProbabilityPerDay: 0 } })
    expect(start.vitality).toBe(1)
    expect(start.survivalScoreBps).toBe(10_000)
    const end = computeVitality({ ...base, now: 30n * DAY })
    expect(end.vitality).toBe(0)
    expect(phaseForVitality(end.vitality)).toBe(Phase.Terminal)
  })

  it('walks through every phase over a life with no shocks', () => {
    const seen = new Set<number>()
    for (let d = 0n; d <= 30n; d++) {
      const v = computeVitality({ ...base, now: d * DAY, parameters: { shockProbabilityPerDay: 0 } })
      seen.add(phaseForVitality(v.vitality))
    }
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 4])
  })

  it('economic clock is the share of runway ahead', () => {
    expect(economicClock(15n * DAY, 30n * DAY, 30n * DAY)).toBe(0.5)
    expect(economicClock(31n * DAY, 30n * DAY, 30n * DAY)).toBe(0)
  })

  it('epistemic clock halves every half-life', () => {
    expect(epistemicClock(30n * DAY, 0n, 30 * 86_400)).toBeCloseTo(0.5)
    expect(epistemicClock(0n, 10n, 30 * 86_400)).toBe(1)
  })

  it('stochastic clock is deterministic per seed and day', () => {
    const p = defaultVitalityParameters
    for (let d = 0n; d < 50n; d++) expect(stochasticClock('s', d * DAY + 5n, p)).toBe(stochasticClock('s', d * DAY + 999n, p))
  })

  it('is bounded, monotone in runway, and zero exactly when a clock is zero', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 60n * DAY }), fc.bigInt({ min: 0n, max: 60n * DAY }), (now, later) => {
        const a = computeVitality({ ...base, now, parameters: { shockProbabilityPerDay: 0 } })
        expect(a.vitality).toBeGreaterThanOrEqual(0)
        expect(a.vitality).toBeLessThanOrEqual(1)
        const b = computeVitality({ ...base, now: now + later, parameters: { shockProbabilityPerDay: 0 } })
        expect(b.vitality).toBeLessThanOrEqual(a.vitality)
        if (a.economic === 0) expect(a.vitality).toBe(0)
      }),
    )
  })

  it('refuses bad inputs naming the field', () => {
    expect(() => computeVitality({ ...base, now: 0n, runwayTotalSeconds: 0n })).toThrow(/runwayTotalSeconds: must be greater than 0/)
    expect(() => computeVitality({ ...base, now: 0n, seed: '' })).toThrow(/seed: must not be empty/)
    expect(() => computeVitality({ ...base, now: 0n, runwayEndsAt: -1n })).toThrow(/runwayEndsAt/)
  })
})
