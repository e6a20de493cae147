// A tick's plan: from one observation of a Golem (its stored profile, one chain read, and what earlier
// ticks left in flight), the ordered effects the tick carries out. Pure: functions/tick executes the
// plan through exactly-once slots and writes the outcome back once.
//
// Order of effects: a paid feed's phase reset first (the plan is then the reset phase's),
// then the phase post, then either the death protocol (the Golem reached Terminal and its post landed)
// or the runway redemption, then the events, then the profile patch, then a key rotation if one is due.
import type { Address, Hex } from 'viem'
import type { CustodyEvent } from './custodyEvents.ts'
import { grantInForce } from './grantInForce.ts'
import { adjustmentInForce } from './adjustmentInForce.ts'
import { observationOf, type ObservedGolem } from './observation.ts'
import { permissionFactsOf } from './permissionFacts.ts'
import { planReprieve, type ReprievePlan } from './reprievePlan.ts'
import type { Phase } from './phase.ts'
import type { GolemProfile } from './profile.ts'
import { runwayTarget } from './runwayTarget.ts'
import { currentPeriod, decideTick, type TickDecision } from './tick.ts'
import type { VitalityParameters } from './vitality.ts'

/** What earlier ticks of this Golem left in flight, as settled at the start of this tick. */
export type PendingWork = {
  /** Events of the slots settled before deciding, timed as the tick that sent them. */
  events: readonly CustodyEvent[]
  /** This period's runway slot, when an earlier tick sent it: this tick must not plan another. */
  runway?: { status: string; amount: bigint; txHash: Hex | null }
  /**
   * The attempt this period's redemption goes under: past the attempts earlier ticks spent (sent and
   * reverted, or never mined); 1 when none was spent or none was read.
   */
  runwayAttempt?: number
  /** What the redemption planner must count as in flight. */
  inFlightAmount: bigint
}

export type TickPlanInput = {
  golemId: string
  profile: GolemProfile
  read: ObservedGolem
  pending: PendingWork
  vitalityParameters?: Partial<VitalityParameters>
  /** The runtime's price, when the Golem buys its own (self-extension): its held runway then counts. */
  runtimeCostPerHour?: bigint
}

export type RunwayStep =
  | { kind: 'settled'; status: string; amount: bigint; txHash: Hex | null }
  | { kind: 'redeem'; slot: { period: bigint; step: string }; attempt: number; amount: bigint; token: Address; recipient: Address }
  /**
   * Nothing sent; a staggered redemption says when in this period it will be redeemed, and
   * `attempts-spent` says every attempt of this period's redemption was spent: the period sends no more.
   */
  | { kind: 'none'; status: 'revoke' | 'skipped' | typeof ATTEMPTS_SPENT; reason: string; redeemAt?: bigint }

export type TickPlan = {
  decision: TickDecision
  /** The absolute period (period start / duration): the key of this period's runway slot and budget. */
  period: bigint
  phaseEpoch: number
  /** The phase post, keyed by the phase epoch so a reset Golem may post a phase again. */
  postPhase?: { step: string; next: Phase; survivalScoreBps: number }
  /** Events to append besides what the phase post writes once it confirms. */
  events: CustodyEvent[]
  runway: RunwayStep
  /** The death protocol runs this tick once the phase post to Terminal has landed. */
  die: boolean
}

/**
 * The whole tick's plan: a paid feed's reprieve first, served before anything else, then the plan. A
 * reprieve that resets the phase comes with the plan for the reset phase and, should the reset not land
 * this tick, the plan for the phase the Golem is in (both decided from the one observation).
 */
export type PlannedTick = TickPlan & { reprieve: ReprievePlan; unreset?: TickPlan }

/** The absolute period the tick acts in (period start / duration): its runway slot's and budget's key. */
export function tickPeriod(profile: GolemProfile, read: ObservedGolem): bigint {
  return currentPeriod(permissionFactsOf(profile, read))
}

/** The slot step of a phase post: the first epoch keeps the plain name so existing slots stay valid. */
export function phaseStep(next: Phase, phaseEpoch: number): string {
  return phaseEpoch === 0 ? `phase-${next}` : `phase-${next}-e${phaseEpoch}`
}

/**
 * How many attempts a phase post may take. An attempt whose slot settled without landing (its nonce taken
 * by another transaction of the key, so it can never be mined, or reverted) is spent: a completed slot is
 * never claimed again, so the post goes on under the next attempt's slot. Without it a Golem whose post of
 * Terminal was dropped (a reorg, a node evicting it) and whose nonce the next send took stayed alive for
 * good. The oracle's phases only move forward, so a post sent twice can at worst revert.
 */
export const MAX_PHASE_POST_ATTEMPTS = 10

