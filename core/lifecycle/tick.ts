// One Golem's heartbeat decision: from one observation of its on-chain and stored state, what this
// tick does (post a phase, redeem, warn, rotate, die). Pure: functions/tick carries it out.
import type { Hex } from 'viem'
import { golemHealth, type GolemHealth, type GolemHealthInput } from '../health/golemHealth.ts'
import { revocationState, type PermissionFacts } from '../health/permissionHealth.ts'
import { BUDGET_WARNING_BPS, EXPIRING_WARNING_SECONDS, type CustodyEvent } from './custodyEvents.ts'
import { nextPhase, Phase } from './phase.ts'
import { planRedemption, type RedemptionPlan } from './redemption.ts'
import { runwayDue } from './stagger.ts'
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
  /** The runway grant's period start (the period enforcer's startDate): tells the grant's first period. */
  grantStart: bigint
  runwayEndsAt: bigint
  runwayTotalSeconds: bigint
  lastInsightAt: bigint
  /** Permission facts read from the DelegationManager and the period enforcer. */
  permission: PermissionFacts
  /** What the store already knows, so warnings and revocations are reported once. */
  known: {
    revokedReported: boolean
    expiringWarned: boolean
    budgetWarnedPeriod?: bigint
    renewalRequestedFor?: bigint
    /** The latest period whose runway redemption is recorded. */
    runwayRedeemedPeriod?: bigint
  }
  /** A redemption in flight: sent, not yet confirmed. */
  inFlightAmount?: bigint
  /**
   * Just-in-time runway: what the key holds of the runway token and what it should hold for the coming
   * period (core/lifecycle/runwayTarget.ts). Absent: the phase's share of the period is redeemed.
   */
  runwayTarget?: { held: bigint; target: bigint }
  vitalityParameters?: Partial<VitalityParameters>
  /** A key rotation that waits for the owner (core/health/golemHealth.ts rotationWaitOf). */
  rotation?: GolemHealthInput['rotation']
}

