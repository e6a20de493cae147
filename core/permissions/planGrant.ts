// The compiler's plan as the Golem grant it asks for: the period-capped USDC runway, one actions
// delegation per receiver layout (receivers pinned to the owner's account) and one approvals delegation
// per spender, every one gated by golemPhase carrying the plan's life window (docs/strategy-compiler.md).
//
// Pinned receivers keep a swap's output in the owner's account, but not its value: a leaked key could
// still approve the router for everything and swap it through a pool of its own at any price. So the
// plan's budget bounds the approvals (DailySpendLimit, the daily cap split between the spenders) and
// every swap carries MaxSlippage against the price feeds. Without feeds there is no such bound, and
// the builder refuses to grant actions or approvals unless the caller says `unbounded: true`.
import { getAddress, isAddressEqual, zeroAddress, type Address } from 'viem'
import type { BardoCaveat, TokenFeed } from '../caveats/types.ts'
import { buildGolemDelegation, type GolemGrant } from '../delegations/buildGolemDelegation.ts'
import type { DelegationTree } from '../delegations/tree.ts'
import type { PermissionPlan } from './compileStrategy.ts'
import { StrategyCompileError } from './errors.ts'
import { SELECTORS } from './selectors.ts'

/** What a token's own `decimals()` returns, read on-chain by the caller (reading it is I/O). */
export type TokenDecimals = { readonly token: Address; readonly decimals: number }

/** How a plan's actions and approvals are bounded in USD. */
export type PlanUsdCaps = {
  /** Chainlink-style feeds for every token the plan approves or swaps. */
  feeds: readonly TokenFeed[]
  /**
   * The `decimals()` of every ERC-20 in `feeds`, as the token itself reports it. A feed entry's decimals
   * are what the enforcers value amounts with; a wrong one misprices by powers of ten (a 6-decimal token
   * entered as 18 counts a million dollars as one), so the grant is refused unless each agrees.
   */
  tokenDecimals: readonly TokenDecimals[]
  /** Seconds a price may be old before the enforcers refuse it. */
  maxPriceAge: number
  /** Largest accepted gap between a swap's minimum output and the feed price, in bps. Default 100 (1%). */
  maxSlippageBps?: number
}

export type BuildPlanGrantParameters = {
  tree: DelegationTree
  plan: PermissionPlan
  /** USD bounds for the actions and approvals; required when the plan has any, unless `unbounded`. */
  usdCaps?: PlanUsdCaps
  /** Grant actions and approvals with no USD bound (phase gate and life window only). Say it to mean it. */
  unbounded?: true
  /** More Bardo caveats on every delegation of the grant (dreamMode, ...). */
  bardo?: readonly BardoCaveat[]
  /** Leave the runway out (a caller that grants it through ERC-7715 instead). Default: included. */
  runway?: boolean
}

export const DEFAULT_MAX_SLIPPAGE_BPS = 100
/** Calls MaxSlippage bounds: swaps (their minimum output) and liquidity removal (its pool's price). */
const SLIPPAGE_SELECTORS: readonly string[] = [SELECTORS.exactInputSingle, SELECTORS.exactInput, SELECTORS.decreaseLiquidity]

