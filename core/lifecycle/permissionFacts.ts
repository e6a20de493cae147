// The permission facts of a Golem's runway grant, from its profile and one chain read. Pure; the tick
// decides from them and the API's permission health classifies them, so both see the same facts.
import type { PermissionFacts } from '../health/permissionHealth.ts'
import { grantEndOf } from './grantInForce.ts'
import type { GolemProfile } from './profile.ts'

/** What the batched chain read reports about the runway delegation. */
export type RunwayRead = { timestamp: bigint; disabled: boolean; availableInPeriod: bigint; currentPeriod: bigint }

export function permissionFactsOf(profile: GolemProfile, read: RunwayRead, lastRedemptionAt?: bigint): PermissionFacts {
  const r = profile.runway
  // The period enforcer counts periods from 1; period n starts at periodStart + (n - 1) * duration.
  const periodIndex = read.currentPeriod > 0n ? read.currentPeriod - 1n : 0n
  return {
    now: read.timestamp,
    disabled: read.disabled,
    // The owner's authority runs to the newest grant's end: a queued renewal starts where the runway ends.
    expiresAt: grantEndOf(profile),
    periodAmount: r.periodAmount,
    periodDuration: r.periodDuration,
    availableInPeriod: read.availableInPeriod,
    currentPeriodStart: r.periodStart + periodIndex * r.periodDuration,
    ...(lastRedemptionAt === undefined ? {} : { lastRedemptionAt }),
  }
}
