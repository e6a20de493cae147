import { describe, expect, it } from 'vitest'
import { Phase, phaseNames } from './phase.ts'
import { vitalSigns, type VitalSignsInput } from './vitalSigns.ts'

const NOW = 1_000_000
const alive: VitalSignsInput = {
  now: NOW,
  lifecycle: 'alive',
  phase: Phase.Thriving,
  vitality: 0.9,
  runwayEndsAt: NOW + 600,
  grantEndsAt: NOW + 900,
}

describe('vital signs', () => {
  it('gives each phase with its vitality, the life left on the runway and the grant as its own clock', () => {
    const bands = [0.9, 0.6, 0.4, 0.2, 0.05]
    for (const [phase, vitality] of bands.entries()) {
      const v = vitalSigns({ ...alive, phase, vitality })
      expect(v).toMatchObject({
        lifecycle: 'alive',
        phase: phaseNames[phase],
        vitality,
        survivalScoreBps: Math.round(vitality * 10_000),
        livesSeconds: 600,
        endsBy: 'runway',
        grantEndsInSeconds: 900,
        recovered: false,
        change: null,
      })
    }
  })

  it('names a forward move as an advance', () => {
    expect(vitalSigns({ ...alive, phase: Phase.Stable, vitality: 0.6, from: Phase.Thriving }).change).toEqual({
      kind: 'advance',
      from: 'Thriving',
      to: 'Stable',
    })
  })

  it('names a feed reprieve as a reprieve, the one move back', () => {
    const v = vitalSigns({ ...alive, phase: Phase.Thriving, vitality: 0.8, from: Phase.Stable, reprieve: true })
    expect(v.change).toEqual({ kind: 'reprieve', from: 'Stable', to: 'Thriving' })
    expect(v.phase).toBe('Thriving')
  })

  it('lives until its grant ends when the grant ends before the runway, and says which clock ends it', () => {
    const v = vitalSigns({ ...alive, runwayEndsAt: NOW + 86_400, grantEndsAt: NOW + 50 })
    expect(v).toMatchObject({ livesSeconds: 50, endsBy: 'grant', grantEndsInSeconds: 50, runwayEndsAt: NOW + 86_400 })
    // Both ending together: the grant ends it (only the owner moves it).
    expect(vitalSigns({ ...alive, runwayEndsAt: NOW + 50, grantEndsAt: NOW + 50 }).endsBy).toBe('grant')
    // Both past: nothing left, never negative.
    expect(vitalSigns({ ...alive, runwayEndsAt: NOW - 10, grantEndsAt: NOW - 5 })).toMatchObject({ livesSeconds: 0, grantEndsInSeconds: 0 })
  })

  it('marks a vitality that recovered above the phase it holds (a paid extension): the phase holds until a reprieve', () => {
    expect(vitalSigns({ ...alive, phase: Phase.Stable, vitality: 1 })).toMatchObject({ phase: 'Stable', vitality: 1, recovered: true })
    expect(vitalSigns({ ...alive, phase: Phase.Stable, vitality: 0.55 }).recovered).toBe(false)
  })

  it('is Terminal with no life and no vitality left once dead, and names the death', () => {
    const v = vitalSigns({ ...alive, lifecycle: 'dead', phase: Phase.Terminal, vitality: 0.08, from: Phase.Stable })
    expect(v).toMatchObject({ lifecycle: 'dead', phase: 'Terminal', vitality: 0, survivalScoreBps: 0, livesSeconds: 0, recovered: false })
    expect(v.change).toEqual({ kind: 'death', from: 'Stable', to: 'Terminal' })
    // A Golem that died before Terminal reached the oracle is Terminal all the same.
    expect(vitalSigns({ ...alive, lifecycle: 'dead', phase: Phase.Thriving, vitality: 0.7 })).toMatchObject({
      phase: 'Terminal',
      vitality: 0,
      change: null,
    })
    // Dying still lives until the protocol ends.
    expect(vitalSigns({ ...alive, lifecycle: 'dying' }).livesSeconds).toBe(600)
  })

  it('refuses bad inputs, naming the field and the rule', () => {
    const bad: [Partial<VitalSignsInput>, RegExp][] = [
      [{ now: -1 }, /^now: must be a whole number of unix seconds, not negative, got -1$/],
      [{ now: 1.5 }, /^now: must be a whole number/],
      [{ runwayEndsAt: Number.NaN }, /^runwayEndsAt: must be a whole number/],
      [{ grantEndsAt: -5 }, /^grantEndsAt: must be a whole number/],
      [{ lifecycle: 'asleep' as never }, /^lifecycle: must be alive, dying or dead, got asleep$/],
      [{ vitality: 1.2 }, /^vitality: must be a number in \[0, 1\], got 1.2$/],
      [{ vitality: Number.NaN }, /^vitality: must be a number in \[0, 1\]/],
      [{ phase: 5 }, /^phase: must be an integer 0..4 \(Thriving..Terminal\), got 5$/],
      [{ phase: 1, from: -1 }, /^from: must be an integer 0..4/],
      [{ phase: Phase.Thriving, from: Phase.Stable }, /^from: a phase moves back only through a reprieve, got 1 -> 0$/],
      [{ phase: Phase.Stable, from: Phase.Thriving, reprieve: true }, /^reprieve: must move the phase back/],
      [{ phase: Phase.Stable, reprieve: true }, /^reprieve: must move the phase back/],
    ]
    for (const [patch, message] of bad) {
      let thrown: unknown
      try {
        vitalSigns({ ...alive, ...patch })
      } catch (e) {
        thrown = e
      }
      expect(thrown, JSON.stringify(patch)).toMatchObject({ code: 'INVALID_VITAL_SIGNS' })
      expect((thrown as Error).message).toMatch(message)
    }
  })
})
