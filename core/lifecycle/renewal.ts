// Rules for replacing a Golem's runway grant with a fresh one (key rotation, the owner's renewal).
// Pure: functions/tick and the API carry the replacement out.

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