export function buildPlanGrant(p: BuildPlanGrantParameters): GolemGrant {
  const { plan } = p
  const bounded = plan.actions.length > 0 || plan.approvals.length > 0
  if (bounded && p.usdCaps === undefined && p.unbounded !== true) {
    throw new StrategyCompileError(
      'usdCaps',
      'must be given for a plan with actions or approvals: without price feeds nothing bounds what its approvals and swaps can move (pass unbounded: true to grant them anyway)',
    )
  }
  const caps = p.usdCaps === undefined ? undefined : checkCaps(p.usdCaps, plan)
  // The plan's expiry is the first second the grant is over; golemPhase's window is inclusive.
  const life: BardoCaveat = {
    type: 'golemPhase',
    golem: plan.sessionKey,
    startTime: BigInt(plan.startTime),
    endTime: BigInt(plan.expiry - 1),
  }
  const perSpender = dailyLimitPerSpender(plan)
  return buildGolemDelegation({
    tree: p.tree,
    owner: plan.owner,
    golem: plan.sessionKey,
    bardo: [life, ...(p.bardo ?? [])],
    ...(p.runway === false
      ? {}
      : { runway: { token: plan.usdc, periodAmount: plan.dailyUsdcCap, periodDuration: plan.period, startDate: plan.startTime } }),
    ...(plan.actions.length > 0
      ? {
          actions: plan.actions.flatMap((a) => {
            const bounded = a.selectors.some((s) => SLIPPAGE_SELECTORS.includes(s.toLowerCase()))
            // Without feeds nothing prices a removal's pool: an unbounded grant leaves the removal out.
            if (!caps && a.selectors.includes(SELECTORS.decreaseLiquidity)) {
              const selectors = a.selectors.filter((s) => s !== SELECTORS.decreaseLiquidity)
              return selectors.length === 0 ? [] : [{ ...a, selectors }]
            }
            if (!caps || !bounded) return [a]
            const slippage: BardoCaveat = {
              type: 'maxSlippage',
              maxSlippageBps: caps.maxSlippageBps ?? DEFAULT_MAX_SLIPPAGE_BPS,
              maxPriceAge: caps.maxPriceAge,
              feeds: caps.feeds,
            }
            return [{ ...a, bardo: [slippage] }]
          }),
        }
      : {}),
    ...(plan.approvals.length > 0
      ? {
          approvals: plan.approvals.map((a) => {
            if (!caps) return a
            const limit: BardoCaveat = {
              type: 'dailySpendLimit',
              dailyLimitUsd: perSpender,
              maxPriceAge: caps.maxPriceAge,
              feeds: caps.feeds,
            }
            return { ...a, bardo: [limit] }
          }),
        }
      : {}),
  })
}

/** Every approved token needs a feed, or DailySpendLimit would count its approvals as $0. */
function checkCaps(caps: PlanUsdCaps, plan: PermissionPlan): PlanUsdCaps {
  if (caps.feeds.length === 0) throw new StrategyCompileError('usdCaps.feeds', 'must list at least one token feed')
  checkFeedDecimals(caps)
  if (!Number.isSafeInteger(caps.maxPriceAge) || caps.maxPriceAge <= 0)
    throw new StrategyCompileError('usdCaps.maxPriceAge', `must be a positive whole number of seconds, got ${String(caps.maxPriceAge)}`)
  const priced = new Set(caps.feeds.map((f) => getAddress(f.token)))
  for (const { spender, tokens } of plan.approvals) {
    const missing = tokens.find((t: Address) => !priced.has(getAddress(t)))
    if (missing)
      throw new StrategyCompileError(
        'usdCaps.feeds',
        `has no feed for ${missing}, which ${spender} may be approved to pull: its approvals would count as $0`,
      )
  }
  return caps
}

/** Each feed entry's token decimals must be what the token reports (native ETH: 18, as the enforcers require). */
function checkFeedDecimals(caps: PlanUsdCaps): void {
  const reported = new Map((caps.tokenDecimals ?? []).map((t) => [getAddress(t.token), t.decimals]))
  caps.feeds.forEach((f, i) => {
    const field = `usdCaps.feeds[${i}].decimals`
    if (isAddressEqual(f.token, zeroAddress)) {
      if (f.decimals !== 18) throw new StrategyCompileError(field, `native ETH has 18 decimals, got ${f.decimals}`)
      return
    }
    const actual = reported.get(getAddress(f.token))
    if (actual === undefined) {
      throw new StrategyCompileError(
        'usdCaps.tokenDecimals',
        `has no decimals() for ${getAddress(f.token)}: a feed entry's decimals are checked against the token's own before the grant is built`,
      )
    }
    if (actual !== f.decimals) {
      throw new StrategyCompileError(
        field,
        `says ${f.decimals} for ${getAddress(f.token)}, but the token's decimals() is ${actual}: every amount would be valued 10^${Math.abs(actual - f.decimals)} times too ${f.decimals > actual ? 'low' : 'high'}`,
      )
    }
  })
}

/**
 * The USD a day each of the plan's approved spenders may move (its DailySpendLimit): DailySpendLimit keeps
 * its count per delegation, so the budget is split and all spenders together stay within it.
 */
export function dailyLimitPerSpender(plan: Pick<PermissionPlan, 'approvals' | 'dailyUsdcCap'>): bigint {
  return plan.approvals.length > 0 ? plan.dailyUsdcCap / BigInt(plan.approvals.length) : 0n
}
