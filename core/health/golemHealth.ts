// The one health verdict for a Golem: the tick (and so the console line), the API's permission health,
// the Snap status and anything else that shows health call this, from the same facts. It judges the
// grant by what the Golem still needs: a Golem that has redeemed its planned allowance for the period
// is not short of anything, a dead Golem is dead, and an owner's revocation is a revocation. The
// reason comes with the status. Pure.
import { isAddressEqual, type Address } from 'viem'
import { Phase, phaseMultiplierBps, phaseNames } from '../lifecycle/phase.ts'
import { revocationState, totalRemaining, type PermissionFacts, type RevocationState } from './permissionHealth.ts'

export type GolemHealthStatus = 'healthy' | 'low' | 'critical' | 'revoked' | 'dead'

export type GolemLifecycleStatus = 'alive' | 'dying' | 'dead'

/** The owner's grant ends before the runway the Golem has (paid extensions): it asks the owner to renew. */
export type RenewalRequest = {
  reason: 'grant-ends-before-runway'
  /** The grant's end (the life window's end), unix seconds. */
  grant_ends_at: number
  /** The Golem's TTL (its runway, moved by paid extensions), unix seconds. */
  runway_ends_at: number
  /** Seconds of grant left (0 once it ended). */
  seconds_left: number
  /** The same in days, to two decimals. */
  days_left: number
}

/**
 * A key rotation only the owner can complete (a direct grant): until the owner's grant to the new key is
 * installed, the Golem keeps its old key. `answered`: the owner's grant arrived and the next tick installs it.
 */
export type RotationWait = {
  status: 'awaiting-owner' | 'answered'
  /** The key the Golem keeps meanwhile. */
  old_key: Address
  /** The key the rotation waits to install. */
  new_key: Address
  /** When the tick first asked the owner, unix seconds. */
  requested_at: number
}

export type GolemHealthInput = {
  facts: PermissionFacts
  lifecycle: GolemLifecycleStatus
  /** The phase whose multiplier plans this period's redemption. */
  phase: Phase
  /** The Golem's TTL: `life.runwayEndsAt`. */
  runwayEndsAt: bigint
  /** The profile's facts of a rotation that waits for the owner, if one does. */
  rotation?: { from: Address; to: Address; requestedAt: bigint; answered: boolean }
}

export type GolemHealth = {
  health: GolemHealthStatus
  /** Why, in one sentence. */
  reason: string
  revocation: RevocationState
  /** Token units still redeemable this period (6 decimals for USDC), decimal string. */
  remaining_today: string
  /** Whole days until the grant ends. */
  days_remaining: number
  last_redemption_at: number
  total_remaining: string
  grant_ends_at: number
  runway_ends_at: number
  renewal: RenewalRequest | null
  rotation: RotationWait | null
}

/**
 * Thresholds in runway periods (a day on a daily grant, so they read as the familiar "7 days / 1 day"):
 * healthy needs more than seven periods of grant left; under one period left is critical. The period
 * budget alone never makes a Golem critical: the phase multiplier plans at most the period cap, so
 * what the enforcer still allows always covers what the Golem still plans, and an allowance already
 * redeemed is the plan working, not a shortage.
 */
export const golemHealthThresholds = { healthyMinPeriods: 7n, criticalPeriods: 1n } as const

/** What the Golem still plans to redeem this period at its phase's multiplier (0 once it has taken it). */
export function stillNeededInPeriod(f: PermissionFacts, phase: Phase): bigint {
  const planned = (f.periodAmount * phaseMultiplierBps[phase]) / 10_000n
  const taken = f.periodAmount > f.availableInPeriod ? f.periodAmount - f.availableInPeriod : 0n
  return planned > taken ? planned - taken : 0n
}

export function renewalRequestOf(f: PermissionFacts, runwayEndsAt: bigint): RenewalRequest | null {
  if (f.expiresAt >= runwayEndsAt) return null
  const secondsLeft = f.expiresAt > f.now ? f.expiresAt - f.now : 0n
  return {
    reason: 'grant-ends-before-runway',
    grant_ends_at: Number(f.expiresAt),
    runway_ends_at: Number(runwayEndsAt),
    seconds_left: Number(secondsLeft),
    days_left: Math.floor(Number(secondsLeft) / 864) / 100,
  }
}

