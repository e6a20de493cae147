// The compiler's plan as the Golem grant it asks for: the period-capped USDC runway, one actions
// delegation per receiver layout (receivers pinned to the owner's account) and one approvals delegation
// per spender, every one gated by golemPhase carrying the plan's life window (docs/strategy-compiler.md).
import type { BardoCaveat } from '../caveats/types.ts'
import { buildGolemDelegation, type GolemGrant } from '../delegations/buildGolemDelegation.ts'
import type { DelegationTree } from '../delegations/tree.ts'
import type { PermissionPlan } from './compileStrategy.ts'

export type BuildPlanGrantParameters = {
  tree: DelegationTree
  plan: PermissionPlan
  /** More Bardo caveats on every delegation of the grant (dreamMode, dailySpendLimit, ...). */
  bardo?: readonly BardoCaveat[]
  /** Leave the runway out (a caller that grants it through ERC-7715 instead). Default: included. */
  runway?: boolean
}

export function buildPlanGrant(p: BuildPlanGrantParameters): GolemGrant {
  const { plan } = p
  // The plan's expiry is the first second the grant is over; golemPhase's window is inclusive.
  const life: BardoCaveat = { type: 'golemPhase', golem: plan.sessionKey, startTime: BigInt(plan.startTime), endTime: BigInt(plan.expiry - 1) }
  return buildGolemDelegation({
    tree: p.tree,
    owner: plan.owner,
    golem: plan.sessionKey,
    bardo: [life, ...(p.bardo ?? [])],
    ...(p.runway === false ? {} : { runway: { token: plan.usdc, periodAmount: plan.dailyUsdcCap, periodDuration: plan.period, startDate: plan.startTime } }),
    ...(plan.actions.length > 0 ? { actions: plan.actions } : {}),
    ...(plan.approvals.length > 0 ? { approvals: plan.approvals } : {}),
  })
}
