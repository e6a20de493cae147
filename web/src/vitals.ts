// The vital signs on the page: the API's answer (core/lifecycle/vitalSigns.ts) read again at the page's
// clock, so the countdowns move between polls, in the console line's words (vitalSignsWords).
import { phaseNames } from '../../core/lifecycle/phase.ts'
import { vitalSigns, type VitalSigns } from '../../core/lifecycle/vitalSigns.ts'

/** The vital signs as the API states them: where the Golem is, not how a tick moved it. */
export type ApiVitals = Omit<VitalSigns, 'change'>

export function vitalsAt(v: ApiVitals, now: number): VitalSigns {
  return vitalSigns({
    now: Math.max(0, Math.floor(now)),
    lifecycle: v.lifecycle,
    phase: phaseNames.indexOf(v.phase),
    vitality: v.vitality,
    runwayEndsAt: v.runwayEndsAt,
    grantEndsAt: v.grantEndsAt,
  })
}
