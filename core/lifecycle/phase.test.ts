import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { Phase, nextPhase, parsePhase, phaseForVitality, phaseMultiplierBps } from './phase.ts'

describe('phases', () => {
  it('maps vitality to phases at the documented thresholds', () => {
    expect(phaseForVitality(1)).toBe(Phase.Thriving)
    expect(phaseForVitality(0.7)).toBe(Phase.Thriving)
    expect(phaseForVitality(0.6999)).toBe(Phase.Stable)
    expect(phaseForVitality(0.5)).toBe(Phase.Stable)
    expect(phaseForVitality(0.3)).toBe(Phase.Conservation)
    expect(phaseForVitality(0.1)).toBe(Phase.Declining)
    expect(phaseForVitality(0.0999)).toBe(Phase.Terminal)
    expect(phaseForVitality(0)).toBe(Phase.Terminal)
  })

  it('refuses vitality outside [0, 1] naming the field', () => {
    expect(() => phaseForVitality(1.01)).toThrow(/vitality: must be a number in \[0, 1\]/)
    expect(() => phaseForVitality(Number.NaN)).toThrow(/vitality/)
    expect(() => parsePhase(5)).toThrow(/phase: must be an integer 0..4/)
  })

  it('never moves a phase backwards, whatever vitality says', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4 }), fc.double({ min: 0, max: 1, noNaN: true }), (p, v) => {
        const next = nextPhase(p as Phase, v)
        expect(next).toBeGreaterThanOrEqual(p)
        expect(next).toBe(Math.max(p, phaseForVitality(v)))
      }),
    )
  })

  it('uses the phase multipliers: 1.0, 0.75 for Stable, 0.5, 0.1, 0', () => {
    expect(phaseMultiplierBps).toEqual({ 0: 10_000n, 1: 7_500n, 2: 5_000n, 3: 1_000n, 4: 0n })
  })
})
