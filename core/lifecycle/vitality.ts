// Vitality from the three clocks (economic, epistemic, stochastic). A documented, pure model: see
// docs/vitality.md. Every input is explicit, so the same inputs always give the same vitality.
import { keccak256, toHex } from 'viem'
import { BardoError } from '../errors.ts'

export type VitalityInputs = {
  /** Unix seconds now (chain time). */
  now: bigint
  /** When the Golem was born (its first tick / delegation start). */
  bornAt: bigint
  /** When its runway ends: the delegation's life window end (golemPhase's window), moved by paid extensions. */
  runwayEndsAt: bigint
  /** Runway length at birth (runwayEndsAt - bornAt at provisioning), the economic clock's full scale. */
  runwayTotalSeconds: bigint
  /** When the Golem last learned something it could verify (epistemic freshness); bornAt if never. */
  lastInsightAt: bigint
  /** Seed for the stochastic clock (the Golem id); ticks at the same time give the same draw. */
  seed: string
  parameters?: Partial<VitalityParameters>
}

export type VitalityParameters = {
  /** Seconds for the epistemic clock to halve without new insight. */
  epistemicHalfLifeSeconds: number
  /** Chance per day of a stochastic shock. */
  shockProbabilityPerDay: number
  /** How much of the stochastic clock a shock takes (it recovers at recoveryPerDay). */
  shockSeverity: number
  weights: { economic: number; epistemic: number; stochastic: number }
}

export const defaultVitalityParameters: VitalityParameters = {
  epistemicHalfLifeSeconds: 30 * 86_400,
  shockProbabilityPerDay: 0.02,
  shockSeverity: 0.3,
  weights: { economic: 0.6, epistemic: 0.25, stochastic: 0.15 },
}

export type Vitality = {
  economic: number
  epistemic: number
  stochastic: number
  /** Weighted geometric mean of the clocks, in [0, 1]; 0 as soon as any clock reaches 0. */
  vitality: number
  /** vitality in basis points, as the VitalityOracle stores it. */
  survivalScoreBps: number
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x))
}

function requireField(ok: boolean, field: string, rule: string): void {
  if (!ok) throw new BardoError('INVALID_VITALITY_INPUT', `${field}: ${rule}`)
}

/** Economic clock: the share of the runway still ahead. 0 when the runway has ended. */
export function economicClock(now: bigint, runwayEndsAt: bigint, runwayTotalSeconds: bigint): number {
  if (now >= runwayEndsAt) return 0
  return clamp01(Number(runwayEndsAt - now) / Number(runwayTotalSeconds))
}

/** Epistemic clock: halves every half-life without new insight. */
export function epistemicClock(now: bigint, lastInsightAt: bigint, halfLifeSeconds: number): number {
  const age = now > lastInsightAt ? Number(now - lastInsightAt) : 0
  return clamp01(0.5 ** (age / halfLifeSeconds))
}

/**
 * Stochastic clock: a deterministic draw per (seed, day). On a shock day it drops by the severity;
 * the draw uses keccak so every machine and every retry of the same tick agrees.
 */
export function stochasticClock(seed: string, now: bigint, p: VitalityParameters): number {
  const day = now / 86_400n
  const digest = keccak256(toHex(`${seed}:${day}`))
  const draw = Number(BigInt(digest) % 1_000_000n) / 1_000_000
  return draw < p.shockProbabilityPerDay ? clamp01(1 - p.shockSeverity) : 1
}

export function computeVitality(inputs: VitalityInputs): Vitality {
  const p: VitalityParameters = { ...defaultVitalityParameters, ...inputs.parameters }
  requireField(inputs.runwayTotalSeconds > 0n, 'runwayTotalSeconds', 'must be greater than 0')
  requireField(inputs.runwayEndsAt >= inputs.bornAt, 'runwayEndsAt', 'must not be before bornAt')
  requireField(inputs.seed.length > 0, 'seed', 'must not be empty')
  requireField(p.epistemicHalfLifeSeconds > 0, 'epistemicHalfLifeSeconds', 'must be greater than 0')
  const economic = economicClock(inputs.now, inputs.runwayEndsAt, inputs.runwayTotalSeconds)
  const epistemic = epistemicClock(inputs.now, inputs.lastInsightAt, p.epistemicHalfLifeSeconds)
  const stochastic = stochasticClock(inputs.seed, inputs.now, p)
  const w = p.weights
  const total = w.economic + w.epistemic + w.stochastic
  const vitality =
    economic === 0 || epistemic === 0 || stochastic === 0
      ? 0
      : clamp01(
          Math.exp((w.economic * Math.log(economic) + w.epistemic * Math.log(epistemic) + w.stochastic * Math.log(stochastic)) / total),
        )
  return { economic, epistemic, stochastic, vitality, survivalScoreBps: Math.round(vitality * 10_000) }
}
