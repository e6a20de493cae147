// The vital signs the API answers with (core/lifecycle/vitalSigns.ts): the same answer the tick printed,
// from the stored record's vitality and lifecycle, the profile's clocks and the oracle's phase.
import { phaseOfName } from '../../core/health/golemHealth.ts'
import { golemVitalSigns } from '../../core/lifecycle/golemVitalSigns.ts'
import type { Phase } from '../../core/lifecycle/phase.ts'
import type { StatedVitalSigns } from '../../core/lifecycle/vitalSigns.ts'
import type { GolemView } from './deps.ts'

/** A tick's move of the phase belongs to its console line; a read states where the Golem is. */
export type ApiVitalSigns = StatedVitalSigns

/** The Golem's vital signs at `now` (unix seconds), with the oracle's phase when the caller read it; null without a profile. */
export function vitalsOf(golem: GolemView, now: number, oraclePhase?: Phase): ApiVitalSigns | null {
  if (!golem.profile) return null
  const { change: _change, ...vitals } = golemVitalSigns(golem.profile, {
    now: BigInt(now),
    lifecycle: golem.lifecycle,
    phase: oraclePhase ?? phaseOfName(golem.phase),
    vitality: golem.vitality,
  })
  return vitals
}