/** The slot step of a send's n-th attempt (a phase post, a period's redemption): the first is the send's own step. */
export function attemptStep(step: string, attempt: number): string {
  return attempt <= 1 ? step : `${step}-a${attempt}`
}

/** The slot step of this period's runway redemption: one per period, and one more per spent attempt. */
export const RUNWAY_STEP = 'runway'

/**
 * How many attempts a period's redemption may take: the runway's, and the gas top-up's. A redemption
 * simulated before it was signed can still revert once mined (the owner moved the tokens or the ETH in
 * between) or never be mined (another transaction of the key took its nonce): its slot is then spent,
 * and a completed slot is never claimed again, so without a next attempt the Golem got no runway (or no
 * gas) until the next period. Each attempt is simulated first, so one that would revert again is refused
 * unsent; a reverted one costs the key its gas, which three attempts bound. The period transfer caveat
 * caps what all of them can move together.
 */
export const MAX_REDEMPTION_ATTEMPTS = 3

/** What a period's redemption reports once its every attempt was spent: it sends no more that period. */
export const ATTEMPTS_SPENT = 'attempts-spent'

/**
 * The attempt a tick's redemption starts from as far as the record's last tick says: past every attempt
 * when that tick, in this period, found them all spent (a completed slot never changes, so they stay
 * spent and need no reading again); otherwise undefined, the first or what the store's slots say.
 */
export function runwayAttemptFromRecord(lastTick: { period: bigint; outcome: string } | null, period: bigint): number | undefined {
  return lastTick?.outcome === ATTEMPTS_SPENT && lastTick.period === period ? MAX_REDEMPTION_ATTEMPTS + 1 : undefined
}

/**
 * An event's idempotency key within its Golem: a retried or duplicated tick appends each event once.
 * A phase change is keyed by its target, a budget warning by its period, a redemption by its own
 * period (one settled from an earlier period is not this period's); everything else once per Golem.
 */
export function eventKey(e: CustodyEvent, period: bigint): string {
  switch (e.type) {
    case 'PhaseChanged':
      return `phase:${e.to}`
    case 'BudgetWarning':
      return `${e.type}:${period}`
    case 'RenewalRequested':
      // Once per grant end: a renewed grant that still ends too early asks again.
      return `${e.type}:${e.grantEndsAt}`
    case 'RunwayRedeemed':
    case 'GasRedeemed':
      return `${e.type}:${e.period}`
    case 'DelegationAdjusted':
      // Once per adjustment: an owner may adjust more than once.
      return `${e.type}:${e.delegationHash}`
    default:
      return e.type
  }
}

export function planTick(input: TickPlanInput): PlannedTick {
  const plan = planFrom(input)
  const reprieve = planReprieve(input.profile, input.read, plan.decision.vitality.vitality)
  if (reprieve.kind !== 'reset') return { ...plan, reprieve }
  return { ...planFrom(input, reprieve.to), reprieve, unreset: plan }
}

/** The plan from the phase the chain reports, or from the phase a reprieve resets it to. */
function planFrom(input: TickPlanInput, resetTo?: Phase): TickPlan {
  const { golemId, profile, read, pending } = input
  const phaseEpoch = (profile.phaseEpoch ?? 0) + (resetTo === undefined ? 0 : 1)
  const observation = observationOf(
    golemId,
    profile,
    resetTo === undefined ? read : { ...read, phase: resetTo },
    0n,
    input.runtimeCostPerHour,
  )
  const held = read.runwayHeld
  const decision = decideTick({
    ...observation,
    inFlightAmount: pending.inFlightAmount,
    ...(held === undefined
      ? {}
      : {
          runwayTarget: {
            held,
            target: runwayTarget({
              periodAmount: profile.runway.periodAmount,
              periodDuration: profile.runway.periodDuration,
              ...(profile.runway.keyCeiling === undefined ? {} : { keyCeiling: profile.runway.keyCeiling }),
              ...(input.runtimeCostPerHour === undefined ? {} : { runtimeCostPerHour: input.runtimeCostPerHour }),
            }),
          },
        }),
    ...(input.vitalityParameters ? { vitalityParameters: input.vitalityParameters } : {}),
  })
  // Slots and budgets are keyed by the absolute period, not the enforcer's per-delegation counter: a
  // rotated key's new grant must never reopen a period already redeemed.
  const period = currentPeriod(observation.permission)
  const revocation = decision.health.revocation
  // PhaseChanged is written from the chain once the post confirms, not from this decision; a revocation
  // carries its RevocationState, so the history says RevokedByOwner rather than just "owner".
  const events: CustodyEvent[] = [
    ...pending.events,
    ...decision.events
      .filter((e) => e.type !== 'PhaseChanged')
      .map((e) =>
        e.type === 'DelegationRevoked' ? ({ ...e, revocation: revocation.kind, detectedAt: read.timestamp } as CustodyEvent) : e,
      ),
  ]
  const postPhase = decision.phase.post
    ? { step: phaseStep(decision.phase.next, phaseEpoch), next: decision.phase.next, survivalScoreBps: decision.vitality.survivalScoreBps }
    : undefined
  const runway = runwayStepOf(decision.redemption, pending, period, profile)
  return { decision, period, phaseEpoch, ...(postPhase ? { postPhase } : {}), events, runway, die: decision.die }
}

