// A stored Golem's vital signs: its profile's clocks (the paid TTL, the end of the owner's newest grant)
// joined with what the tick or the chain says of its phase and vitality (core/lifecycle/vitalSigns.ts).
import { grantEndOf } from './grantInForce.ts'
import type { GolemProfile } from './profile.ts'
import { vitalSigns, type VitalSigns, type VitalSignsInput } from './vitalSigns.ts'

export type GolemVitalSignsReading = Omit<VitalSignsInput, 'now' | 'runwayEndsAt' | 'grantEndsAt'> & {
  now: bigint
  /** The TTL a payment this tick moved, when it is newer than the profile's. */
  runwayEndsAt?: bigint
}

export function golemVitalSigns(profile: GolemProfile, reading: GolemVitalSignsReading): VitalSigns {
  const { now, runwayEndsAt, ...rest } = reading
  return vitalSigns({
    ...rest,
    now: Number(now),
    // A queued renewal keeps the owner's authority going past the grant in force: the newest grant's end counts.
    grantEndsAt: Number(grantEndOf(profile)),
    runwayEndsAt: Number(runwayEndsAt ?? profile.life.runwayEndsAt),
  })
}
