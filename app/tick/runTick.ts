// One Golem's tick, in one direction: observe (the record, read once, and the heartbeat's batched chain
// read), plan (core/lifecycle/tickPlan.ts), execute the plan's effects exactly once through store slots
// (sendOnce), and write the outcome back once.
import { encodeFunctionData, erc20Abi, type Hex } from 'viem'
import { VitalityOracleTickAbi } from '../../adapters/chain/oracleAbi.ts'
import { encodeRedemptions, signedTransferAmount } from '../../core/delegations/redeem.ts'
import type { TickFees } from '../../core/fees.ts'
import type { CustodyEvent } from '../../core/lifecycle/custodyEvents.ts'
import { inTickOrder, tickEventTime } from '../../core/lifecycle/eventOrder.ts'
import { readRequestOf, type ObservedGolem } from '../../core/lifecycle/observation.ts'
import { phaseNames, type Phase } from '../../core/lifecycle/phase.ts'
import { golemVitalSigns } from '../../core/lifecycle/golemVitalSigns.ts'
import { grantInForce } from '../../core/lifecycle/grantInForce.ts'
import { adjustmentInForce } from '../../core/lifecycle/adjustmentInForce.ts'
import { parseGolemProfile, toDelegations, type GolemProfile } from '../../core/lifecycle/profile.ts'
import { advanceConfirmingCredits, reconcileCredits } from '../../core/lifecycle/applyPaymentCredit.ts'
import { planRotation } from '../../core/lifecycle/rotationPlan.ts'
import {
  eventKey,
  MAX_PHASE_POST_ATTEMPTS,
  MAX_REDEMPTION_ATTEMPTS,
  planTick,
  RUNWAY_STEP,
  tickPeriod,
  type TickPlan,
} from '../../core/lifecycle/tickPlan.ts'
import { planGas } from '../../core/lifecycle/gasPlan.ts'
import { RETRY, retry } from '../../core/retry.ts'
import { confirmationDepth } from '../../core/finality.ts'
import type { GolemRecord, JsonInputObject, JsonInputValue, SlotRef, TickStore } from '../../core/store/index.ts'
import { readGolems } from '../../adapters/chain/readGolems.ts'
import { sendOnce } from '../../adapters/chain/sendOnce.ts'
import { waitForBlockReceipt } from '../../adapters/chain/blockReceipts.ts'
import { runDeathProtocol } from './death.ts'
import { topUpGas } from './gas.ts'
import { finishTick } from './finish.ts'
import { phaseChangedEvent, settlePendingSlots } from './reconcile.ts'
import { DEFAULT_LEASE_MS, movedAmount, sendAttempts, sentAtSeconds, slotBaseOf, type SlotBase } from './slots.ts'
import { serveReprieve } from './reprieve.ts'
import { selfExtend } from './selfExtend.ts'
import { rotateSessionKey } from './rotate.ts'
import { closeAllIfDue, windDownOrNothing, windDownSummary } from './windDown.ts'
import { revokeBeforeFall } from '../../core/lifecycle/windDownPlan.ts'
import type { TickDeps, TickResult } from './types.ts'
import { InvariantError } from '../../core/errors.ts'
import { countsAsFailure, isHalted, parseMaxConsecutiveFailures } from '../../core/lifecycle/heartbeatAnomaly.ts'
import { haltedDeathDue } from '../../core/lifecycle/haltedDeath.ts'
import { recordTickFailure } from './failure.ts'

const DEFAULT_INTERVAL_S = 60
/** How long a tick waits for a re-broadcast phase post's receipt, as long as a first send's. */
const POST_RECEIPT_TIMEOUT_MS = 60_000

function jsonData(e: CustodyEvent): JsonInputObject {
  const out: JsonInputObject = {}
  for (const [k, v] of Object.entries(e))
    if (k !== 'type' && k !== 'at') out[k] = Array.isArray(v) ? [...(v as string[])] : (v as JsonInputValue)
  return out
}

export async function appendEvents(
  store: TickStore,
  golemId: string,
  events: readonly CustodyEvent[],
  keyOf: (e: CustodyEvent) => string,
): Promise<void> {
  for (const e of inTickOrder(events)) {
    await store.appendEvent({ golemId, type: e.type, at: tickEventTime(Number(e.at) * 1000, e.type), eventId: keyOf(e), data: jsonData(e) })
  }
}

