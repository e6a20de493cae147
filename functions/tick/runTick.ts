// One Golem's tick: read (or take the heartbeat's batched read), decide (core/lifecycle), then carry the
// decision out exactly once: post the phase, redeem the runway, record events, and in Terminal run
// the death protocol. Every transaction goes through a store slot (sendOnce).
import { encodeFunctionData, erc20Abi, type Hex } from 'viem'
import { VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import { encodeRedemptions } from '../../core/delegations/index.ts'
import { parseGolemProfile, toDelegations, type GolemProfile } from '../../core/lifecycle/profile.ts'
import { permissionFactsOf } from '../../core/lifecycle/permissionFacts.ts'
import { currentPeriod, decideTick, type GolemObservation, type TickDecision } from '../../core/lifecycle/tick.ts'
import { phaseNames, type Phase } from '../../core/lifecycle/phase.ts'
import type { CustodyEvent } from '../../core/lifecycle/custodyEvents.ts'
import type { GolemRecord, JsonInputObject, JsonInputValue, Store } from '../../core/store/index.ts'
import { readGolems } from '../shared/readGolems.ts'
import { runDeathProtocol } from './death.ts'
import { sendOnce } from './sendOnce.ts'
import { phaseChangedEvent, settlePendingSlots } from './reconcile.ts'
import { rotateSessionKey } from './rotate.ts'
import { serveReprieve } from './reprieve.ts'
import { finishTick } from './finish.ts'
import { rotationFitsGrant } from '../../core/lifecycle/renewal.ts'
import type { ObservedGolem, TickDeps, TickResult } from './types.ts'

const DEFAULT_LEASE_MS = 120_000
const DEFAULT_INTERVAL_S = 60

export function readRequestOf(golemId: string, profile: GolemProfile) {
  return {
    golemId,
    golemKey: profile.golemKey,
    chainHashes: profile.runway.chainHashes,
    periodDelegationHash: profile.runway.periodDelegationHash,
    periodTerms: profile.runway.periodTerms,
  }
}

export function observationOf(golemId: string, profile: GolemProfile, read: ObservedGolem, reserved: bigint): GolemObservation {
  return {
    golemId,
    delegationHash: profile.runway.chainHashes[0] as Hex,
    now: read.timestamp,
    onChainPhase: read.phase,
    registered: read.registered,
    dreaming: read.dreaming,
    bornAt: profile.life.bornAt,
    runwayEndsAt: profile.life.runwayEndsAt,
    runwayTotalSeconds: profile.life.runwayTotalSeconds,
    lastInsightAt: profile.life.lastInsightAt,
    reservedAmount: reserved,
    known: {
      revokedReported: profile.known.revokedReported,
      expiringWarned: profile.known.expiringWarned,
      ...(profile.known.budgetWarnedPeriod === null ? {} : { budgetWarnedPeriod: profile.known.budgetWarnedPeriod }),
      ...(profile.known.renewalRequestedFor === undefined ? {} : { renewalRequestedFor: profile.known.renewalRequestedFor }),
    },
    permission: permissionFactsOf(profile, read),
  }
}

/** Events are keyed so that a retried tick appends each one once. */
function eventKey(e: CustodyEvent, decision: TickDecision): string {
  switch (e.type) {
    case 'PhaseChanged':
      return `phase:${e.to}`
    case 'BudgetWarning':
      return `${e.type}:${decision.period}`
    case 'RenewalRequested':
      // Once per grant end: a renewed grant that still ends too early asks again.
      return `${e.type}:${e.grantEndsAt}`
    case 'RunwayRedeemed':
      // Its own period: a redemption settled from an earlier period is not this period's.
      return `${e.type}:${e.period}`
    default:
      return e.type
  }
}

function jsonData(e: CustodyEvent): JsonInputObject {
  const out: JsonInputObject = {}
  for (const [k, v] of Object.entries(e)) if (k !== 'type' && k !== 'at') out[k] = Array.isArray(v) ? [...(v as string[])] : (v as JsonInputValue)
  return out
}

export async function appendEvents(store: Store, golemId: string, events: readonly CustodyEvent[], keyOf: (e: CustodyEvent) => string): Promise<void> {
  for (const e of events) {
    await store.appendEvent({ golemId, type: e.type, at: Number(e.at) * 1000, eventId: keyOf(e), data: jsonData(e) })
  }
}

async function takeLease(deps: TickDeps, golem: GolemRecord, nowMs: number): Promise<GolemRecord | null> {
  const leaseMs = deps.leaseMs ?? DEFAULT_LEASE_MS
  const last = golem.lastTick
  if (last?.outcome === 'running' && nowMs < last.at + leaseMs) return null
  const updated = await deps.store.updateGolem({
    golemId: golem.golemId,
    expectedVersion: golem.version,
    patch: { lastTick: { at: nowMs, period: last?.period ?? 0n, outcome: 'running', txHash: last?.txHash ?? null } },
    now: nowMs,
  })
  return updated.updated ? updated.golem : null
}

export async function runTick(deps: TickDeps, input: { golemId: string; observed?: ObservedGolem }): Promise<TickResult> {
  const { store } = deps
  const golemId = input.golemId
  const record = await store.getGolem(golemId)
  if (!record) return { golemId, outcome: 'unknown' }
  if (record.status === 'dead') return { golemId, outcome: 'dead' }
  const profile = parseGolemProfile(record.profile)
  let read = input.observed
  if (!read) {
    const batch = await readGolems(deps.client, deps.deployment, [readRequestOf(golemId, profile)])
    read = { ...batch.golems[0]!, timestamp: batch.timestamp }
  }
  const nowMs = Number(read.timestamp) * 1000
  const golem = await takeLease(deps, record, nowMs)
  if (!golem) return { golemId, outcome: 'busy' }
  if (golem.status === 'dying') return runDeathProtocol(deps, golem, profile, read, nowMs)

  // Slots and budgets are keyed by the absolute period (period start / duration), not the enforcer's
  // per-delegation counter: a rotated key's new grant must never reopen a period already redeemed.
  const observation = observationOf(golemId, profile, read, 0n)
  const period = currentPeriod(observation.permission)
  const leaseMs = deps.leaseMs ?? DEFAULT_LEASE_MS
  const slotBase = { store, client: deps.client, chainId: deps.deployment.chainId, owner: deps.invocationId, now: nowMs, leaseMs }
  // A transaction an earlier tick recorded but never saw through is settled first (functions/tick/reconcile.ts).
  // The record as it was before this tick's lease: 'running' there means the last tick never finished.
  const pending = await settlePendingSlots(slotBase, golem, read, period, record.lastTick?.outcome === 'running')
  const decide = (o: GolemObservation) => decideTick({ ...o, reservedAmount: pending.reservedAmount, ...(deps.vitalityParameters ? { vitalityParameters: deps.vitalityParameters } : {}) })
  let decision = decide(observation)
  // A paid feed's reprieve is served first: the tick then decides from the reset phase.
  const reprieve = await serveReprieve(deps, slotBase, golemId, profile, read, decision.vitality.vitality)
  let phaseEpoch = profile.phaseEpoch ?? 0
  if (reprieve.resetTo !== undefined) {
    phaseEpoch += 1
    decision = decide({ ...observation, onChainPhase: reprieve.resetTo })
  }
  const { signer } = await deps.signers.resolve(profile)
  const revocation = decision.health.revocation
  const result: TickResult = { golemId, outcome: 'ticked', vitality: decision.vitality.vitality, health: decision.health.health, revocation: revocation.kind }
  // PhaseChanged is written from the chain once the post confirms (below), not from this decision.
  // DelegationRevoked carries the RevocationState (seed 001 §2.3), so the store says RevokedByOwner, not just "owner".
  const events: CustodyEvent[] = [
    ...pending.events,
    ...decision.events
      .filter((e) => e.type !== 'PhaseChanged')
      .map((e) => (e.type === 'DelegationRevoked' ? ({ ...e, revocation: revocation.kind, detectedAt: read.timestamp } as CustodyEvent) : e)),
  ]

  let phaseNow: Phase = decision.phase.current
  if (decision.phase.post) {
    // Keyed by the phase epoch: after a reprieve reset, the Golem may post a phase it posted before.
    const phaseSlot = { golemId, period: 0n, step: phaseEpoch === 0 ? `phase-${decision.phase.next}` : `phase-${decision.phase.next}-e${phaseEpoch}` }
    const sent = await sendOnce({
      ...slotBase,
      slot: phaseSlot,
      afterBroadcast: () => deps.afterBroadcast?.('phase'),
      build: async () => ({
        sender: signer.address,
        to: deps.deployment.vitalityOracle,
        data: encodeFunctionData({ abi: VitalityOracleAbi, functionName: 'updatePhase', args: [decision.phase.next, decision.vitality.survivalScoreBps] }),
        sign: (tx) => signer.signOracleUpdate(tx),
      }),
    })
    // The transaction that confirmed may be an earlier tick's (its signed bytes re-broadcast from the
    // slot), carrying that tick's score: record what the chain did, timed as the tick that signed it.
    const completed = sent.status === 'confirmed' || (sent.status === 'busy' && sent.reason === 'completed')
    const posted = completed ? await phaseChangedEvent(deps.client, store, phaseSlot, sent.status === 'confirmed' ? sent.receipt : undefined) : null
    if (posted) events.push(posted)
    if (posted || (sent.status === 'busy' && sent.reason === 'leased')) phaseNow = decision.phase.next
    result.phase = { from: decision.phase.current, to: decision.phase.next, posted: sent.status === 'confirmed' }
  }

  if (decision.die && phaseNow === decision.phase.next) {
    await appendEvents(store, golemId, events, (e) => eventKey(e, decision))
    const dying = await store.updateGolem({ golemId, expectedVersion: golem.version, patch: { status: 'dying', phase: phaseNames[phaseNow] }, now: nowMs })
    if (!dying.updated) return { ...result, outcome: 'busy' }
    // The read predates this tick's phase post: the death record must name the phase the Golem died in.
    const died = await runDeathProtocol(deps, dying.golem, profile, { ...read, phase: phaseNow }, nowMs)
    return { ...died, vitality: result.vitality ?? 0, ...(result.phase ? { phase: result.phase } : {}), events: events.map((e) => e.type) }
  }

  let txHash: Hex | null = null
  const plan = decision.redemption
  if (pending.runway) {
    // This period's redemption was sent by an earlier tick and is settled now: never a second one.
    txHash = pending.runway.txHash
    result.redemption = { status: pending.runway.status, amount: pending.runway.amount, txHash, reason: 'settled from an earlier tick' }
  } else if (plan.action === 'redeem') {
    const sent = await sendOnce({
      ...slotBase,
      slot: { golemId, period, step: 'runway' },
      reserve: { amount: plan.amount, cap: profile.runway.periodAmount },
      afterBroadcast: () => deps.afterBroadcast?.('runway'),
      build: async () => ({
        sender: signer.address,
        to: deps.deployment.environment.DelegationManager,
        data: encodeRedemptions([
          {
            chain: toDelegations(profile.runway.chain),
            executions: [{ target: profile.runway.token, value: 0n, callData: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [profile.golemKey, plan.amount] }) }],
          },
        ]),
        sign: (tx) => signer.signRedemptionTransaction(tx, { spent: plan.amount }),
      }),
    })
    txHash = 'txHash' in sent ? sent.txHash : null
    result.redemption = { status: sent.status, amount: plan.amount, txHash, ...('reason' in sent ? { reason: sent.reason } : {}) }
    if (sent.status === 'confirmed') events.push({ type: 'RunwayRedeemed', at: read.timestamp, amount: plan.amount, txHash: sent.txHash, period })
  } else {
    result.redemption = { status: plan.action === 'revoke' ? 'revoke' : 'skipped', reason: plan.reason }
  }

  await appendEvents(store, golemId, events, (e) => eventKey(e, decision))
  await finishTick({
    store,
    golem,
    profile,
    events,
    phase: phaseNow,
    period,
    nowMs,
    nextTickAt: nowMs + (deps.tickIntervalSeconds ?? DEFAULT_INTERVAL_S) * 1000,
    outcome: result.redemption?.status ?? 'ticked',
    txHash,
    servedReprieve: reprieve.served ? profile.reprieve : undefined,
    phaseEpoch,
  })
  const rotated = await maybeRotate(deps, golemId, decision, read)
  return { ...result, events: events.map((e) => e.type), ...(rotated ? { rotated } : {}) }
}

