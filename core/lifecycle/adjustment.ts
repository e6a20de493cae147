// The owner's adjustment of a Golem's runway grant without revoking it: a narrower grant (a lower period
// amount, an earlier end, or both) that supersedes the grant in force. The owner signs it, then disables
// the grants it supersedes in one transaction from the owner's account; until that transaction lands the
// old grant stays in force and the narrower one waits in the profile. Once the runway reads disabled, the
// tick (and permission health) put the adjustment in its place instead of reading a revocation; a
// revocation of everything disables the adjustment too, and its re-read then says so.
//
// The tick's half (the adjustment taking over) is core/lifecycle/adjustmentInForce.ts, kept apart so the
// tick's bundle carries no grant checks. The adjustment starts at the first boundary of the runway's
// period grid after it was signed: the period under way stays the old grant's (so the chain never allows
// more in it than the old grant did), and the tick's runway slots are keyed by the grid's absolute
// period, so no period is redeemed twice. Pure.
import type { Hex } from 'viem'
import { BardoError } from '../errors.ts'
import { latestGrant } from './grantInForce.ts'
import { toDelegations, type GolemProfile } from './profile.ts'
import type { PendingAdjustment } from './adjustmentInForce.ts'
import type { OwnerGrant } from '../custody/grantLedger.ts'
import { nextPeriodBoundary } from './renewal.ts'
import { checkSuccessorGrant, storedGrant, type Refuse, type SuccessorInput } from './successorGrant.ts'

export class AdjustmentError extends BardoError {
  readonly field: string
  constructor(field: string, rule: string, details: Record<string, unknown> = {}) {
    super('ADJUSTMENT_REFUSED', `${field}: ${rule}`, { details: { field, rule, ...details } })
    this.field = field
  }
}

const refuse: Refuse = (field, rule, details) => new AdjustmentError(field, rule, details)

/** The grants an adjustment supersedes, labelled: the runway, its queued renewals, an earlier pending adjustment. */
function superseded(profile: GolemProfile): { label: string; chain: GolemProfile['runway']['chain']; chainHashes: readonly string[] }[] {
  return [
    { label: 'runway', ...profile.runway },
    ...profile.renewals.map((r) => ({ label: 'runway renewal', ...r })),
    ...(profile.adjustment ? [{ label: 'runway adjustment', ...profile.adjustment }] : []),
  ]
}

/** Every hash the owner's adjustment supersedes. */
export function supersededBy(profile: GolemProfile): Hex[] {
  return superseded(profile).flatMap((g) => g.chainHashes) as Hex[]
}

/** The grants an adjustment supersedes, as the owner signed them: what the owner's transaction disables. */
export function supersededGrants(profile: GolemProfile): OwnerGrant[] {
  return superseded(profile).flatMap((g) =>
    toDelegations(g.chain).map((delegation) => ({ kind: 'runway' as const, label: g.label, delegation })),
  )
}

/** Where an adjustment signed at `now` starts: the first boundary of the runway's grid after now. */
export function adjustmentStart(profile: GolemProfile, now: bigint): bigint {
  return nextPeriodBoundary(profile.runway.periodStart, profile.runway.periodDuration, now)
}

/**
 * Returns the pending adjustment to store, or throws AdjustmentError naming the field and the rule. It
 * must follow the newest grant the owner signed for the runway (a pending adjustment included), lower the
 * period amount or end earlier than the grant in force, and start at the first boundary after now,
 * ending no earlier than that start.
 */
export function checkAdjustment(input: SuccessorInput): PendingAdjustment {
  const { profile, now } = input
  if (profile.runway.nonce) throw refuse('delegation', "an ERC-7715 grant is adjusted in the owner's wallet")
  if (profile.pendingRotation) throw refuse('delegation', 'must wait: a key rotation is under way')
  // It follows the newest grant the owner signed (a pending adjustment it replaces included): a higher
  // salt, nothing wider than it. Only narrower adjustments replace a pending one.
  const end = latestGrant(profile).expiresAt
  const grant = checkSuccessorGrant(input, refuse, profile.adjustment ?? latestGrant(profile), (w) => {
    if (w.expiresAt > end) throw refuse('golemPhase.endTime', `must not be after the current grant's end ${end}: an adjustment narrows`)
    if (w.periodAmount > profile.runway.periodAmount)
      throw refuse('erc20PeriodTransfer.periodAmount', `must not be above the current period amount ${profile.runway.periodAmount}`)
    if (w.periodAmount === profile.runway.periodAmount && w.expiresAt === end)
      throw refuse('delegation', 'must lower the period amount or end earlier than the current grant')
    const start = adjustmentStart(profile, now)
    if (w.periodStart !== start)
      throw refuse(
        'erc20PeriodTransfer.startDate',
        `must be ${start}, the next boundary of the current grant's period grid: the period under way stays the current grant's`,
        { earliest: start.toString() },
      )
    if (w.expiresAt < w.periodStart)
      throw refuse('golemPhase.endTime', `must not be before the adjusted grant's first period ${w.periodStart}`)
  })
  return { ...storedGrant(grant), supersedes: supersededBy(profile) }
}

/** The profile with the adjustment waiting for the owner's transaction (a newer one replaces an older). */
export function installAdjustment(profile: GolemProfile, adjustment: PendingAdjustment): GolemProfile {
  return { ...profile, adjustment }
}
