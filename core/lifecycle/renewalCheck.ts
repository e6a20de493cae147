// Feed-the-Golem renewal: the owner signs a superseding runway grant (same delegate, a higher salt, a
// later end, nothing wider than the grant it follows) and submits it. The renewal starts where the newest
// grant ends: its first period is on the runway's grid after the period that grant ends in, so two of the
// owner's runway grants never pay in one period, and it waits in the profile's queue until then. This
// decides, off-chain and before anything is written, whether the candidate may follow. The owner's
// signature is checked by the edge (ERC-1271 / ERC-6492 against the owner's smart account). Pure.
import type { Hex } from 'viem'
import type { Delegation } from '@metamask/smart-accounts-kit'
import { BardoError } from '../errors.ts'
import { latestGrant, type RunwayRenewal } from './grantInForce.ts'
import type { GolemProfile } from './profile.ts'
import { renewalStart } from './renewal.ts'
import { checkSuccessorGrant, storedGrant, type Refuse, type SuccessorInput } from './successorGrant.ts'

export class RenewalError extends BardoError {
  readonly field: string
  constructor(field: string, rule: string, details: Record<string, unknown> = {}) {
    super('RENEWAL_REFUSED', `${field}: ${rule}`, { details: { field, rule, ...details } })
    this.field = field
  }
}

/** A valid renewal: the grant the Golem's runway continues with once the newest grant has ended. */
export type RenewedGrant = RunwayRenewal & { chain: Delegation[]; chainHashes: Hex[] }

export type CheckRenewalInput = SuccessorInput

const refuse: Refuse = (field, rule, details) => new RenewalError(field, rule, details)

/**
 * Returns the grant to install, or throws RenewalError naming the field and the rule. Only direct
 * grants (one delegation from the owner's account) are renewed this way; the 7715 shape renews through
 * the owner's wallet.
 */
export function checkRenewal(input: CheckRenewalInput): RenewedGrant {
  const { profile, now } = input
  if (profile.adjustment)
    throw refuse(
      'delegation',
      "must wait for the owner's pending adjustment: send the transaction that disables the grant it replaces first",
    )
  const latest = latestGrant(profile)
  // The life window ends later; the runway starts from the first period the newest grant no longer pays
  // (and never one already under way).
  const grant = checkSuccessorGrant(input, refuse, latest, (w) => {
    if (w.expiresAt <= latest.expiresAt) throw refuse('golemPhase.endTime', `must be after the current grant's end ${latest.expiresAt}`)
    const first = renewalStart(profile, now)
    if (w.periodStart < first) {
      throw refuse(
        'erc20PeriodTransfer.startDate',
        `must be on the current grant's period grid at or after ${first}, where the current grant no longer pays, so no period is paid twice`,
        { earliest: first.toString() },
      )
    }
  })
  return storedGrant(grant)
}

/**
 * The profile with the renewal queued after the newest grant: the tick puts it in force once that grant
 * has ended (core/lifecycle/grantInForce.ts), and redeems under the old grant until then.
 */
export function installRenewal(profile: GolemProfile, grant: RenewedGrant): GolemProfile {
  const renewal = { ...grant, chain: grant.chain.map((d) => ({ ...d, caveats: d.caveats.map((c) => ({ ...c })) })) }
  return {
    ...profile,
    renewals: [...profile.renewals, renewal],
    // The authority's end moved: its own expiry warning; a renewal request only if it still falls short.
    known: { revokedReported: profile.known.revokedReported, expiringWarned: false, budgetWarnedPeriod: profile.known.budgetWarnedPeriod },
  }
}