/**
 * A tick owns its Golem for the lease; a tick still running within its lease makes this one `busy`. The
 * write is conditional on the version this tick read, so a stale copy (the heartbeat's, carried in the
 * payload) can never take a lease over a newer record. When the version moved but the record the store
 * answers with is still due and not leased (a credit or a renewal landed in between), the lease is taken
 * on that record instead; one that another tick already finished this minute (its nextTickAt moved past
 * now) or still holds leaves this one `busy`: never two ticks of one Golem in a minute. The record the
 * lease was taken on comes back with its profile parsed, parsed only where its text changed.
 */
async function takeLease(
  deps: TickDeps,
  read: GolemRecord,
  readProfile: GolemProfile,
  nowMs: number,
  freshCount = false,
): Promise<{ before: GolemRecord; profile: GolemProfile; golem: GolemRecord } | null> {
  const leaseMs = deps.leaseMs ?? DEFAULT_LEASE_MS
  let before = read
  let profile = readProfile
  return retry({ attempts: 3, exhausted: () => null }, async () => {
    const last = before.lastTick
    if (last?.outcome === 'running' && nowMs < last.at + leaseMs) return null
    const updated = await deps.store.updateGolem({
      golemId: before.golemId,
      expectedVersion: before.version,
      // The count of failed ticks rides on the lease: only a tick that finishes clears it.
      patch: {
        lastTick: {
          at: nowMs,
          period: last?.period ?? 0n,
          outcome: 'running',
          txHash: last?.txHash ?? null,
          ...(last?.failures === undefined || freshCount ? {} : { failures: last.failures }),
        },
      },
      now: nowMs,
    })
    if (updated.updated) return { before, profile, golem: updated.golem }
    const current = updated.current
    if (
      !current ||
      current.status === 'dead' ||
      isHalted(current.lastTick) ||
      current.nextTickAt > nowMs ||
      current.nextTickAt > before.nextTickAt
    )
      return null
    if (current.profile === null) return null
    const currentProfile = current.profile === before.profile ? profile : parseGolemProfile(current.profile)
    // The chain was read for the copy's delegations and key: a newer record that reads others waits a minute.
    if (!sameReads(before.golemId, profile, currentProfile)) return null
    before = current
    profile = currentProfile
    return RETRY
  })
}

function sameReads(golemId: string, a: GolemProfile, b: GolemProfile): boolean {
  if (a === b) return true
  const reads = (p: GolemProfile) =>
    JSON.stringify(readRequestOf(golemId, p), (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))
  return reads(a) === reads(b)
}

function adjustedEvent(before: GolemProfile, after: GolemProfile, at: bigint): Extract<CustodyEvent, { type: 'DelegationAdjusted' }> {
  return {
    type: 'DelegationAdjusted',
    at,
    delegationHash: after.runway.periodDelegationHash as Hex,
    replaced: before.runway.periodDelegationHash as Hex,
    periodAmount: after.runway.periodAmount,
    periodStart: after.runway.periodStart,
    expiresAt: after.runway.expiresAt,
  }
}

async function readFor(deps: TickDeps, golemId: string, profile: GolemProfile): Promise<ObservedGolem> {
  const batch = await readGolems(deps.client, deps.deployment, [readRequestOf(golemId, profile)])
  return { ...batch.golems[0]!, timestamp: batch.timestamp }
}

/**
 * `record` and `observed` spare the tick its reads; `profile`, the record's profile already parsed (by the
 * walker, in this process), spares it the parse, and comes only with the record it was parsed from.
 */
