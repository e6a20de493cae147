// Whether a Golem needs a tick this minute, decided by the heartbeat's walk from what it already holds:
// the Golem's record (listed and read in its page's batch) and the minute's chain observation. A Golem
// with nothing to do is not handed over at all: no invocation, no lease, no write. A tick runs only for
// work: a redemption, a phase change, a payment, a rotation, an expiry or death, or to finish what an
// earlier tick left in flight. Pure: app/heartbeat/walk.ts applies it; the tick decides the rest itself.
import { adjustmentInForce } from './adjustmentInForce.ts'
import { planGas } from './gasPlan.ts'
import { grantInForce } from './grantInForce.ts'
import { haltedDeathDue } from './haltedDeath.ts'
import { isHalted } from './heartbeatAnomaly.ts'
import type { ObservedGolem } from './observation.ts'
import { Phase } from './phase.ts'
import type { GolemProfile } from './profile.ts'
import { SELF_EXTENSION_BEATS_AHEAD } from './selfExtensionPlan.ts'
import { runwayAttemptFromRecord, planTick, ATTEMPTS_SPENT, tickPeriod } from './tickPlan.ts'
import type { VitalityParameters } from './vitality.ts'

/** Why the walk hands a Golem over; null (no reason) is an idle Golem, which is not ticked. */
export type TickReason =
  /** Its first tick: nothing has been recorded for it yet. */
  | 'first-tick'
  /** The last tick never finished, or left a transaction in flight: the next one settles it. */
  | 'in-flight'
  /** The death protocol is running, or the Golem dies this minute (Terminal, grant ended, revoked). */
  | 'death'
  | 'reprieve'
  /** The owner's queued renewal comes into force, or a signed adjustment replaces a disabled grant. */
  | 'grant-change'
  /** A rotation is in flight, or the key has reached its maximum age. */
  | 'rotation'
  | 'phase-change'
  | 'redemption'
  | 'gas'
  /** A report to write once: revocation, expiry warning, budget warning, renewal request. */
  | 'report'
  /** A new runway period: the once-a-period repair of payment credits runs, and the period is recorded. */
  | 'new-period'
  /** A self-extending Golem's paid TTL is within its horizon: it buys runtime. */
  | 'payment'

/** What the tick is configured with, as far as its decisions depend on it. */
export type TickNeedParameters = {
  /** Seconds between beats (the tick interval): a self-extending Golem's horizon is counted in them. */
  beatSeconds: bigint
  vitalityParameters?: Partial<VitalityParameters>
  /** The runtime's price when the ticks buy their Golems' runtime (self-extension); absent otherwise. */
  selfExtension?: { runtimeCostPerHour: bigint; marginSeconds?: bigint }
  /** A key's maximum age when the ticks rotate keys; absent when they do not. */
  rotationMaxAgeSeconds?: number
}

export type TickNeedInput = {
  golemId: string
  record: { status: 'alive' | 'dying' | 'dead'; lastTick: { period: bigint; outcome: string } | null }
  profile: GolemProfile
  read: ObservedGolem
  parameters: TickNeedParameters
}

/**
 * Outcomes a tick records that leave nothing in flight. Anything else (`running`: the tick never
 * finished; `sent`, `busy`: a transaction or a slot still open) hands the Golem over to settle it.
 */
const SETTLED_OUTCOMES: ReadonlySet<string> = new Set([
  'ticked',
  'confirmed',
  'skipped',
  'revoke',
  'failed',
  'refused',
  'reconciled',
  ATTEMPTS_SPENT,
])

export function tickNeed(input: TickNeedInput): TickReason | null {
  const { golemId, record, profile, read, parameters } = input
  if (record.status === 'dead') return null
  const last = record.lastTick
  // What the plan is judged with beside the observation, here and for a halted Golem's death alike.
  const runtimeCostPerHour = parameters.selfExtension?.runtimeCostPerHour
  const judged = {
    golemId,
    profile,
    read,
    ...(parameters.vitalityParameters ? { vitalityParameters: parameters.vitalityParameters } : {}),
    ...(runtimeCostPerHour === undefined ? {} : { runtimeCostPerHour }),
  }
  // Halted: only its death is ticked (core/lifecycle/haltedDeath.ts); a death the halt caught midway stays halted.
  if (isHalted(last)) return record.status === 'alive' && haltedDeathDue(judged) ? 'death' : null
  if (record.status === 'dying') return 'death'
  if (last === null) return 'first-tick'
  if (!SETTLED_OUTCOMES.has(last.outcome)) return 'in-flight'
  if (profile.pendingRotation || profile.rotationGrant) return 'rotation'
  if (profile.reprieve && read.registered) return 'reprieve'
  if (grantInForce(profile, read.timestamp) !== profile) return 'grant-change'
  if (adjustmentInForce(profile, read) !== profile) return 'grant-change'
  // A period whose runway attempts were all spent asks for no redemption until the next period.
  const runwayAttempt = runwayAttemptFromRecord(last, tickPeriod(profile, read))
  const plan = planTick({ ...judged, pending: { events: [], inFlightAmount: 0n, ...(runwayAttempt ? { runwayAttempt } : {}) } })
  if (plan.die) return 'death'
  if (plan.postPhase) return 'phase-change'
  if (plan.runway.kind === 'redeem') return 'redemption'
  if (plan.events.length > 0) return 'report'
  if (planGas(profile, read, false).kind === 'redeem') return 'gas'
  if (tickPeriod(profile, read) !== last.period) return 'new-period'
  if (selfExtensionDue(profile, read, parameters)) return 'payment'
  // A rotation waits while the period's runway is staggered (the old key redeems it first): its tick comes then.
  const staggered = plan.runway.kind === 'none' && plan.runway.redeemAt !== undefined
  if (!staggered && rotationDue(profile, read, parameters)) return 'rotation'
  return null
}

/** The paid TTL within the self-extension horizon (the beats ahead and the margin), before Terminal. */
function selfExtensionDue(profile: GolemProfile, read: ObservedGolem, parameters: TickNeedParameters): boolean {
  const extension = parameters.selfExtension
  if (!extension || !read.registered || read.phase >= Phase.Terminal) return false
  const margin = extension.marginSeconds ?? parameters.beatSeconds
  return profile.life.runwayEndsAt < read.timestamp + SELF_EXTENSION_BEATS_AHEAD * parameters.beatSeconds + margin
}

/**
 * The key's age since it took over against the maximum age. Its operation count only grows in ticks that
 * sign, and each of those asks the key's full policy itself.
 */
function rotationDue(profile: GolemProfile, read: ObservedGolem, parameters: TickNeedParameters): boolean {
  const maxAge = parameters.rotationMaxAgeSeconds
  if (maxAge === undefined || !read.registered) return false
  const since = profile.keyGrantedAt ?? profile.life.bornAt
  return read.timestamp - since >= BigInt(maxAge)
}
