// The owner's constitution before every action custody executes: the PolicyCage must hold its hash
// (app/constitutionAtStart.ts), then one read of prices, holdings and the policy ledger, the pure check
// (core/policy), and its record. A refused request appends one
// PolicyViolation event (source policy_violation) and changes nothing else; an allowed one returns the
// PolicySpend event the caller appends once the redemption is confirmed.
import type { PublicClient } from 'viem'
import type { BardoDeployment } from '../../core/deployment.ts'
import type { ActionRefusal, ActionRequest, GrantedAction } from '../../core/actions/index.ts'
import { phaseNames, type Phase } from '../../core/lifecycle/phase.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'
import {
  checkPolicyBatch,
  constitutionHash,
  POLICY_SPEND,
  POLICY_VIOLATION,
  policyActionOf,
  policySpendData,
  policyViolationData,
  type PolicyRefusal,
} from '../../core/policy/index.ts'
import type { AppendEventInput, GolemRecord, Store } from '../../core/store/index.ts'
import { constitutionAtStart } from '../constitutionAtStart.ts'
import { readPolicyState } from './readPolicyState.ts'

export type ActionPolicyResult = { ok: true; spend?: AppendEventInput } | { ok: false; refusal: ActionRefusal }

/** A constitution's refusal in the action path's words: caveat `policy`, the rule as the error. */
export const actionRefusalOf = (r: PolicyRefusal, call: number): ActionRefusal => ({
  caveat: 'policy',
  error: r.rule,
  args: [r.field, Object.fromEntries(Object.entries(r.values).map(([k, v]) => [k, String(v)]))],
  reason: r.reason,
  call,
})

export async function checkActionPolicy(
  deps: { client: PublicClient; store: Pick<Store, 'listEvents' | 'appendEvent'>; deployment: Pick<BardoDeployment, 'policyCage'> },
  p: {
    golem: GolemRecord
    profile: GolemProfile
    requestId: string
    requests: readonly ActionRequest[]
    grants: readonly GrantedAction[]
  },
): Promise<ActionPolicyResult> {
  const constitution = p.profile.constitution
  if (!constitution) return { ok: true }
  const golemId = p.golem.golemId
  const [started, observed] = await Promise.all([
    constitutionAtStart(deps.client, deps.deployment, p.profile),
    readPolicyState(deps, { golemId, owner: p.golem.owner, profile: p.profile, constitution, grants: p.grants }),
  ])
  const actions = p.requests.map((r) => policyActionOf(r, observed.prices, constitution.baseAsset))
  const phase = Math.max(0, phaseNames.indexOf(p.golem.phase)) as Phase
  const decision = started.ok
    ? checkPolicyBatch(constitution, actions, observed.state, phase)
    : ({ ok: false, refusal: started.refusal, index: 0 } as const)
  const common = {
    requestId: p.requestId,
    portfolioUsd: observed.state.portfolioUsd,
    highWaterMarkUsd: observed.state.highWaterMarkUsd,
    constitutionHash: constitutionHash(constitution),
  }
  if (!decision.ok) {
    await deps.store.appendEvent({
      golemId,
      type: POLICY_VIOLATION,
      at: observed.nowMs,
      eventId: `${POLICY_VIOLATION}:${p.requestId}`,
      data: policyViolationData({ ...common, call: decision.index, refusal: decision.refusal }),
    })
    return { ok: false, refusal: actionRefusalOf(decision.refusal, decision.index) }
  }
  return {
    ok: true,
    spend: {
      golemId,
      type: POLICY_SPEND,
      at: observed.nowMs,
      eventId: `${POLICY_SPEND}:${p.requestId}`,
      data: policySpendData({ ...common, sessionKey: p.profile.golemKey, actions }),
    },
  }
}
