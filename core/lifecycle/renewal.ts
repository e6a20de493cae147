// Rules for replacing a Golem's runway grant with a fresh one (key rotation, the owner's renewal).
// Pure: functions/tick and the API carry the replacement out.
import { latestGrant } from './grantInForce.ts'
import type { GolemProfile } from './profile.ts'

/**
 * The period grid a replacement grant starts on: the old grant's next period boundary at or after
 * `now`, so it keeps the old grid and never reopens the period the old grant already paid.
 */
export function nextPeriodBoundary(periodStart: bigint, periodDuration: bigint, now: bigint): bigint {
  if (periodDuration <= 0n) throw new RangeError(`periodDuration: must be greater than 0, got ${periodDuration}`)
  if (now < periodStart) return periodStart
  return periodStart + ((now - periodStart) / periodDuration + 1n) * periodDuration
}

/**
 * Whether a rotation can hand the rest of the grant to a new key: the renewed grant starts at
 * `startAt` and must end after it. In the grant's last period there is nothing left to hand over, and
 * signing a grant whose window ends before it starts would fail on every tick until the Golem dies.
 */
export function rotationFitsGrant(startAt: bigint, grantEndsAt: bigint): boolean {
  return startAt < grantEndsAt
}

/**
 * Where an owner's renewal starts: the first period boundary after the newest grant's end (its end is
 * inclusive, so the period it ends in is still its own to pay), and never before the next boundary after
 * `now`, so no period already under way is paid twice.
 */
export function renewalStart(profile: GolemProfile, now: bigint): bigint {
  const { periodStart, periodDuration } = profile.runway
  const afterLatest = nextPeriodBoundary(periodStart, periodDuration, latestGrant(profile).expiresAt)
  const afterNow = nextPeriodBoundary(periodStart, periodDuration, now)
  return afterLatest > afterNow ? afterLatest : afterNow
}

/**
 * The inclusive end of a window of `seconds` from `start`: its last second. A grant that ends on the last
 * second of a period leaves the next period whole to the grant that follows it: no gap, and no second in
 * which both could pay.
 */
export function windowEnd(start: bigint, seconds: bigint): bigint {
  if (seconds <= 0n) throw new RangeError(`seconds: must be greater than 0, got ${seconds}`)
  return start + seconds - 1n
}

/**
 * An owner's renewal of `seconds` (rounded up to whole periods): from renewalStart to the last second of
 * its last period.
 */
export function renewalWindow(profile: GolemProfile, now: bigint, seconds: bigint): { startDate: bigint; endTime: bigint } {
  const { periodDuration } = profile.runway
  const startDate = renewalStart(profile, now)
  const periods = (seconds + periodDuration - 1n) / periodDuration
  return { startDate, endTime: windowEnd(startDate, (periods > 0n ? periods : 1n) * periodDuration) }
}