export type TickDecision = {
  vitality: Vitality
  phase: { current: Phase; next: Phase; post: boolean }
  redemption: RedemptionPlan
  /** The exactly-once slot for the redemption: one per delegation period. */
  period: bigint
  /** The Golem's health once this tick's plan is carried out (core/health/golemHealth.ts). */
  health: GolemHealth
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
  const revocation = revocationState(o.permission)
  const revoked = revocation.kind !== 'Active'
  // An unregistered Golem has been deregistered (dead) or never registered: it does nothing.
  const next = o.registered ? nextPhase(o.onChainPhase, vitality.vitality) : o.onChainPhase
  const post = o.registered && next !== o.onChainPhase
  // A grant that ended without a renewal leaves the Golem nothing to live on: it dies by delegation
  // expiry at its first tick after the end, whatever runway (TTL) payments bought it. The owner's
  // revocation ends its life at once: the death protocol deregisters it, so every grant's phase gate
  // refuses its key from then on, and sends what the key holds home.
  const expired = o.registered && o.now > o.permission.expiresAt
  const revokedByOwner = revocation.kind === 'RevokedByOwner'
  const die = o.registered && (next === Phase.Terminal || expired || revokedByOwner)
  const planned: RedemptionPlan =
    !o.registered || o.dreaming
      ? { action: 'skip', reason: 'nothing-to-redeem' }
      : planRedemption({
          phase: next,
          periodAmount: o.permission.periodAmount,
          availableAmount: o.permission.availableInPeriod,
          inFlightAmount: o.inFlightAmount ?? 0n,
          revoked,
          ...(o.runwayTarget === undefined ? {} : { target: o.runwayTarget }),
        })
  // Only a redemption waits for the Golem's offset into its period, so 'staggered' always means there is
  // runway to redeem at redeemAt; a skip for any other reason stays that reason.
  const due = runwayDue({
    golemId: o.golemId,
    bornAt: o.bornAt,
    grantStart: o.grantStart,
    currentPeriodStart: o.permission.currentPeriodStart,
    periodDuration: o.permission.periodDuration,
    expiresAt: o.permission.expiresAt,
  })
  // One redemption a period (its slot): once this period's is recorded, topping up a key that spent since
  // (just-in-time runway) would only lose the slot's claim, so it waits for the next period.
  const redemption: RedemptionPlan =
    planned.action !== 'redeem'
      ? planned
      : o.known.runwayRedeemedPeriod === currentPeriod(o.permission)
        ? { action: 'skip', reason: 'redeemed-this-period' }
        : o.now < due.redeemAt
          ? { action: 'skip', reason: 'staggered', redeemAt: due.redeemAt }
          : planned
  const redeemedNow = redemption.action === 'redeem' ? redemption.amount : 0n
  // Health as it stands once this tick's redemption lands, so the tick's report and a read of the
  // chain right after it agree.
  const health = golemHealth({
    facts: { ...o.permission, availableInPeriod: o.permission.availableInPeriod - redeemedNow },
    lifecycle: 'alive',
    phase: next,
    runwayEndsAt: o.runwayEndsAt,
    ...(o.rotation ? { rotation: o.rotation } : {}),
  })
  const events: CustodyEvent[] = []
  const at = o.now
  if (post) events.push({ type: 'PhaseChanged', at, from: o.onChainPhase, to: next, survivalScoreBps: vitality.survivalScoreBps })
  if (revoked && !o.known.revokedReported) {
    const cause = revocation.kind === 'RevokedByOwner' ? 'owner' : revocation.kind === 'Expired' ? 'expired' : 'exhausted'
    events.push({ type: 'DelegationRevoked', at, delegationHash: o.delegationHash, cause })
  }
  const secondsLeft = o.permission.expiresAt - o.now
  if (!revoked && secondsLeft < EXPIRING_WARNING_SECONDS && !o.known.expiringWarned) {
    events.push({ type: 'DelegationExpiringWarning', at, delegationHash: o.delegationHash, hoursRemaining: Number(secondsLeft) / 3600 })
  }
  const period = currentPeriod(o.permission)
  // BudgetWarning concerns the whole grant (the share of the granted total left), not today's cap: a Thriving
  // Golem takes its full daily cap every day, which is not a warning. Reported once.
  const periods = (o.runwayTotalSeconds + o.permission.periodDuration - 1n) / o.permission.periodDuration
  const granted = periods * o.permission.periodAmount
  const left = BigInt(health.total_remaining)
  const remainingBps = granted > 0n ? (left * 10_000n) / granted : 0n
  if (!revoked && remainingBps < BUDGET_WARNING_BPS && o.known.budgetWarnedPeriod === undefined) {
    const perOp = redeemedNow > 0n ? redeemedNow : o.permission.periodAmount
    events.push({ type: 'BudgetWarning', at, remainingPct: Number(remainingBps) / 100, estimatedOperationsLeft: Number(left / perOp) })
  }
  // The renewal request is recorded once per grant end: a renewed grant that still ends before the TTL asks again.
  if (!revoked && health.renewal && o.known.renewalRequestedFor !== o.permission.expiresAt) {
    events.push({
      type: 'RenewalRequested',
      at,
      delegationHash: o.delegationHash,
      grantEndsAt: o.permission.expiresAt,
      runwayEndsAt: o.runwayEndsAt,
      secondsLeft: BigInt(health.renewal.seconds_left),
    })
  }
  if (die)
    events.push({
      type: 'DeathProtocolStarted',
      at,
      trigger: revokedByOwner ? 'owner-revoked' : next === Phase.Terminal ? 'terminal' : 'delegation-expired',
      vitality: vitality.vitality,
    })
  return { vitality, phase: { current: o.onChainPhase, next, post }, redemption, period, health, events, die }
}
