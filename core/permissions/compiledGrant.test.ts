// The compiler's plan, built into a Golem grant by buildPlanGrant: the actions delegations hold no
// approve and no transfer, every receiver word is pinned to the owner's account, and each spender the
// plan names gets one approvals delegation pinned to it.
import { getAddress, pad, toHex, type Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { decodeDelegationCaveats, type DecodedCaveat } from '../caveats/caveat.ts'
import type { TokenFeed } from '../caveats/types.ts'
import { DEPLOYMENT, ENV } from '../../test/support/caveats/fixtures.ts'
import { DelegationTree, type GolemGrant } from '../delegations/index.ts'
import type { PermissionPlan } from './compileStrategy.ts'
import { buildPlanGrant, DEFAULT_MAX_SLIPPAGE_BPS } from './planGrant.ts'
import { CORPUS, compileCorpusCase, NOW, type CorpusCase } from '../../test/support/permissions/corpus.ts'
import { SELECTORS } from './selectors.ts'

const compiled = CORPUS.filter((c) => !('error' in c.expect))

const tree = () => new DelegationTree({ environment: ENV, deployment: DEPLOYMENT, now: () => BigInt(NOW) })

/** A synthetic feed for every token the plan approves (and its USDC), so the grant can be bounded. */
function feedsOf(plan: PermissionPlan): TokenFeed[] {
  const tokens = [...new Set([plan.usdc, ...plan.approvals.flatMap((a) => a.tokens)].map((t) => getAddress(t)))]
  return tokens.map((token, i) => ({
    token,
    decimals: token === getAddress(plan.usdc) ? 6 : 18,
    feed: getAddress(pad(toHex(0xfeed00 + i), { size: 20 })),
  }))
}
const decimalsOf = (feeds: readonly TokenFeed[]) => feeds.map(({ token, decimals }) => ({ token, decimals }))
const usdCaps = (plan: PermissionPlan) => ({ feeds: feedsOf(plan), tokenDecimals: decimalsOf(feedsOf(plan)), maxPriceAge: 3_600 })

function grantOf(plan: PermissionPlan): GolemGrant {
  return buildPlanGrant({ tree: tree(), plan, usdCaps: usdCaps(plan) })
}

/** The one Bardo caveat of every delegation of a plan's grant: the phase gate carrying the life window. */
const lifeGate = (plan: PermissionPlan) => ({
  type: 'golemPhase',
  golem: plan.sessionKey,
  startTime: BigInt(plan.startTime),
  endTime: BigInt(plan.expiry - 1),
})
const decoded = (d: Parameters<typeof decodeDelegationCaveats>[0]): DecodedCaveat[] => decodeDelegationCaveats(d, DEPLOYMENT, ENV)
const methodsOf = (caveats: DecodedCaveat[]) => caveats.filter((c) => c.type === 'allowedMethods').flatMap((c) => c.selectors)

describe('compiled strategies as Golem grants', () => {
  it.each(compiled.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const expected = c.expect as Extract<CorpusCase['expect'], { approvals: unknown }>
    const plan = compileCorpusCase(c)
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
      // The phase gate with the life window, and on a swap or a liquidity removal the slippage bound against the feeds.
      const swaps = e.selectors.some(
        (x) => x === SELECTORS.exactInputSingle || x === SELECTORS.exactInput || x === SELECTORS.decreaseLiquidity,
      )
      expect(caveats.slice(swaps ? -2 : -1)).toEqual([
        lifeGate(plan),
        ...(swaps ? [{ type: 'maxSlippage', maxSlippageBps: DEFAULT_MAX_SLIPPAGE_BPS, maxPriceAge: 3_600, feeds: feedsOf(plan) }] : []),
      ])
      for (const s of [SELECTORS.erc20Approve, SELECTORS.erc20IncreaseAllowance, SELECTORS.erc20Transfer, SELECTORS.erc20TransferFrom])
        expect(methodsOf(caveats)).not.toContain(s)
    }
    // The runway's USDC moves only through its period-capped delegation.
    expect(decoded(grant.runway!.delegation).find((c) => c.type === 'erc20PeriodTransfer')).toMatchObject({
      tokenAddress: plan.usdc,
      periodAmount: plan.dailyUsdcCap,
    })

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
        // The plan's daily budget, split between the spenders: together they never approve more a day.
        {
          type: 'dailySpendLimit',
          dailyLimitUsd: plan.dailyUsdcCap / BigInt(expected.approvals.length),
          maxPriceAge: 3_600,
          feeds: feedsOf(plan),
        },
      ])
    }
  })

  it('adversarial texts that grant no capability get no actions and no approvals delegation at all', () => {
    const nothing = compiled.filter((c) => c.adversarial && (c.expect as { capabilities: unknown[] }).capabilities.length === 0)
    expect(nothing.length).toBeGreaterThanOrEqual(4)
    for (const c of nothing) {
      const grant = grantOf(compileCorpusCase(c))
      expect(grant.approvals, c.name).toBeUndefined()
      expect(grant.actions, c.name).toBeUndefined()
    }
  })

  it("refuses to grant a plan's actions and approvals without USD bounds, unless told unbounded; and a feed missing for an approved token", () => {
    const plan = compileCorpusCase(compiled.find((c) => (c.expect as { approvals: unknown[] }).approvals.length > 0)!)
    expect(() => buildPlanGrant({ tree: tree(), plan })).toThrow(
      /usdCaps: must be given for a plan with actions or approvals: without price feeds/,
    )
    const unbounded = buildPlanGrant({ tree: tree(), plan, unbounded: true })
    expect(decoded(unbounded.approvals![0]!.delegation).some((c) => c.type === 'dailySpendLimit')).toBe(false)
    const kept = feedsOf(plan).filter((f) => f.token !== getAddress(plan.approvals[0]!.tokens.at(-1)!))
    const missing = { feeds: kept, tokenDecimals: decimalsOf(kept), maxPriceAge: 3_600 }
    expect(() => buildPlanGrant({ tree: tree(), plan, usdCaps: missing })).toThrow(
      /usdCaps.feeds: has no feed for 0x[0-9a-fA-F]{40}, which 0x[0-9a-fA-F]{40} may be approved to pull/,
    )
    expect(() => buildPlanGrant({ tree: tree(), plan, usdCaps: { feeds: [], tokenDecimals: [], maxPriceAge: 3_600 } })).toThrow(
      /usdCaps.feeds: must list at least one token feed/,
    )
    expect(() => buildPlanGrant({ tree: tree(), plan, usdCaps: { ...usdCaps(plan), maxPriceAge: 0 } })).toThrow(
      /usdCaps.maxPriceAge: must be a positive whole number of seconds, got 0/,
    )
  })

  it("refuses a feed entry whose decimals differ from the token's own decimals(), or a token whose decimals() was not read; builds nothing", () => {
    const plan = compileCorpusCase(compiled.find((c) => (c.expect as { approvals: unknown[] }).approvals.length > 0)!)
    const feeds = feedsOf(plan)
    const usdc = getAddress(plan.usdc)
    // The token says 6 decimals; an entry claiming 18 would value a million dollars of it as one.
    const wrong = feeds.map((f) => (f.token === usdc ? { ...f, decimals: 18 } : f))
    const i = wrong.findIndex((f) => f.token === usdc)
    expect(() =>
      buildPlanGrant({ tree: tree(), plan, usdCaps: { feeds: wrong, tokenDecimals: decimalsOf(feeds), maxPriceAge: 3_600 } }),
    ).toThrow(
      `usdCaps.feeds[${i}].decimals: says 18 for ${usdc}, but the token's decimals() is 6: every amount would be valued 10^12 times too low`,
    )
    expect(() =>
      buildPlanGrant({
        tree: tree(),
        plan,
        usdCaps: { feeds, tokenDecimals: decimalsOf(feeds).filter((t) => t.token !== usdc), maxPriceAge: 3_600 },
      }),
    ).toThrow(`usdCaps.tokenDecimals: has no decimals() for ${usdc}`)
    const native = [...feeds, { token: '0x0000000000000000000000000000000000000000' as const, decimals: 8, feed: feeds[0]!.feed }]
    expect(() =>
      buildPlanGrant({ tree: tree(), plan, usdCaps: { feeds: native, tokenDecimals: decimalsOf(feeds), maxPriceAge: 3_600 } }),
    ).toThrow(`usdCaps.feeds[${feeds.length}].decimals: native ETH has 18 decimals, got 8`)
  })
})
