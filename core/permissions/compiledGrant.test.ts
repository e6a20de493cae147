// The compiler's plan, built into a Golem grant by buildPlanGrant: the actions delegations hold no
// approve and no transfer, every receiver word is pinned to the owner's account, and each spender the
// plan names gets one approvals delegation pinned to it.
import { pad, type Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { decodeDelegationCaveats, type DecodedCaveat } from '../caveats/caveat.ts'
import { DEPLOYMENT, ENV } from '../caveats/testing/fixtures.ts'
import { DelegationTree, type GolemGrant } from '../delegations/index.ts'
import { compileStrategy, type PermissionPlan } from './compileStrategy.ts'
import { buildPlanGrant } from './planGrant.ts'
import { CORPUS, NOW, OWNER, REGISTRIES, SESSION_KEY, type CorpusCase } from './corpus/corpus.ts'
import { SELECTORS } from './selectors.ts'

const compiled = CORPUS.filter((c) => !('error' in c.expect))

function compile(c: CorpusCase): PermissionPlan {
  return compileStrategy({
    text: c.text,
    chainId: c.chainId ?? 31337,
    owner: (c.owner ?? OWNER) as `0x${string}`,
    sessionKey: SESSION_KEY,
    ...(c.runwayDays === undefined ? {} : { runwayDays: c.runwayDays }),
    now: NOW,
    registry: REGISTRIES[c.registry ?? 'local'](),
  })
}

function grantOf(plan: PermissionPlan): GolemGrant {
  return buildPlanGrant({ tree: new DelegationTree({ environment: ENV, deployment: DEPLOYMENT, now: () => BigInt(NOW) }), plan })
}

/** The one Bardo caveat of every delegation of a plan's grant: the phase gate carrying the life window. */
const lifeGate = (plan: PermissionPlan) => ({ type: 'golemPhase', golem: plan.sessionKey, startTime: BigInt(plan.startTime), endTime: BigInt(plan.expiry - 1) })
const decoded = (d: Parameters<typeof decodeDelegationCaveats>[0]): DecodedCaveat[] => decodeDelegationCaveats(d, DEPLOYMENT, ENV)
const methodsOf = (caveats: DecodedCaveat[]) => caveats.filter((c) => c.type === 'allowedMethods').flatMap((c) => c.selectors)

describe('compiled strategies as Golem grants', () => {
  it.each(compiled.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const expected = c.expect as Extract<CorpusCase['expect'], { approvals: unknown }>
    const plan = compile(c)
    const grant = grantOf(plan)

    // One actions delegation per plan entry: exactly its calls, no allowance setter or transfer, and one
    // AllowedCalldata pin per receiver word holding the owner's account (plus the fixed words).
    expect(grant.actions ?? []).toHaveLength(expected.actions.length)
    const ownerWord = pad(plan.owner.toLowerCase() as Hex)
    for (const [i, e] of expected.actions.entries()) {
      const caveats = decoded(grant.actions![i]!.delegation)
      expect(grant.actions![i]!.name).toBe(e.name)
      expect(caveats.slice(0, 3)).toEqual([
        { type: 'allowedTargets', targets: e.targets },
        { type: 'allowedMethods', selectors: e.selectors },
        { type: 'valueLte', maxValue: 0n },
      ])
      expect(caveats.filter((c) => c.type === 'allowedCalldata')).toEqual([
        ...e.receivers.map((r) => ({ type: 'allowedCalldata', startIndex: BigInt(r), value: ownerWord })),
        ...e.calldata.map((w) => ({ type: 'allowedCalldata', startIndex: BigInt(w.startIndex), value: w.value })),
      ])
      expect(caveats.at(-1)).toEqual(lifeGate(plan))
      for (const s of [SELECTORS.erc20Approve, SELECTORS.erc20IncreaseAllowance, SELECTORS.erc20Transfer, SELECTORS.erc20TransferFrom]) expect(methodsOf(caveats)).not.toContain(s)
    }
    // The runway's USDC moves only through its period-capped delegation.
    expect(decoded(grant.runway!.delegation).find((c) => c.type === 'erc20PeriodTransfer')).toMatchObject({ tokenAddress: plan.usdc, periodAmount: plan.dailyUsdcCap })

    // One approvals delegation per spender, approve only on its tokens, approve's first argument pinned to it.
    expect(grant.approvals ?? []).toHaveLength(expected.approvals.length)
    for (const [i, { spender, tokens }] of expected.approvals.entries()) {
      const a = grant.approvals![i]!
      expect(a.spender).toBe(spender)
      expect(decoded(a.delegation)).toEqual([
        { type: 'allowedTargets', targets: tokens },
        { type: 'allowedMethods', selectors: [SELECTORS.erc20Approve] },
        { type: 'valueLte', maxValue: 0n },
        { type: 'allowedCalldata', startIndex: 4n, value: pad(spender.toLowerCase() as Hex) },
        lifeGate(plan),
      ])
    }
  })

  it('adversarial texts that grant no capability get no actions and no approvals delegation at all', () => {
    const nothing = compiled.filter((c) => c.adversarial && (c.expect as { capabilities: unknown[] }).capabilities.length === 0)
    expect(nothing.length).toBeGreaterThanOrEqual(4)
    for (const c of nothing) {
      const grant = grantOf(compile(c))
      expect(grant.approvals, c.name).toBeUndefined()
      expect(grant.actions, c.name).toBeUndefined()
    }
  })
})