export async function runTick(
  tickDeps: TickDeps,
  input: { golemId: string; observed?: ObservedGolem; record?: GolemRecord; profile?: GolemProfile; fees?: TickFees },
): Promise<TickResult> {
  // The heartbeat's fee data prices every transaction of this tick (sendOnce reads fees only without it).
  const deps: TickDeps = input.fees ? { ...tickDeps, fees: input.fees } : tickDeps
  const { store } = deps
  const golemId = input.golemId
  // A bad limit fails the tick before anything is read or written.
  const maxConsecutiveFailures = parseMaxConsecutiveFailures(deps.maxConsecutiveFailures, 'maxConsecutiveFailures')
  // Observe: the record once, the chain once; the heartbeat hands over both (the lease checks the copy).
  const given = input.record
  if (given && given.golemId !== golemId)
    throw new InvariantError('TICK_RECORD_MISMATCH', `tick: record.golemId ${given.golemId} must be the tick's golemId ${golemId}`)
  if (input.profile && !given)
    throw new InvariantError('TICK_PROFILE_WITHOUT_RECORD', 'tick: profile must come with the record it was parsed from')
  const read0 = given ?? (await store.getGolem(golemId))
  if (!read0) return { golemId, outcome: 'unknown' }
  if (read0.status === 'dead') return { golemId, outcome: 'dead' }
  // Halted by the heartbeat anomaly: no tick runs for it, so nothing more is redeemed; only its death
  // does, once it is due (core/lifecycle/haltedDeath.ts). A death the halt caught midway stays halted.
  const halted = isHalted(read0.lastTick)
  if (halted && read0.status !== 'alive') return { golemId, outcome: 'halted' }
  // Parsed before the lease (or handed over parsed): a profile the tick cannot read fails the tick before
  // anything is written.
  const profile0 = input.profile ?? parseGolemProfile(read0.profile)
  // A chain with no confirmation depth, or a bad one configured, fails the tick before anything is written.
  confirmationDepth(deps.deployment.chainId, deps.confirmations)
  const read = input.observed ?? (await readFor(deps, golemId, profile0))
  if (halted && !haltedDeathDue({ golemId, profile: profile0, read, ...planParameters(deps) })) return { golemId, outcome: 'halted' }
  const nowMs = Number(read.timestamp) * 1000
  // The death of a halted Golem counts its failures afresh: one more would halt it again at once.
  const leased = await takeLease(deps, read0, profile0, nowMs, halted)
  if (!leased) return { golemId, outcome: 'busy' }
  try {
    return await tickLeased(deps, golemId, leased, read, nowMs, halted)
  } catch (error) {
    // Counted on the record, then thrown on as before (the caller logs it; Lambda retries the event).
    // A store that cannot take the count leaves it as it was: the tick's own error is what is thrown.
    if (countsAsFailure(error)) await recordTickFailure({ store, maxConsecutiveFailures }, golemId, nowMs, error).catch(() => null)
    throw error
  }
}

