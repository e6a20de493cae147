// The owner's gas grant to the new key a rotation waits for, answered beside the runway grant. The old
// gas grant names the old key only (its phase gate and its one recipient), so a rotated Golem without a
// new one could never top its key up again. The answer must be exactly the gas grant onboarding drafts:
// from the same owner account, for the same daily allowance, to the new key, from the runway answer's
// first period (the old key's grant pays until then) to the newest grant's end. Pure.
import type { Delegation, SmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import { isAddressEqual, type Address, type Hex } from 'viem'
import { decodeDelegationCaveats, type DecodedCaveat, type DecodedCaveatOf } from '../caveats/caveat.ts'
import type { BardoDeployment } from '../deployment.ts'
import { DelegationTree } from '../delegations/tree.ts'
import type { GolemProfile } from '../lifecycle/profile.ts'
import type { Refuse } from '../lifecycle/successorGrant.ts'
import { draftGasGrant, gasOfSigned } from './golemGrants.ts'

export type GasGrant = NonNullable<GolemProfile['gas']>

export type RotationGasInput = {
  profile: GolemProfile
  /** The owner's signed gas grant to the new key, as answered (absent when the owner sent none). */
  candidate: Delegation | undefined
  candidateHash: Hex | undefined
  deployment: BardoDeployment
  environment: SmartAccountsEnvironment
  /** The new key the rotation waits for. */
  to: Address
  /** The runway answer's first period and the newest grant's end: the new gas grant's window. */
  periodStart: bigint
  expiresAt: bigint
}

/** The old key's gas grant when it is the owner's direct one: only then is a new one answered. */
export function directGasGrant(profile: GolemProfile): GasGrant | undefined {
  return profile.gas && profile.gas.chain.length === 1 ? profile.gas : undefined
}

/** The gas grant to install beside the runway grant (none when the Golem had no direct one), or the refusal. */
export function checkRotationGasGrant(input: RotationGasInput, refuse: Refuse): GasGrant | undefined {
  const { candidate, to } = input
  const old = directGasGrant(input.profile)
  if (!old) {
    if (candidate) throw refuse('gas', 'must be absent: the Golem has no direct gas grant from the owner to carry to the new key')
    return undefined
  }
  if (!candidate || !input.candidateHash)
    throw refuse('gas', "must be the owner's gas grant to the new key: the old key's gas grant names the old key only")
  const current = old.chain[0]!
  if (!isAddressEqual(candidate.delegator, current.delegator))
    throw refuse('gas.delegator', `must be the owner's account ${current.delegator}`)
  if (!isAddressEqual(candidate.delegate, to)) throw refuse('gas.delegate', `must be the new key ${to}`)
  if (candidate.authority.toLowerCase() !== current.authority.toLowerCase())
    throw refuse('gas.authority', `must be ${current.authority}, the current gas grant's authority`)
  let caveats: DecodedCaveat[]
  try {
    caveats = decodeDelegationCaveats(candidate, input.deployment, input.environment)
  } catch (error) {
    throw refuse('gas.caveats', `must decode as the deployment's caveats: ${(error as Error).message}`)
  }
  const period = caveats.find((c): c is DecodedCaveatOf<'nativeTokenPeriodTransfer'> => c.type === 'nativeTokenPeriodTransfer')
  if (!period) throw refuse('gas.caveats', 'must carry a NativeTokenPeriodTransfer caveat: the gas allowance')
  if (period.periodAmount !== old.periodAmount)
    throw refuse(
      'gas.nativeTokenPeriodTransfer.periodAmount',
      `must be ${old.periodAmount}, the current gas grant's: a rotation moves the key only`,
    )
  if (period.startDate !== input.periodStart)
    throw refuse(
      'gas.nativeTokenPeriodTransfer.startDate',
      `must be ${input.periodStart}, the runway grant's first period: the old key's gas grant pays until then`,
    )
  const phase = caveats.find((c): c is DecodedCaveatOf<'golemPhase'> => c.type === 'golemPhase')
  if (!phase || phase.startTime === undefined) throw refuse('gas.caveats', 'must carry a golemPhase gate naming the new key')
  if (phase.endTime !== input.expiresAt)
    throw refuse('gas.golemPhase.endTime', `must be ${input.expiresAt}, the newest grant's end: a rotation moves the key only`)
  const drafted = phase.startTime
  // Everything else as drafted: plain transfers to the new key only, its phase gate naming it.
  const tree = new DelegationTree({ environment: input.environment, deployment: input.deployment, now: () => drafted })
  const expected = draftGasGrant(tree, {
    deployment: input.deployment,
    owner: current.delegator,
    golemKey: to,
    periodAmount: old.periodAmount,
    startDate: input.periodStart,
    expiresAt: input.expiresAt,
    now: drafted,
  }).delegation.caveats
  const same =
    expected.length === candidate.caveats.length &&
    expected.every(
      (c, i) =>
        isAddressEqual(c.enforcer, candidate.caveats[i]!.enforcer) &&
        c.terms.toLowerCase() === candidate.caveats[i]!.terms.toLowerCase() &&
        c.args.toLowerCase() === candidate.caveats[i]!.args.toLowerCase(),
    )
  if (!same)
    throw refuse(
      'gas.caveats',
      'must be exactly the drafted gas grant: the daily NativeTokenPeriodTransfer, plain transfers to the new key only, its phase gate naming the new key',
    )
  return gasOfSigned(
    input.deployment,
    { hash: input.candidateHash, delegation: candidate },
    { periodAmount: old.periodAmount, startDate: input.periodStart },
  )
}
