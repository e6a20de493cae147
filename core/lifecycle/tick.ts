// One Golem's heartbeat decision: from one observation of its on-chain and stored state, what this
// tick does (post a phase, redeem, warn, rotate, die). Pure: functions/tick carries it out.
import type { Hex } from 'viem'
import { classifyPermissionHealth, type PermissionFacts, type PermissionHealthResult } from '../health/permissionHealth.ts'
import { BUDGET_WARNING_BPS, EXPIRING_WARNING_SECONDS, type CustodyEvent } from './custodyEvents.ts'
import { nextPhase, Phase } from './phase.ts'
import { planRedemption, type RedemptionPlan } from './redemption.ts'
import { computeVitality, type Vitality, type VitalityParameters } from './vitality.ts'

export type GolemObservation = {
  golemId: string
  delegationHash: Hex
  /** Chain time of the read. */
  now: bigint
  /** VitalityOracle.getPhase / getState. */
  onChainPhase: Phase
  registered: boolean
  /** DreamOracle.isDreaming: a dreaming Golem does not act (the DreamMode caveat would refuse anyway). */
  dreaming: boolean
  /** From the store. */
  bornAt: bigint
  runwayEndsAt: bigint
  runwayTotalSeconds: bigint
  lastInsightAt: bigint
  /** Permission facts read from the DelegationManager and the period enforcer. */
  permission: PermissionFacts
  /** What the store already knows, so warnings and revocations are reported once. */
  known: { revokedReported: boolean; expiringWarned: boolean; budgetWarnedPeriod?: bigint }
  /** In-flight reservations not yet confirmed. */
  reservedAmount?: bigint
  vitalityParameters?: Partial<VitalityParameters>
}

export type TickDecision = {
  vitality: Vitality
  phase: { current: Phase; next: Phase; post: boolean }
  redemption: RedemptionPlan
  /** The exactly-once slot for the redemption: one per delegation period. */
  period: bigint
  health: PermissionHealthResult
  events: CustodyEvent[]
  /** Run the death protocol this tick. */
  die: boolean
}

export function currentPeriod(f: PermissionFacts): bigint {
  return f.periodDuration > 0n ? f.currentPeriodStart / f.periodDuration : 0n
}

export function decideTick(o: GolemObservation): TickDecision {
  const vitality = computeVitality({
    now: o.now,
    bornAt: o.bornAt,
    runwayEndsAt: o.runwayEndsAt,
    runwayTotalSeconds: o.runwayTotalSeconds,
    lastInsightAt: o.lastInsightAt,
    seed: o.golemId,
    ...(o.vitalityParameters ? { parameters: o.vitalityParameters } : {}),
  })
  const health = classifyPermissionHealth(o.permission)
  const revoked = health.revocation.kind !== 'Active'
  // An unregistered Golem has been deregistered (dead) or never registered: it does nothing.
  const next = o.registered ? nextPhase(o.onChainPhase, vitality.vitality) : o.onChainPhase
  const post = o.registered && next !== o.onChainPhase
  const die = o.registered && next === Phase.Terminal
  const redemption: RedemptionPlan =
    !o.registered || o.dreaming
      ? { action: 'skip', reason: 'nothing-to-redeem' }
      : planRedemption({
          phase: next,
          periodAmount: o.permission.periodAmount,
          availableAmount: o.permission.availableInPeriod,
          reservedAmount: o.reservedAmount ?? 0n,
          revoked,
        })
  const events: CustodyEvent[] = []
  const at = o.now
  if (post) events.push({ type: 'PhaseChanged', at, from: o.onChainPhase, to: next, survivalScoreBps: vitality.survivalScoreBps })
  if (revoked && !o.known.revokedReported) {
    const cause = health.revocation.kind === 'RevokedByOwner' ? 'owner' : health.revocation.kind === 'Expired' ? 'expired' : 'exhausted'
    events.push({ type: 'DelegationRevoked', at, delegationHash: o.delegationHash, cause })
  }
  const secondsLeft = o.permission.expiresAt - o.now
  if (!revoked && secondsLeft < EXPIRING_WARNING_SECONDS && !o.known.expiringWarned) {
    events.push({ type: 'DelegationExpiringWarning', at, delegationHash: o.delegationHash, hoursRemaining: Number(secondsLeft) / 3600 })
  }
  const period = currentPeriod(o.permission)
  // BudgetWarning concerns the whole grant (seed 001 §4 remaining_pct), not today's cap: a Thriving
  // Golem takes its full daily cap every day, which is not a warning. Reported once.
  const redeemedNow = redemption.action === 'redeem' ? redemption.amount : 0n
  const periods = (o.runwayTotalSeconds + o.permission.periodDuration - 1n) / o.permission.periodDuration
  const granted = periods * o.permission.periodAmount
  const left = BigInt(health.total_remaining) - redeemedNow
  const remainingBps = granted > 0n ? (left * 10_000n) / granted : 0n
  if (!revoked && remainingBps < BUDGET_WARNING_BPS && o.known.budgetWarnedPeriod === undefined) {
    const perOp = redeemedNow > 0n ? redeemedNow : o.permission.periodAmount
    events.push({ type: 'BudgetWarning', at, remainingPct: Number(remainingBps) / 100, estimatedOperationsLeft: Number(left / perOp) })
  }
  if (die) events.push({ type: 'DeathProtocolStarted', at, trigger: 'terminal', vitality: vitality.vitality })
  return { vitality, phase: { current: o.onChainPhase, next, post }, redemption, period, health, events, die }
}
