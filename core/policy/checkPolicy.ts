// The check of one proposed action against the owner's constitution, on the portfolio as the edge read
// it and the spend already recorded this session and today: ok, or the first rule it breaks, named,
// with its field and numbers. Pure; the edge reads the state, records the refusal and acts on it.
import { getAddress, type Address } from 'viem'
import { Phase, type Phase as PhaseValue } from '../lifecycle/phase.ts'
import { BPS, type Constitution, type PolicyRule } from './constitution.ts'
import { policyRefusal, type PolicyRefusal } from './policyRefusal.ts'

/** What an action does to the portfolio, valued in USD with 6 decimals. */
export type PolicyAction = {
  /** Every asset the action touches: tokens it spends, acquires or approves, vaults whose shares it moves. */
  readonly assets: readonly Address[]
  /**
   * The position the action opens or adds to and the USD it adds; absent when it acquires only the base
   * asset (a close, a withdrawal) or nothing (an approval).
   */
  readonly acquires?: { readonly asset: Address; readonly usd: bigint }
  /** The USD the action puts at risk: what it gives up to acquire a position (0 for a close or an approval). */
  readonly spendUsd: bigint
}

/** The portfolio and the spend so far, read by the edge before the check. */
export type PolicyState = {
  /** USD value held per asset (lowercase address keys); the base asset included. */
  readonly holdingsUsd: ReadonlyMap<string, bigint>
  /** The whole portfolio's USD value. */
  readonly portfolioUsd: bigint
  /** The highest portfolio value recorded (at least portfolioUsd once updated). */
  readonly highWaterMarkUsd: bigint
  /** USD put at risk since the current session key took over. */
  readonly sessionSpentUsd: bigint
  /** USD put at risk this UTC day (chain time). */
  readonly daySpentUsd: bigint
  /** A violation of a rule in revokeOn already started the revocation cascade under this constitution. */
  readonly revokedBy?: { readonly rule: string; readonly at: bigint }
}

export type PolicyDecision = { readonly ok: true } | { readonly ok: false; readonly refusal: PolicyRefusal }

/**
 * The most of the portfolio one new position may be in each phase: 30 % Thriving, 20 % Stable, and no
 * new position from Conservation on (closing is still allowed).
 */
export const PHASE_MAX_POSITION_BPS: Readonly<Record<PhaseValue, number>> = {
  [Phase.Thriving]: 3_000,
  [Phase.Stable]: 2_000,
  [Phase.Conservation]: 0,
  [Phase.Declining]: 0,
  [Phase.Terminal]: 0,
}

const ceilBps = (part: bigint, whole: bigint): number => (whole === 0n ? BPS : Number((part * BigInt(BPS) + whole - 1n) / whole))

export function checkPolicy(c: Constitution, action: PolicyAction, state: PolicyState, phase: PhaseValue): PolicyDecision {
  const refuse = (rule: PolicyRule, field: string, values: Record<string, bigint | number | string>): PolicyDecision => ({
    ok: false,
    refusal: policyRefusal(rule, field, values, c.revokeOn.includes(rule)),
  })

  // The revocation cascade, once started, stops every action until the owner gives a new constitution.
  if (state.revokedBy)
    return { ok: false, refusal: policyRefusal('revoked', 'revokeOn', { rule: state.revokedBy.rule, at: state.revokedBy.at }, true) }

  const approved = new Map([[c.baseAsset.toLowerCase(), undefined], ...c.assets.map((a) => [a.address.toLowerCase(), a] as const)])
  for (const asset of action.assets)
    if (!approved.has(asset.toLowerCase())) return refuse('approvedAsset', 'assets', { asset: getAddress(asset) })
  const target = action.acquires
  if (target && !approved.has(target.asset.toLowerCase())) return refuse('approvedAsset', 'assets', { asset: getAddress(target.asset) })

  // Closing a position and approving never add risk: the remaining rules bound new risk only.
  if (!target || target.asset.toLowerCase() === c.baseAsset.toLowerCase()) return { ok: true }

  const hwm = state.highWaterMarkUsd > state.portfolioUsd ? state.highWaterMarkUsd : state.portfolioUsd
  const drawdownBps = hwm === 0n ? 0 : Number(((hwm - state.portfolioUsd) * BigInt(BPS)) / hwm)
  if (drawdownBps > c.maxDrawdownBps)
    return refuse('maxDrawdown', 'maxDrawdownBps', {
      highWaterMarkUsd: hwm,
      portfolioUsd: state.portfolioUsd,
      drawdownBps,
      limitBps: c.maxDrawdownBps,
    })

  const positionUsd = (state.holdingsUsd.get(target.asset.toLowerCase()) ?? 0n) + target.usd
  const positionBps = ceilBps(positionUsd, state.portfolioUsd)
  const phaseLimit = PHASE_MAX_POSITION_BPS[phase]
  if (positionBps > phaseLimit)
    return refuse('phaseMaxPosition', 'phase', {
      asset: getAddress(target.asset),
      phase,
      positionUsd,
      portfolioUsd: state.portfolioUsd,
      positionBps,
      limitBps: phaseLimit,
    })
  const limit = approved.get(target.asset.toLowerCase())!.maxConcentrationBps
  if (positionBps > limit)
    return refuse('maxConcentration', `assets[${getAddress(target.asset)}].maxConcentrationBps`, {
      asset: getAddress(target.asset),
      positionUsd,
      portfolioUsd: state.portfolioUsd,
      positionBps,
      limitBps: limit,
    })

  if (action.spendUsd > c.maxTransactionUsd)
    return refuse('maxTransaction', 'maxTransactionUsd', { spendUsd: action.spendUsd, limitUsd: c.maxTransactionUsd })
  if (state.sessionSpentUsd + action.spendUsd > c.maxSessionUsd)
    return refuse('maxSession', 'maxSessionUsd', {
      spentUsd: state.sessionSpentUsd,
      spendUsd: action.spendUsd,
      limitUsd: c.maxSessionUsd,
    })
  if (state.daySpentUsd + action.spendUsd > c.maxDayUsd)
    return refuse('maxDay', 'maxDayUsd', { spentUsd: state.daySpentUsd, spendUsd: action.spendUsd, limitUsd: c.maxDayUsd })
  return { ok: true }
}

/** The state after an action the check allowed: the next action of a batch is checked on it. */
export function afterAction(state: PolicyState, action: PolicyAction): PolicyState {
  const holdings = new Map(state.holdingsUsd)
  if (action.acquires) {
    const key = action.acquires.asset.toLowerCase()
    holdings.set(key, (holdings.get(key) ?? 0n) + action.acquires.usd)
  }
  return {
    ...state,
    holdingsUsd: holdings,
    sessionSpentUsd: state.sessionSpentUsd + action.spendUsd,
    daySpentUsd: state.daySpentUsd + action.spendUsd,
  }
}

/** Checks a batch in order, each action on the state the earlier ones leave: the first refusal, with its index. */
export function checkPolicyBatch(
  c: Constitution,
  actions: readonly PolicyAction[],
  state: PolicyState,
  phase: PhaseValue,
): { ok: true } | { ok: false; refusal: PolicyRefusal; index: number } {
  let s = state
  for (const [index, action] of actions.entries()) {
    const d = checkPolicy(c, action, s, phase)
    if (!d.ok) return { ok: false, refusal: d.refusal, index }
    s = afterAction(s, action)
  }
  return { ok: true }
}
