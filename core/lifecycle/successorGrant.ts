// What every grant that follows the owner's runway grant must be, whether it renews it (a later window)
// or adjusts it (a lower period amount or an earlier end): a direct grant from the same owner account to
// the same key under the same authority, with a higher salt, the same token and period on the same
// period grid, nothing wider than the grant it follows and nothing of it dropped. Only the life window may
// move; the renewal and adjustment rules say where to. Pure.
import { isAddressEqual, type Address, type Hex } from 'viem'
import type { Delegation, SmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import { findAttenuationViolation } from '../caveats/attenuation.ts'
import { decodeDelegationCaveats, type DecodedCaveat } from '../caveats/caveat.ts'
import { caveatKey } from '../caveats/semantics.ts'
import type { BardoDeployment } from '../deployment.ts'
import type { BardoError } from '../errors.ts'
import type { latestGrant, RunwayRenewal } from './grantInForce.ts'
import type { GolemProfile } from './profile.ts'

export type SuccessorInput = {
  profile: GolemProfile
  candidate: Delegation
  /** The candidate's hash (the kit's hashDelegation). */
  candidateHash: Hex
  deployment: BardoDeployment
  environment: SmartAccountsEnvironment
  /** Chain time now. */
  now: bigint
  /**
   * The key the successor is granted to: the Golem's session key, or the new key a rotation waits for
   * (then the grant it follows is compared as if it had named that key).
   */
  key?: Address
}

/** A runway grant that may follow the current one, with its window and period as signed. */
export type SuccessorGrant = RunwayRenewal & { chain: Delegation[]; chainHashes: Hex[]; salt: bigint }

/** Builds the refusal: names the field and the rule. */
export type Refuse = (field: string, rule: string, details?: Record<string, unknown>) => BardoError

const isWindow = (c: DecodedCaveat) => c.type === 'mortalityTimeWindow' || c.type === 'timestamp'
/** The policy without its life window: a successor may move the end, nothing else (its phase gate names `key`). */
const withoutWindow = (caveats: readonly DecodedCaveat[], key?: Address): DecodedCaveat[] =>
  caveats
    .filter((c) => !isWindow(c))
    .map((c) =>
      c.type === 'golemPhase'
        ? ({
            type: 'golemPhase',
            golem: key ?? c.golem,
            ...(c.phaseMasks ? { phaseMasks: c.phaseMasks } : {}),
            ...(c.runway ? { runway: true } : {}),
          } as DecodedCaveat)
        : c,
    )

/** Where the successor's window and first period may lie: the renewal's rule or the adjustment's. */
export type WindowRule = (window: { periodStart: bigint; expiresAt: bigint; periodAmount: bigint }) => void

/**
 * Checks what every successor must be, and returns it with its window and period as signed; throws the
 * refusal `refuse` builds. `after` is the grant it follows (the newest: the salt must pass it); `window`
 * judges where it lies once its period grid is known. Only direct grants (one delegation from the
 * owner's account) are followed this way; the ERC-7715 shape is changed in the owner's wallet.
 */
export function checkSuccessorGrant(
  input: SuccessorInput,
  refuse: Refuse,
  after: ReturnType<typeof latestGrant>,
  window: WindowRule,
): SuccessorGrant {
  const { profile, candidate, now } = input
  const key = input.key ?? profile.golemKey
  if (after.chain.length !== 1)
    throw refuse('delegation', 'only a direct runway grant (one delegation) is followed by submitting a superseding delegation')
  const current = after.chain[0]!
  if (!isAddressEqual(candidate.delegator, current.delegator))
    throw refuse('delegation.delegator', `must be the owner's account ${current.delegator}`)
  if (!isAddressEqual(candidate.delegate, key)) throw refuse('delegation.delegate', `must be the Golem's session key ${key}`)
  if (candidate.authority.toLowerCase() !== current.authority.toLowerCase())
    throw refuse('delegation.authority', `must be ${current.authority}, the current grant's authority`)
  if (BigInt(candidate.salt) <= BigInt(current.salt))
    throw refuse('delegation.salt', `must be greater than the current grant's salt ${current.salt}`)
  if (candidate.signature === '0x') throw refuse('delegation.signature', "must be the owner's signature")

  let next: DecodedCaveat[]
  let old: DecodedCaveat[]
  try {
    next = decodeDelegationCaveats(candidate, input.deployment, input.environment)
    old = decodeDelegationCaveats(current, input.deployment, input.environment)
  } catch (cause) {
    throw refuse('delegation.caveats', `must decode: ${cause instanceof Error ? cause.message : String(cause)}`)
  }

  const phase = next.find((c) => c.type === 'golemPhase')
  if (phase?.type !== 'golemPhase') throw refuse('delegation.caveats', 'must hold a golemPhase caveat')
  if (!isAddressEqual(phase.golem, key)) throw refuse('golemPhase.golem', `must be the Golem's session key ${key}`)
  if (phase.endTime === undefined) throw refuse('golemPhase.endTime', 'must carry the life window')

  const period = next.find((c) => c.type === 'erc20PeriodTransfer')
  if (period?.type !== 'erc20PeriodTransfer') throw refuse('delegation.caveats', 'must hold an ERC20PeriodTransfer caveat')
  if (!isAddressEqual(period.tokenAddress, profile.runway.token))
    throw refuse('erc20PeriodTransfer.tokenAddress', `must be the runway token ${profile.runway.token}`)
  if (period.periodDuration !== profile.runway.periodDuration)
    throw refuse('erc20PeriodTransfer.periodDuration', `must be ${profile.runway.periodDuration}, the current grant's period`)
  const onGrid =
    period.startDate >= profile.runway.periodStart && (period.startDate - profile.runway.periodStart) % profile.runway.periodDuration === 0n
  if (!onGrid)
    throw refuse(
      'erc20PeriodTransfer.startDate',
      `must be on the current grant's period grid (${profile.runway.periodStart} + n × ${profile.runway.periodDuration})`,
    )
  window({ periodStart: period.startDate, expiresAt: phase.endTime, periodAmount: period.periodAmount })
  if (phase.endTime <= now) throw refuse('golemPhase.endTime', `must be in the future (chain time ${now})`)
  if (phase.startTime !== undefined && phase.startTime > period.startDate)
    throw refuse('golemPhase.startTime', `must not be after the runway's first period ${period.startDate}`)

  // Nothing wider than the grant it follows, and nothing of it dropped.
  const violation = findAttenuationViolation(withoutWindow(next), [{ relation: 'parent', caveats: withoutWindow(old, key) }])
  if (violation) throw refuse('delegation.caveats', violation.message, { attenuation: violation.details ?? {} })
  const kept = new Set(withoutWindow(next).map(caveatKey))
  const dropped = withoutWindow(old, key).find((c) => !kept.has(caveatKey(c)))
  if (dropped) throw refuse('delegation.caveats', `must keep the current grant's ${dropped.type} caveat`)

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
    salt: BigInt(candidate.salt),
  }
}

/** The grant as the profile keeps it: the chain copied, no salt (the delegation carries it). */
export function storedGrant(grant: SuccessorGrant): RunwayRenewal {
  const { salt: _salt, ...rest } = grant
  return { ...rest, chain: grant.chain.map((d) => ({ ...d, caveats: d.caveats.map((c) => ({ ...c })) })) }
}
