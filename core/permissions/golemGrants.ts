// The owner's grants to a Golem as onboarding drafts them, before anyone signs: the runway (USDC per
// period), gas (ETH per period, plain transfers to the key) and the plan's actions and approvals. Each is
// built in one DelegationTree and checked there; whoever holds the owner's account signs them (a local
// smart account, or the owner's wallet over EIP-712), and the signed ones become the profile's grants.
import type { Delegation } from '@metamask/smart-accounts-kit'
import { isAddressEqual, type Address, type Hex } from 'viem'
import type { RenewedRunway } from '../custody/signerResolver.ts'
import type { BardoCaveat } from '../caveats/types.ts'
import type { BardoDeployment } from '../deployment.ts'
import type { GolemProfile } from '../lifecycle/profile.ts'
import { buildGolemDelegation, type GrantedDelegation } from '../delegations/buildGolemDelegation.ts'
import { DelegationShapeError } from '../delegations/errors.ts'
import { DelegationTree } from '../delegations/tree.ts'
import type { PermissionPlan } from './compileStrategy.ts'
import { buildPlanGrant, type PlanUsdCaps } from './planGrant.ts'

/** Seconds per gas period: the owner's gas grant pays once a day whatever the runway's period. */
export const GAS_PERIOD_SECONDS = 86_400n

export type GolemGrantWindow = {
  deployment: BardoDeployment
  /** The granting account (the owner's smart account): every delegation's delegator. */
  owner: Address
  golemKey: Address
  /** The first period's start (unix seconds). */
  startDate: bigint
  /** The life window's last second (inclusive): golemPhase's end on every grant. */
  expiresAt: bigint
  /** Chain time the grants are checked at. */
  now: bigint
}

export type GolemActionDraft = GrantedDelegation & { label: string }

/** A tree at `now` for the owner's grants. */
export const grantTree = (w: Pick<GolemGrantWindow, 'deployment' | 'now'>): DelegationTree =>
  new DelegationTree({ environment: w.deployment.environment, deployment: w.deployment, now: () => w.now })

/**
 * The runway grant (direct ERC-7710): USDC per period from the owner's account to the Golem key, gated by
 * its phase and life window (one golemPhase caveat). No dreamMode: dream atonia stops the Golem's own
 * actions; the runway is the heartbeat's top-up, which the tick already skips while the Golem dreams, and
 * the period cap, not a dream, bounds what a leaked key could redeem.
 */
export function draftRunwayGrant(
  tree: DelegationTree,
  w: GolemGrantWindow & { token: Address; periodAmount: bigint; periodDuration: bigint; salt?: Hex },
): GrantedDelegation {
  const grant = buildGolemDelegation({
    tree,
    owner: w.owner,
    golem: w.golemKey,
    // The phase gate carries the life window: one caveat instead of two on every runway redemption.
    bardo: [{ type: 'golemPhase', golem: w.golemKey, startTime: w.now, endTime: w.expiresAt }],
    runway: { token: w.token, periodAmount: w.periodAmount, periodDuration: Number(w.periodDuration), startDate: Number(w.startDate) },
    ...(w.salt ? { salt: w.salt } : {}),
  })
  if (!grant.runway) throw new DelegationShapeError('runway', 'the grant has no runway delegation')
  return grant.runway
}

/** The gas grant: the kit's native-token periodic scope, plain transfers to the Golem's key only, the same phase window. */
export function draftGasGrant(tree: DelegationTree, w: GolemGrantWindow & { periodAmount: bigint }): GrantedDelegation {
  const grant = buildGolemDelegation({
    tree,
    owner: w.owner,
    golem: w.golemKey,
    bardo: [{ type: 'golemPhase', golem: w.golemKey, startTime: w.now, endTime: w.expiresAt }],
    gas: { periodAmount: w.periodAmount, periodDuration: Number(GAS_PERIOD_SECONDS), startDate: Number(w.startDate) },
  })
  if (!grant.gas) throw new DelegationShapeError('gas', 'the grant has no gas delegation')
  return grant.gas
}

/**
 * The plan's actions and approvals, bounded in USD by the deployment's price feeds, with the same phase
 * gate and life window as the runway, and dreamMode, because dream atonia stops the Golem's own actions.
 * Empty when the plan has none.
 */
export function draftPlanActions(
  tree: DelegationTree,
  w: Pick<GolemGrantWindow, 'startDate' | 'expiresAt'> & {
    plan: PermissionPlan
    usdCaps: PlanUsdCaps
    dailyUsd?: bigint
    /** More Bardo caveats on every delegation (the owner's constitution: policyCage). */
    bardo?: readonly BardoCaveat[]
  },
): GolemActionDraft[] {
  const { plan } = w
  if (plan.actions.length === 0 && plan.approvals.length === 0) return []
  const grant = buildPlanGrant({
    tree,
    // golemPhase's end is inclusive, the plan's expiry is not.
    plan: { ...plan, startTime: Number(w.startDate), expiry: Number(w.expiresAt) + 1, dailyUsdcCap: w.dailyUsd ?? plan.dailyUsdcCap },
    usdCaps: w.usdCaps,
    bardo: [{ type: 'dreamMode', golem: plan.sessionKey }, ...(w.bardo ?? [])],
    runway: false,
  })
  return [
    ...(grant.actions ?? []).map((a) => ({ hash: a.hash, delegation: a.delegation, label: a.name ?? 'actions' })),
    ...(grant.approvals ?? []).map((a) => ({ hash: a.hash, delegation: a.delegation, label: `approvals: ${a.spender}` })),
  ]
}

/** The period-transfer caveat's terms on a signed grant (ERC20PeriodTransfer for the runway, NativeTokenPeriodTransfer for gas). */
export function periodCaveatOf(signed: Delegation, enforcer: Address | undefined, what: 'runway' | 'gas'): Hex {
  const caveat = enforcer ? signed.caveats.find((c) => isAddressEqual(c.enforcer, enforcer)) : undefined
  if (!caveat)
    throw new DelegationShapeError(
      what,
      `the delegation has no ${what === 'runway' ? 'ERC20PeriodTransfer' : 'NativeTokenPeriodTransfer'} caveat`,
    )
  return caveat.terms
}

/** The profile's runway from the signed runway grant (a direct grant: the chain is the grant itself). */
export function runwayOfSigned(deployment: BardoDeployment, signed: GrantedDelegation, startDate: bigint): RenewedRunway {
  return {
    chain: [signed.delegation],
    periodDelegationHash: signed.hash,
    periodTerms: periodCaveatOf(signed.delegation, deployment.environment.caveatEnforcers.ERC20PeriodTransferEnforcer, 'runway'),
    chainHashes: [signed.hash],
    periodStart: startDate,
  }
}

/** The profile's gas grant from the signed gas grant. */
export function gasOfSigned(
  deployment: BardoDeployment,
  signed: GrantedDelegation,
  p: { periodAmount: bigint; startDate: bigint },
): NonNullable<GolemProfile['gas']> {
  return {
    chain: [signed.delegation],
    periodAmount: p.periodAmount,
    periodDuration: GAS_PERIOD_SECONDS,
    periodStart: p.startDate,
    periodDelegationHash: signed.hash,
    periodTerms: periodCaveatOf(signed.delegation, deployment.environment.caveatEnforcers.NativeTokenPeriodTransferEnforcer, 'gas'),
    chainHashes: [signed.hash],
  }
}
