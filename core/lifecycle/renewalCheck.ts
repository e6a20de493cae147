// Feed-the-Golem renewal: the owner signs a superseding runway grant (same delegate, a higher salt, a
// later end, nothing wider than the grant it follows) and submits it. The renewal starts where the newest
// grant ends: its first period is on the runway's grid after the period that grant ends in, so two of the
// owner's runway grants never pay in one period, and it waits in the profile's queue until then. This
// decides, off-chain and before anything is written, whether the candidate may follow. The owner's
// signature is checked by the edge (ERC-1271 / ERC-6492 against the owner's smart account). Pure.
import { isAddressEqual, type Hex } from 'viem'
import type { Delegation, SmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import { findAttenuationViolation } from '../caveats/attenuation.ts'
import { decodeDelegationCaveats, type DecodedCaveat } from '../caveats/caveat.ts'
import { caveatKey } from '../caveats/semantics.ts'
import type { BardoDeployment } from '../deployment.ts'
import { BardoError } from '../errors.ts'
import { latestGrant, type RunwayRenewal } from './grantInForce.ts'
import type { GolemProfile } from './profile.ts'
import { renewalStart } from './renewal.ts'

export class RenewalError extends BardoError {
  readonly field: string
  constructor(field: string, rule: string, details: Record<string, unknown> = {}) {
    super('RENEWAL_REFUSED', `${field}: ${rule}`, { details: { field, rule, ...details } })
    this.field = field
  }
}

/** A valid renewal: the grant the Golem's runway continues with once the newest grant has ended. */
export type RenewedGrant = RunwayRenewal & { chain: Delegation[]; chainHashes: Hex[] }

export type CheckRenewalInput = {
  profile: GolemProfile
  candidate: Delegation
  /** The candidate's hash (the kit's hashDelegation). */
  candidateHash: Hex
  deployment: BardoDeployment
  environment: SmartAccountsEnvironment
  /** Chain time now. */
  now: bigint
}

const isWindow = (c: DecodedCaveat) => c.type === 'mortalityTimeWindow' || c.type === 'timestamp'
/** The policy without its life window: a renewal may move the end, nothing else. */
const withoutWindow = (caveats: readonly DecodedCaveat[]): DecodedCaveat[] =>
  caveats
    .filter((c) => !isWindow(c))
    .map((c) =>
      c.type === 'golemPhase'
        ? ({
            type: 'golemPhase',
            golem: c.golem,
            ...(c.phaseMasks ? { phaseMasks: c.phaseMasks } : {}),
            ...(c.runway ? { runway: true } : {}),
          } as DecodedCaveat)
        : c,
    )

/**
 * Returns the grant to install, or throws RenewalError naming the field and the rule. Only direct
 * grants (one delegation from the owner's account) are renewed this way; the 7715 shape renews through
 * the owner's wallet.
 */
export function checkRenewal(input: CheckRenewalInput): RenewedGrant {
  const { profile, candidate, now } = input
  const latest = latestGrant(profile)
  if (latest.chain.length !== 1)
    throw new RenewalError('delegation', 'only a direct runway grant (one delegation) is renewed by submitting a superseding delegation')
  const current = latest.chain[0]!
  if (!isAddressEqual(candidate.delegator, current.delegator))
    throw new RenewalError('delegation.delegator', `must be the owner's account ${current.delegator}`)
  if (!isAddressEqual(candidate.delegate, profile.golemKey))
    throw new RenewalError('delegation.delegate', `must be the Golem's session key ${profile.golemKey}`)
  if (candidate.authority.toLowerCase() !== current.authority.toLowerCase())
    throw new RenewalError('delegation.authority', `must be ${current.authority}, the current grant's authority`)
  if (BigInt(candidate.salt) <= BigInt(current.salt))
    throw new RenewalError('delegation.salt', `must be greater than the current grant's salt ${current.salt}`)
  if (candidate.signature === '0x') throw new RenewalError('delegation.signature', "must be the owner's signature")

  let next: DecodedCaveat[]
  let old: DecodedCaveat[]
  try {
    next = decodeDelegationCaveats(candidate, input.deployment, input.environment)
    old = decodeDelegationCaveats(current, input.deployment, input.environment)
  } catch (cause) {
    throw new RenewalError('delegation.caveats', `must decode: ${cause instanceof Error ? cause.message : String(cause)}`)
  }

  // The life window: golemPhase's, for the same Golem, ending after the current end.
  const phase = next.find((c) => c.type === 'golemPhase')
  if (phase?.type !== 'golemPhase') throw new RenewalError('delegation.caveats', 'must hold a golemPhase caveat')
  if (!isAddressEqual(phase.golem, profile.golemKey))
    throw new RenewalError('golemPhase.golem', `must be the Golem's session key ${profile.golemKey}`)
  if (phase.endTime === undefined) throw new RenewalError('golemPhase.endTime', 'must carry the life window')
  if (phase.endTime <= latest.expiresAt)
    throw new RenewalError('golemPhase.endTime', `must be after the current grant's end ${latest.expiresAt}`)
  if (phase.endTime <= now) throw new RenewalError('golemPhase.endTime', `must be in the future (chain time ${now})`)

  // The runway: same token and period, on the current grant's period grid, from the first period the
  // newest grant no longer pays (and never one already under way).
  const period = next.find((c) => c.type === 'erc20PeriodTransfer')
  if (period?.type !== 'erc20PeriodTransfer') throw new RenewalError('delegation.caveats', 'must hold an ERC20PeriodTransfer caveat')
  if (!isAddressEqual(period.tokenAddress, profile.runway.token))
    throw new RenewalError('erc20PeriodTransfer.tokenAddress', `must be the runway token ${profile.runway.token}`)
  if (period.periodDuration !== profile.runway.periodDuration)
    throw new RenewalError('erc20PeriodTransfer.periodDuration', `must be ${profile.runway.periodDuration}, the current grant's period`)
  const first = renewalStart(profile, now)
  const onGrid =
    period.startDate >= profile.runway.periodStart && (period.startDate - profile.runway.periodStart) % profile.runway.periodDuration === 0n
  if (!onGrid || period.startDate < first) {
    throw new RenewalError(
      'erc20PeriodTransfer.startDate',
      `must be on the current grant's period grid at or after ${first}, where the current grant no longer pays, so no period is paid twice`,
      { earliest: first.toString() },
    )
  }
  if (phase.startTime !== undefined && phase.startTime > period.startDate)
    throw new RenewalError('golemPhase.startTime', `must not be after the runway's first period ${period.startDate}`)

  // Nothing wider than the grant it replaces, and nothing of it dropped.
  const violation = findAttenuationViolation(withoutWindow(next), [{ relation: 'parent', caveats: withoutWindow(old) }])
  if (violation) throw new RenewalError('delegation.caveats', violation.message, { attenuation: violation.details ?? {} })
  const kept = new Set(withoutWindow(next).map(caveatKey))
  const dropped = withoutWindow(old).find((c) => !kept.has(caveatKey(c)))
  if (dropped) throw new RenewalError('delegation.caveats', `must keep the current grant's ${dropped.type} caveat`)

  const periodCaveat = candidate.caveats.find((c) =>
    isAddressEqual(c.enforcer, input.environment.caveatEnforcers.ERC20PeriodTransferEnforcer as `0x${string}`),
  )!
  return {
    chain: [candidate],
    periodAmount: period.periodAmount,
    periodDelegationHash: input.candidateHash,
    periodTerms: periodCaveat.terms,
    chainHashes: [input.candidateHash],
    periodStart: period.startDate,
    expiresAt: phase.endTime,
  }
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
