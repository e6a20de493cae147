// Which of the owner's runway grants is in force. A renewal never overlaps the grant it renews: it waits
// in the profile's queue and starts on the period grid at or after that grant's end, so at most one of
// the owner's runway grants can pay in any period. Pure: the tick calls it with the chain time it read.
import type { GolemProfile } from './profile.ts'

export type RunwayRenewal = GolemProfile['renewals'][number]

/**
 * The profile with the grant in force at `now` as its runway: once the runway's end has passed, the first
 * queued renewal takes its place (its own periods may start a little later, on the grid). Unchanged (the
 * same object) when nothing moves.
 */
export function grantInForce(profile: GolemProfile, now: bigint): GolemProfile {
  let current = profile
  while (current.renewals.length > 0 && now > current.runway.expiresAt) {
    const [next, ...rest] = current.renewals as [RunwayRenewal, ...RunwayRenewal[]]
    current = { ...current, runway: { ...current.runway, ...next }, renewals: rest }
  }
  return current
}

/** The newest of the owner's runway grants: the one a further renewal must start after. */
export function latestGrant(profile: GolemProfile): Omit<RunwayRenewal, 'periodAmount'> & { periodAmount: bigint } {
  return profile.renewals.at(-1) ?? profile.runway
}

/** When the owner's authority ends: the end of the newest grant (the runway's, or the last renewal's). */
export function grantEndOf(profile: GolemProfile): bigint {
  return latestGrant(profile).expiresAt
}

/**
 * The runway as one grant to the newest end, for a key rotation that has the runway re-signed to a new
 * key: the queued renewals name the old key and go with it, and the new key's grant covers their time
 * too, at the lowest of their period amounts (a rotation never widens what the owner signed).
 */
export function withRenewalsFolded(profile: GolemProfile): GolemProfile {
  if (profile.renewals.length === 0) return profile
  const periodAmount = profile.renewals.reduce((m, r) => (r.periodAmount < m ? r.periodAmount : m), profile.runway.periodAmount)
  return { ...profile, runway: { ...profile.runway, expiresAt: grantEndOf(profile), periodAmount }, renewals: [] }
}