/** What the tick does with this period's runway: settle an earlier tick's send, redeem, or nothing. */
function runwayStepOf(plan: TickDecision['redemption'], pending: PendingWork, period: bigint, profile: GolemProfile): RunwayStep {
  if (pending.runway) return { kind: 'settled', ...pending.runway }
  if (plan.action !== 'redeem')
    return {
      kind: 'none',
      status: plan.action === 'revoke' ? 'revoke' : 'skipped',
      reason: plan.reason,
      ...(plan.action === 'skip' && plan.reason === 'staggered' ? { redeemAt: plan.redeemAt } : {}),
    }
  const attempt = pending.runwayAttempt ?? 1
  if (attempt > MAX_REDEMPTION_ATTEMPTS)
    return {
      kind: 'none',
      status: ATTEMPTS_SPENT,
      reason: `this period's ${MAX_REDEMPTION_ATTEMPTS} redemption attempts were sent and none landed: the next period redeems again`,
    }
  return {
    kind: 'redeem',
    slot: { period, step: attemptStep(RUNWAY_STEP, attempt) },
    attempt,
    amount: plan.amount,
    token: profile.runway.token,
    recipient: profile.golemKey,
  }
}

/** The grant end a renewal was last requested for: this tick's request, or the one already known. */
function renewalRequestedFor(events: readonly CustodyEvent[], known: bigint | undefined): { renewalRequestedFor?: bigint } {
  const requested = events.find((e) => e.type === 'RenewalRequested')
  const value = requested?.type === 'RenewalRequested' ? requested.grantEndsAt : known
  return value === undefined ? {} : { renewalRequestedFor: value }
}

/** The latest period a RunwayRedeemed event of the tick, or the profile, records. */
function runwayRedeemedPeriod(events: readonly CustodyEvent[], known: bigint | undefined): { runwayRedeemedPeriod?: bigint } {
  let latest = known
  for (const e of events) if (e.type === 'RunwayRedeemed' && (latest === undefined || e.period > latest)) latest = e.period
  return latest === undefined ? {} : { runwayRedeemedPeriod: latest }
}

/**
 * The tick's profile patch, merged into the profile as it is now: x402 credits may land while a tick
 * runs, so the tick's own findings are folded in rather than its stale copy written back. What it
 * reported once stays reported; a served reprieve is cleared unless a newer feed arrived meanwhile.
 */
export function mergeTickOutcome(
  current: GolemProfile,
  outcome: {
    events: readonly CustodyEvent[]
    period: bigint
    phaseEpoch: number
    servedReprieve?: GolemProfile['reprieve']
    /** Chain time of the tick: the grant in force then is the one written back. */
    now?: bigint
    /** The owner's adjustment this tick put in force (its delegation hash): written back in force. */
    adjusted?: Hex
  },
): GolemProfile {
  const renewed = outcome.now === undefined ? current : grantInForce(current, outcome.now)
  const inForce =
    outcome.adjusted !== undefined && renewed.adjustment?.periodDelegationHash === outcome.adjusted
      ? adjustmentInForce(renewed, { disabled: true })
      : renewed
  const merged: GolemProfile = {
    ...inForce,
    known: {
      revokedReported: current.known.revokedReported || outcome.events.some((e) => e.type === 'DelegationRevoked'),
      expiringWarned: current.known.expiringWarned || outcome.events.some((e) => e.type === 'DelegationExpiringWarning'),
      budgetWarnedPeriod: outcome.events.some((e) => e.type === 'BudgetWarning') ? outcome.period : current.known.budgetWarnedPeriod,
      ...renewalRequestedFor(outcome.events, current.known.renewalRequestedFor),
      ...runwayRedeemedPeriod(outcome.events, current.known.runwayRedeemedPeriod),
    },
  }
  if (outcome.phaseEpoch > (current.phaseEpoch ?? 0)) merged.phaseEpoch = outcome.phaseEpoch
  const served = outcome.servedReprieve
  if (served && merged.reprieve && merged.reprieve.requestedAt === served.requestedAt && merged.reprieve.amount === served.amount)
    delete merged.reprieve
  return merged
}
