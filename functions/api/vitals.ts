// The vital signs the API answers with (core/lifecycle/vitalSigns.ts): the same answer the tick printed,
// from the stored record's vitality and lifecycle, the profile's clocks and the oracle's phase.
import { z } from '@hono/zod-openapi'
import { phaseOfName } from '../../core/health/golemHealth.ts'
import { golemVitalSigns } from '../../core/lifecycle/golemVitalSigns.ts'
import { phaseNames, type Phase } from '../../core/lifecycle/phase.ts'
import type { StatedVitalSigns } from '../../core/lifecycle/vitalSigns.ts'
import type { GolemView } from './deps.ts'

/** A tick's move of the phase belongs to its console line; a read states where the Golem is. */
export type ApiVitalSigns = StatedVitalSigns

const seconds = z.number().int().nonnegative()

export const vitalSignsResponse = z
  .object({
    lifecycle: z.enum(['alive', 'dying', 'dead']),
    phase: z.enum(phaseNames).meta({ description: 'the oracle phase; Terminal once dead' }),
    vitality: z.number().min(0).max(1).meta({ description: "the last tick's vitality; 0 once dead" }),
    survivalScoreBps: z.number().int().min(0).max(10_000),
    livesSeconds: seconds.meta({
      description: 'seconds it still lives without a renewal: until its runway or its grant ends; 0 once dead',
    }),
    endsBy: z.enum(['runway', 'grant']).meta({ description: 'the clock that ends its life first' }),
    runwayEndsAt: seconds.meta({ description: 'the paid TTL, unix seconds' }),
    grantEndsAt: seconds.meta({ description: "the end of the owner's newest grant, unix seconds" }),
    grantEndsInSeconds: seconds,
    recovered: z.boolean().meta({ description: 'its vitality points to an earlier phase than it holds: phases hold until a reprieve' }),
  })
  .meta({ description: 'the vital signs every surface shows (the console, the dashboard, the Snap)' })

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
