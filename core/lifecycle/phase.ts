// Behavioral phases and the rules that tie them to vitality and to spending. Pure.
import { BardoError } from '../errors.ts'

export const Phase = { Thriving: 0, Stable: 1, Conservation: 2, Declining: 3, Terminal: 4 } as const
export type Phase = (typeof Phase)[keyof typeof Phase]
/**
 * The phase names, in the VitalityOracle's order (index = Phase): the one list every layer, the store, the
 * API, the indexer's readers, the dashboard and the Snap use.
 */
export const phaseNames = ['Thriving', 'Stable', 'Conservation', 'Declining', 'Terminal'] as const
export type PhaseName = (typeof phaseNames)[number]

export function phaseName(phase: Phase): PhaseName {
  return phaseNames[phase]
}

export function parsePhase(value: number): Phase {
  if (!Number.isInteger(value) || value < 0 || value > 4) {
    throw new BardoError('INVALID_PHASE', `phase: must be an integer 0..4 (Thriving..Terminal), got ${value}`)
  }
  return value as Phase
}

/**
 * Lower vitality bounds of each phase (vitality in [0, 1]). A Golem at or above 0.70 thrives; below
 * 0.10 it is Terminal. Documented in docs/vitality.md.
 */
export const phaseThresholds: readonly { phase: Phase; minVitality: number }[] = [
  { phase: Phase.Thriving, minVitality: 0.7 },
  { phase: Phase.Stable, minVitality: 0.5 },
  { phase: Phase.Conservation, minVitality: 0.3 },
  { phase: Phase.Declining, minVitality: 0.1 },
  { phase: Phase.Terminal, minVitality: 0 },
]

/** The phase vitality alone points to, ignoring history. */
export function phaseForVitality(vitality: number): Phase {
  if (!Number.isFinite(vitality) || vitality < 0 || vitality > 1) {
    throw new BardoError('INVALID_VITALITY', `vitality: must be a number in [0, 1], got ${vitality}`)
  }
  for (const t of phaseThresholds) if (vitality >= t.minVitality) return t.phase
  return Phase.Terminal
}

/**
 * The next phase: phases only move forward for the Golem itself (the oracle refuses anything else), so
 * a Golem whose vitality recovers stays where it is until the owner resets it.
 */
export function nextPhase(current: Phase, vitality: number): Phase {
  return Math.max(current, phaseForVitality(vitality)) as Phase
}

/**
 * How much of the daily runway a redemption may take in each phase: Thriving 1.0,
 * Conservation 0.5, Declining 0.1 (inference only), Terminal 0 (revoke instead). Stable is not in the
 * seed; we choose 0.75 — between Thriving and Conservation, because Stable still trades but no longer
 * spawns Replicants, so it needs most but not all of its runway. Expressed in basis points so amounts
 * stay bigint.
 */
export const phaseMultiplierBps: Record<Phase, bigint> = {
  [Phase.Thriving]: 10_000n,
  [Phase.Stable]: 7_500n,
  [Phase.Conservation]: 5_000n,
  [Phase.Declining]: 1_000n,
  [Phase.Terminal]: 0n,
}
