// The owner's adjustment taking over: once the runway it supersedes reads disabled, the tick and
// permission health put it in place of the old grant instead of reading a revocation. The checks that
// admit an adjustment are core/lifecycle/adjustment.ts. Pure.
import type { GolemProfile } from './profile.ts'

/** The owner's narrower grant, waiting for the transaction that disables what it supersedes. */
export type PendingAdjustment = NonNullable<GolemProfile['adjustment']>

/**
 * The profile with the owner's adjustment in force, when the runway the adjustment supersedes reads
 * disabled: the adjustment becomes the runway and the superseded renewals go. Unchanged (the same object)
 * otherwise: without an adjustment a disabled runway is the owner's revocation.
 */
export function adjustmentInForce(profile: GolemProfile, read: { disabled: boolean }): GolemProfile {
  const a = profile.adjustment
  if (!a || !read.disabled) return profile
  if (!profile.runway.chainHashes.every((h) => a.supersedes.includes(h))) return profile
  const { supersedes: _supersedes, ...grant } = a
  const { adjustment: _adjustment, ...rest } = profile
  return {
    ...rest,
    runway: { ...profile.runway, ...grant },
    renewals: [],
    // The authority's end may have moved: its own expiry warning.
    known: { ...profile.known, expiringWarned: false },
  }
}