export function golemHealth(input: GolemHealthInput): GolemHealth {
  const f = input.facts
  const revocation = revocationState(f)
  const active = revocation.kind === 'Active'
  const secondsLeft = f.expiresAt > f.now ? f.expiresAt - f.now : 0n
  const renewal = input.lifecycle === 'dead' || revocation.kind === 'RevokedByOwner' ? null : renewalRequestOf(f, input.runwayEndsAt)
  const needed = stillNeededInPeriod(f, input.phase)
  const available = active ? f.availableInPeriod : 0n
  const period = f.periodDuration > 0n ? f.periodDuration : 1n
  const renewNote = renewal ? '; renewal requested' : ''

  let health: GolemHealthStatus
  let reason: string
  if (input.lifecycle === 'dead') [health, reason] = ['dead', 'the Golem is dead']
  else if (revocation.kind === 'RevokedByOwner') [health, reason] = ['revoked', 'the owner revoked the grant']
  else if (revocation.kind === 'Expired') [health, reason] = ['critical', `the grant ended${renewNote}`]
  else if (revocation.kind === 'Exhausted') [health, reason] = ['critical', 'the grant has no calls left']
  else if (input.lifecycle === 'dying') [health, reason] = ['critical', 'the death protocol is running']
  else if (secondsLeft < golemHealthThresholds.criticalPeriods * period)
    [health, reason] = ['critical', `the grant ends within one period${renewNote}`]
  else if (secondsLeft <= golemHealthThresholds.healthyMinPeriods * period)
    [health, reason] = ['low', `the grant ends within ${golemHealthThresholds.healthyMinPeriods} periods${renewNote}`]
  else
    [health, reason] = [
      'healthy',
      needed === 0n ? "this period's planned allowance is redeemed" : "this period's planned allowance is available",
    ]

  // A rotation that waits for the owner is said whatever else is true of a living, unrevoked Golem: its
  // old key keeps working meanwhile, so it changes the verdict of nothing else.
  const waiting = input.rotation
  const rotation: RotationWait | null =
    waiting && input.lifecycle !== 'dead' && revocation.kind !== 'RevokedByOwner'
      ? {
          status: waiting.answered ? 'answered' : 'awaiting-owner',
          old_key: waiting.from,
          new_key: waiting.to,
          requested_at: Number(waiting.requestedAt),
        }
      : null
  if (rotation)
    reason +=
      rotation.status === 'answered'
        ? "; the owner's grant to the new key arrived: the next tick switches to it"
        : "; its key rotation waits for the owner's grant to the new key: it keeps its old key meanwhile"

  return {
    health,
    reason,
    revocation,
    remaining_today: available.toString(),
    days_remaining: Number(secondsLeft / 86_400n),
    last_redemption_at: Number(f.lastRedemptionAt ?? 0n),
    total_remaining: (active ? totalRemaining(f) : 0n).toString(),
    grant_ends_at: Number(f.expiresAt),
    runway_ends_at: Number(input.runwayEndsAt),
    renewal,
    rotation,
  }
}

/** The rotation-wait facts of a profile for golemHealth, when a rotation waits for the owner. */
export function rotationWaitOf(profile: {
  golemKey: Address
  rotationAwaits?: { to: Address; requestedAt: bigint } | undefined
  rotationGrant?: { to: Address } | undefined
}): GolemHealthInput['rotation'] {
  const awaits = profile.rotationAwaits
  if (!awaits) return undefined
  const answered = profile.rotationGrant !== undefined && isAddressEqual(profile.rotationGrant.to, awaits.to)
  return { from: profile.golemKey, to: awaits.to, requestedAt: awaits.requestedAt, answered }
}

/** The Phase for a phase name from the store (`Thriving`, ...), Thriving when unknown. */
export function phaseOfName(name: string): Phase {
  const index = (phaseNames as readonly string[]).indexOf(name)
  return (index < 0 ? Phase.Thriving : index) as Phase
}