/** The tick once it holds its Golem's lease. */
async function tickLeased(
  deps: TickDeps,
  golemId: string,
  leased: { before: GolemRecord; profile: GolemProfile; golem: GolemRecord },
  observed: ObservedGolem,
  nowMs: number,
  halted = false,
): Promise<TickResult> {
  const { store } = deps
  let read = observed
  // The record as it was just before this tick's lease (the copy, or the newer one the lease was taken on).
  const { before: record, profile: stored, golem } = leased
  // Once the runway's end has passed, the owner's queued renewal is in force: the chain was read for the
  // old grant, so the new one is read once more (only at the tick that switches).
  const renewed = grantInForce(stored, read.timestamp)
  if (renewed !== stored) read = await readFor(deps, golemId, renewed)
  // The owner disabled the grant a signed adjustment supersedes: the adjustment takes its place (read
  // once more); a disabled runway with no adjustment waiting is the owner's revocation.
  const profile = adjustmentInForce(renewed, read)
  const adjusted = profile !== renewed ? adjustedEvent(renewed, profile, read.timestamp) : undefined
  if (adjusted) read = await readFor(deps, golemId, profile)
  if (golem.status === 'dying') return withDeathVitals(profile, read, await runDeathProtocol(deps, golem, profile, read, nowMs))

  const slotBase = slotBaseOf(deps, nowMs)
  const vitalityParameters = planParameters(deps)
  // A transaction an earlier tick recorded but never saw through is settled before anything is decided.
  // The record as it was before this tick's lease: 'running' there means the last tick never finished.
  const period = tickPeriod(profile, read)
  const pending = await settlePendingSlots(slotBase, golem, profile, read, period, record.lastTick)
  // A slot settled here is confirmed in the store already, so no later tick would find it again: its event
  // is written now, before anything of this tick can throw (the tick's own write of it later is the same
  // key, so nothing is written twice).
  await appendEvents(store, golemId, pending.events, (e) => eventKey(e, period))
  await repairCredits(deps, record, profile, period)
  await advanceCredits(deps, golemId, read.timestamp, nowMs)
  // Plan once; then execute in order: a paid feed's reprieve first (the plan is the reset phase's, or the
  // current phase's should the reset not land this tick), then the plan's effects.
  const planned = planTick({ golemId, profile, read, pending, ...vitalityParameters })
  if (halted) {
    if (!planned.die) {
      // The record or the chain moved since the death was judged due: the halt is put back as it was.
      await store.updateGolem({ golemId, expectedVersion: golem.version, patch: { lastTick: record.lastTick }, now: nowMs })
      return { golemId, outcome: 'halted' }
    }
    const events = adjusted ? [adjusted, ...planned.events] : planned.events
    const died = await startDeath(deps, golem, profile, read, events, planned.period, planned.decision.phase.current, nowMs)
    return died ? withDeathVitals(profile, read, { ...died, events: events.map((e) => e.type) }) : { golemId, outcome: 'busy' }
  }
  const resetTo = await serveReprieve(deps, slotBase, golemId, profile, planned.reprieve)
  const plan: TickPlan = planned.unreset && resetTo === undefined ? planned.unreset : planned
  const servedReprieve = planned.reprieve.kind === 'served' || resetTo !== undefined
  const { decision } = plan

  const { signer } = await deps.signers.resolve(profile)
  const result: TickResult = {
    golemId,
    outcome: 'ticked',
    vitality: decision.vitality.vitality,
    health: decision.health.health,
    revocation: decision.health.revocation.kind,
  }
  const events = adjusted ? [adjusted, ...plan.events] : [...plan.events]
  // Gas first: every other transaction of the tick is paid from it.
  if (profile.gas) {
    const gasStep = planGas(profile, read, plan.die)
    const topUp = await topUpGas(deps, slotBase, golemId, profile, gasStep, signer)
    result.gas = topUp.result
    if (topUp.event) events.push(topUp.event)
  }

  let phaseNow: Phase = decision.phase.current
  // Approve is an opening action, which the chain refuses from Conservation on: the Golem's allowances are
  // revoked while it is still Stable or better, just before it posts the fall.
  if (revokeBeforeFall(decision.phase.current, plan.postPhase?.next))
    result.windDown = windDownSummary(
      await windDownOrNothing(deps, slotBase, golemId, profile, {
        phase: decision.phase.current,
        scope: 'approvals',
        signer: async () => signer,
      }),
    )
  if (plan.postPhase) {
    const post = plan.postPhase
    const postOnce = (slot: SlotRef) =>
      sendOnce({
        ...slotBase,
        slot,
        afterBroadcast: () => deps.afterBroadcast?.('phase'),
        build: async () => ({
          sender: signer.address,
          to: deps.deployment.vitalityOracle,
          data: encodeFunctionData({ abi: VitalityOracleTickAbi, functionName: 'updatePhase', args: [post.next, post.survivalScoreBps] }),
          sign: (tx) => signer.signOracleUpdate(tx),
        }),
      })
    const postAttempt = async (slot: SlotRef) => {
      const first = await postOnce(slot)
      // A post an earlier tick signed and this one found unmined sits in the node's pool once re-broadcast
      // from its slot: its receipt is waited for here, as a first send's is, and the slot settled from it.
      // Left in the pool, the tick would end on the phase it started from while the post lands behind it:
      // on the Golem's last day, alive with Terminal on-chain, its death protocol not started.
      if (first.status !== 'pending' || first.confirmations !== 0) return first
      await waitForBlockReceipt(deps.client, { hash: first.txHash, timeout: POST_RECEIPT_TIMEOUT_MS })
      return postOnce(slot)
    }
    // An attempt that settled without landing is spent (MAX_PHASE_POST_ATTEMPTS): the next one is sent.
    const { sent, slot: phaseSlot } = await sendAttempts(store, {
      first: { golemId, period: 0n, step: post.step },
      from: 1,
      max: MAX_PHASE_POST_ATTEMPTS,
      send: postAttempt,
    })
    // The transaction that confirmed may be an earlier tick's (its signed bytes re-broadcast from the
    // slot), carrying that tick's score: record what the chain did, timed as the tick that signed it.
    const completed = sent.status === 'confirmed' || (sent.status === 'busy' && sent.reason === 'completed')
    const posted = completed
      ? await phaseChangedEvent(deps.client, store, phaseSlot, sent.status === 'confirmed' ? sent.receipt : undefined)
      : null
    if (posted) events.push(posted)
    if (posted || (sent.status === 'busy' && sent.reason === 'leased')) phaseNow = post.next
    result.phase = { from: decision.phase.current, to: post.next, posted: sent.status === 'confirmed' }
  }

  if (plan.die && phaseNow === decision.phase.next) {
    // The read predates this tick's phase post: the death record must name the phase the Golem died in.
    const afterPost = { ...read, phase: phaseNow, survivalScoreBps: plan.postPhase?.survivalScoreBps ?? read.survivalScoreBps }
    const died = await startDeath(deps, golem, profile, afterPost, events, plan.period, phaseNow, nowMs)
    if (!died) return { ...result, outcome: 'busy' }
    // A death still pending reports this tick's vitality; a finished one the final 0.
    const reported = died.outcome === 'died' ? died : { ...died, vitality: result.vitality ?? 0 }
    const posted = Boolean(result.phase?.posted || died.phase?.posted)
    const moved = died.outcome === 'died' ? { phase: { from: decision.phase.current, to: 4, posted } } : {}
    return withDeathVitals(profile, read, { ...reported, ...moved, events: events.map((e) => e.type) }, decision.phase.current)
  }

  // Declining unwinds (every vault share redeemed to the owner's account, through the action grant), and
  // so does any tick after which the grant covering a position stops acting before the next one.
  const closed = await closeAllIfDue(deps, slotBase, golemId, profile, {
    phase: phaseNow,
    nextTickAt: read.timestamp + BigInt(deps.tickIntervalSeconds ?? DEFAULT_INTERVAL_S),
    signer: async () => signer,
  })
  if (closed) result.windDown = windDownSummary(closed)

  // Runtime paid by delegation comes from the owner's account through the runway grant itself: nothing
  // is redeemed to the key. Otherwise the runway is redeemed to the key, which pays from it.
  const redeemed =
    deps.selfExtension?.byDelegation && plan.runway.kind === 'redeem'
      ? { result: { status: 'skipped', reason: "runtime is paid by delegation from the owner's grant" }, txHash: null }
      : await redeemRunway(deps, slotBase, golemId, profile, plan, signer)
  result.redemption = redeemed.result
  if (redeemed.event) events.push(redeemed.event)
  // After the redemption: the runway it just moved to the key (or the grant) is what pays for the runtime.
  if (deps.selfExtension)
    result.selfExtension = await selfExtend({ ...deps, selfExtension: deps.selfExtension }, slotBase, golemId, profile, {
      now: read.timestamp,
      phase: phaseNow,
      dying: plan.die,
      beatSeconds: BigInt(deps.tickIntervalSeconds ?? DEFAULT_INTERVAL_S),
    })

  await appendEvents(store, golemId, events, (e) => eventKey(e, plan.period))
  const finished = await finishTick({
    store,
    golem,
    profile,
    events,
    phase: phaseNow,
    period: plan.period,
    nowMs,
    nextTickAt: nowMs + (deps.tickIntervalSeconds ?? DEFAULT_INTERVAL_S) * 1000,
    outcome: result.redemption?.status ?? 'ticked',
    txHash: redeemed.txHash,
    survivalScoreBps: decision.vitality.survivalScoreBps,
    servedReprieve: servedReprieve ? profile.reprieve : undefined,
    phaseEpoch: plan.phaseEpoch,
    chainNow: read.timestamp,
    ...(adjusted ? { adjusted: adjusted.delegationHash } : {}),
  })
  const staggered = plan.runway.kind === 'none' && plan.runway.redeemAt !== undefined
  const rotated = plan.die || !finished ? null : await maybeRotate(deps, finished.record, finished.profile, read, staggered)
  // The phase before this tick moved it: the reprieve's start when a feed reset it, else the read's.
  const reprieved = resetTo !== undefined && planned.reprieve.kind === 'reset' ? planned.reprieve : undefined
  const from = reprieved ? reprieved.from : decision.phase.current
  const vitals = golemVitalSigns(finished?.profile ?? profile, {
    now: read.timestamp,
    lifecycle: 'alive',
    phase: phaseNow,
    vitality: decision.vitality.vitality,
    ...(from === phaseNow ? {} : { from }),
    ...(reprieved && phaseNow < reprieved.from ? { reprieve: true } : {}),
  })
  return {
    ...result,
    ...(reprieved ? { reprieve: { from: reprieved.from, to: reprieved.to } } : {}),
    vitals,
    events: events.map((e) => e.type),
    ...(rotated ? { rotated } : {}),
  }
}

