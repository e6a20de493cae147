// A Golem the heartbeat anomaly halted ticks for one thing only: its death, once its owner revoked its
// grant, the grant ended, or its life ran out. The halt stops its work (no redemption, no action, no
// phase post of its own); the death is what sends what its key holds back to the owner, deregisters it
// and zeroes its key, so an owner's revocation of a halted Golem ends it as it ends any other. Pure: the
// walk and the tick both ask it, on the same observation.
import { adjustmentInForce } from './adjustmentInForce.ts'
import { grantInForce } from './grantInForce.ts'
import type { ObservedGolem } from './observation.ts'
import type { GolemProfile } from './profile.ts'
import { planTick } from './tickPlan.ts'
import type { VitalityParameters } from './vitality.ts'

export type HaltedDeathInput = {
  golemId: string
  profile: GolemProfile
  read: ObservedGolem
  vitalityParameters?: Partial<VitalityParameters>
  runtimeCostPerHour?: bigint
}

/**
 * Whether a halted Golem dies this minute: the plan of a tick on this observation says so. A grant that
 * ended while the owner's renewal is in force, or a disabled grant a signed adjustment replaces, is no
 * death (the tick that would switch to them is the work the halt stops).
 */
export function haltedDeathDue(input: HaltedDeathInput): boolean {
  const { profile, read } = input
  if (grantInForce(profile, read.timestamp) !== profile) return false
  if (adjustmentInForce(profile, read) !== profile) return false
  return planTick({ ...input, pending: { events: [], inFlightAmount: 0n } }).die
}