async function maybeRotate(deps: TickDeps, golemId: string, decision: TickDecision, read: ObservedGolem) {
  if (!deps.rotation || decision.die) return null
  const record = await deps.store.getGolem(golemId)
  if (!record || record.status !== 'alive') return null
  const profile = parseGolemProfile(record.profile)
  // A rotation in flight is finished whatever the old key's state: the oracle may already have moved
  // the identity (the old key then reads unregistered).
  let reason = profile.pendingRotation?.reason
  if (reason === undefined) {
    if (!read.registered) return null
    const { sessionKey } = await deps.signers.resolve(profile)
    const due = sessionKey?.shouldRotate(Number(read.timestamp))
    if (!due?.rotate) return null
    reason = due.reason
  }
  // The renewed grant starts on the old grant's next period boundary: the same period grid, and the
  // current period (already redeemed by the old key) cannot be redeemed again by the new one.
  const nextPeriodStart = observationOf(golemId, profile, read, 0n).permission.currentPeriodStart + profile.runway.periodDuration
  // A rotation already in flight is finished; a new one needs grant left to hand over.
  if (!profile.pendingRotation && !rotationFitsGrant(nextPeriodStart, profile.runway.expiresAt)) return null
  return rotateSessionKey({ ...deps, rotation: deps.rotation }, record, profile, {
    now: read.timestamp,
    nowMs: Number(read.timestamp) * 1000,
    reason,
    nextPeriodStart,
  })
}