/** What the plan is judged with beside the observation: the vitality configured, and the runtime's price. */
function planParameters(deps: TickDeps): { vitalityParameters?: NonNullable<TickDeps['vitalityParameters']>; runtimeCostPerHour?: bigint } {
  return {
    ...(deps.vitalityParameters ? { vitalityParameters: deps.vitalityParameters } : {}),
    // A Golem that buys its own runtime is judged on what its money projects, not only the TTL paid so far.
    ...(deps.selfExtension ? { runtimeCostPerHour: deps.selfExtension.runtimeCostPerHour } : {}),
  }
}

/**
 * The tick's events written, the Golem marked dying in `phase` (the record this tick leased), and the death
 * protocol run on `read`; null when another writer moved the record first.
 */
async function startDeath(
  deps: TickDeps,
  golem: GolemRecord,
  profile: GolemProfile,
  read: ObservedGolem,
  events: readonly CustodyEvent[],
  period: bigint,
  phase: Phase,
  nowMs: number,
): Promise<TickResult | null> {
  const golemId = golem.golemId
  await appendEvents(deps.store, golemId, events, (e) => eventKey(e, period))
  const dying = await deps.store.updateGolem({
    golemId,
    expectedVersion: golem.version,
    patch: { status: 'dying', phase: phaseNames[phase] },
    now: nowMs,
  })
  if (!dying.updated) return null
  return runDeathProtocol(deps, dying.golem, profile, read, nowMs)
}

/** A death's vital signs: Terminal, vitality 0 and no life left once it has died; while it runs, where the Golem is. */
function withDeathVitals(profile: GolemProfile, read: ObservedGolem, died: TickResult, from: Phase = read.phase): TickResult {
  const dead = died.outcome === 'died'
  const phase = dead ? 4 : (died.phase?.to ?? read.phase)
  const vitals = golemVitalSigns(profile, {
    now: read.timestamp,
    lifecycle: dead ? 'dead' : 'dying',
    phase,
    vitality: died.vitality ?? read.survivalScoreBps / 10_000,
    ...(from < phase ? { from } : {}),
  })
  return { ...died, vitality: vitals.vitality, vitals }
}

/**
 * Once a period (the first tick of a new period), credits journaled since a period before the previous
 * tick and missing from the profile are applied. `before` is the record as this tick read it, before
 * its lease: its lastTick is the previous tick. A repair changes the record, so this tick's outcome is
 * merged into the new version when it is written (finishTick).
 */
async function repairCredits(deps: TickDeps, before: GolemRecord, profile: GolemProfile, period: bigint): Promise<void> {
  const last = before.lastTick
  if (!deps.credits || !last || last.period === period) return
  const sinceMs = last.at - Number(profile.runway.periodDuration) * 1000
  const chainNow = async () => BigInt(Math.floor(last.at / 1000))
  await reconcileCredits(
    { store: deps.store, runtimeCostPerHour: deps.credits.runtimeCostPerHour, chainNow },
    before.golemId,
    sinceMs,
    profile,
  )
}

/** How far back a tick looks for credits still confirming: a day covers any authorization the API accepts for a self-extension or a payer's extend. */
const CONFIRMING_LOOKBACK_MS = 86_400_000

/**
 * Every tick, where settlements may be reorged out (deps.credits.standing), the Golem's credits still
 * confirming are judged again: applied once final, reversed once they can never land, their settlement
 * sent again from its signed bytes when a reorg dropped it. Like a repair, an applied credit changes the
 * record; this tick's outcome is merged into the new version when it is written.
 */
async function advanceCredits(deps: TickDeps, golemId: string, chainSeconds: bigint, nowMs: number): Promise<void> {
  const standing = deps.credits?.standing
  if (!deps.credits || standing === undefined) return
  await advanceConfirmingCredits(
    { store: deps.store, runtimeCostPerHour: deps.credits.runtimeCostPerHour, chainNow: async () => chainSeconds, standing },
    golemId,
    nowMs - CONFIRMING_LOOKBACK_MS,
  )
}

async function redeemRunway(
  deps: TickDeps,
  slotBase: SlotBase,
  golemId: string,
  profile: GolemProfile,
  plan: TickPlan,
  signer: Awaited<ReturnType<TickDeps['signers']['resolve']>>['signer'],
): Promise<{ result: NonNullable<TickResult['redemption']>; txHash: Hex | null; event?: CustodyEvent }> {
  const step = plan.runway
  if (step.kind === 'settled') {
    // This period's redemption was sent by an earlier tick and is settled now: never a second one.
    return {
      result: { status: step.status, amount: step.amount, txHash: step.txHash, reason: 'settled from an earlier tick' },
      txHash: step.txHash,
    }
  }
  if (step.kind === 'none')
    return {
      result: { status: step.status, reason: step.reason, ...(step.redeemAt === undefined ? {} : { redeemAt: step.redeemAt }) },
      txHash: null,
    }
  const sendAttempt = (slot: SlotRef) =>
    sendOnce({
      ...slotBase,
      slot,
      afterBroadcast: () => deps.afterBroadcast?.('runway'),
      // The tick's outcome on the record completes the slot: a confirmed redemption leaves it `sent`, and a
      // tick that follows one that never wrote its outcome settles it from the chain (settlePendingSlots).
      outcomeCompletes: true,
      build: async () => ({
        sender: signer.address,
        to: deps.deployment.environment.DelegationManager,
        data: encodeRedemptions([
          {
            chain: toDelegations(profile.runway.chain),
            executions: [
              {
                target: step.token,
                value: 0n,
                callData: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [step.recipient, step.amount] }),
              },
            ],
          },
        ]),
        sign: (tx) => signer.signRedemptionTransaction(tx, { spent: step.amount }),
      }),
    })
  // An attempt that settled without landing is spent (MAX_REDEMPTION_ATTEMPTS): the redemption goes on under the
  // next one, simulated first like every send, so a cause that persists is refused before it is signed.
  const { sent } = await sendAttempts(deps.store, {
    first: { golemId, period: step.slot.period, step: RUNWAY_STEP },
    from: step.attempt,
    max: MAX_REDEMPTION_ATTEMPTS,
    send: sendAttempt,
  })
  const txHash = 'txHash' in sent ? sent.txHash : null
  // A tick that lost the slot to an earlier one reports that one's redemption: the amount its signed bytes move.
  const amount = movedAmount(sent, signedTransferAmount, step.amount)
  const result = { status: sent.status, amount, txHash, ...('reason' in sent ? { reason: sent.reason } : {}) }
  if (sent.status !== 'confirmed') return { result, txHash }
  // At the time the slot's transaction was recorded (the chain time of the tick that signed it), as a
  // later tick settling the slot writes it: the same event, written once whoever writes it.
  return {
    result,
    txHash,
    event: { type: 'RunwayRedeemed', at: sentAtSeconds(sent.sentAt), amount, txHash: sent.txHash, period: step.slot.period },
  }
}

async function maybeRotate(deps: TickDeps, record: GolemRecord, profile: GolemProfile, read: ObservedGolem, runwayStaggered: boolean) {
  if (!deps.rotation || record.status !== 'alive') return null
  // The key's policy is asked only when there is no rotation in flight and the Golem is registered.
  if (!profile.pendingRotation && !read.registered) return null
  const sessionKey = profile.pendingRotation ? undefined : (await deps.signers.resolve(profile)).sessionKey
  // A key outside the process (KMS) has no SessionKey to ask: the key source judges it from durable facts.
  const durable =
    profile.pendingRotation || sessionKey || !deps.rotation.due ? undefined : await deps.rotation.due(profile, Number(read.timestamp))
  const rotation = planRotation(record.golemId, profile, read, (now) => sessionKey?.shouldRotate(now) ?? durable, runwayStaggered)
  if (!rotation) return null
  return rotateSessionKey({ ...deps, rotation: deps.rotation }, record, profile, {
    now: read.timestamp,
    nowMs: Number(read.timestamp) * 1000,
    reason: rotation.reason,
    nextPeriodStart: rotation.nextPeriodStart,
  })
}
