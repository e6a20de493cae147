// RPC faults: every tick talks to anvil through a proxy that drops, delays or fails a quarter of the
// JSON-RPC requests, and forwards some without returning the answer (a send that lands while the tick
// sees an error). Sends are faulted whichever way they go: eth_sendRawTransactionSync (the receipt in
// the answer, what anvil speaks) or eth_sendRawTransaction. viem does not retry (retryCount 0), so every fault reaches the
// tick. The heartbeat runs again and again (30 s of chain time apart, past the 10 s lease) until every
// Golem's tick for the day completed, then the next day starts. Three Golems with a five-day runway
// live through Thriving, Stable, Conservation and die. At the end the chain and the store must agree:
// no double redemption, no lost redemption, no lost phase update, one deregistration each.
import type { PublicClient } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nextPhase, phaseMultiplierBps, Phase } from '../../core/lifecycle/phase.ts'
import { computeVitality } from '../../core/lifecycle/vitality.ts'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import type { OwnerAccount } from '../../local/devnet.ts'
import { startRpcFaultProxy, type RpcFaultProxy } from '../support/rpcFaultProxy.ts'
import { provisionFleet, type FleetGolem } from './fleet.ts'
import {
  clientThrough,
  DAY,
  USDC,
  allEvents,
  chainNow,
  noShocks,
  passStaggerOffsets,
  periodAt,
  phaseTransitions,
  redemptionsBy,
  startHeartbeatEnv,
  usdcTransfersFrom,
  type HeartbeatEnv,
  WHOLE_RUNWAY_ON_KEY,
  deregistrations,
} from './harness.ts'

const GOLEMS = 3
const RUNWAY_DAYS = 5
const MAX_ROUNDS_PER_DAY = 150
const PERIOD_AMOUNT = USDC(10)
/** How sendOnce sends on anvil (the receipt in the answer), and the plain send it falls back to. */
const SEND = 'eth_sendRawTransactionSync'
const PLAIN_SEND = 'eth_sendRawTransaction'
const SEND_FAULTS = { loseResponse: 0.3, drop: 0.1, fail: 0.1 }

let env: HeartbeatEnv
let proxy: RpcFaultProxy
let faulty: PublicClient
let owner: OwnerAccount
let fleet: FleetGolem[]
const roundsPerDay: number[] = []
let heartbeatErrors = 0
let tickErrors = 0

/** The phase the pure model gives a Golem of the fleet on a given day (no shocks). */
function modelPhase(g: FleetGolem, day: number, offsetSeconds = 0): Phase {
  const life = g.profile.life
  const now = life.bornAt + BigInt(day * DAY + offsetSeconds)
  const v = computeVitality({
    now,
    bornAt: life.bornAt,
    runwayEndsAt: life.runwayEndsAt,
    runwayTotalSeconds: life.runwayTotalSeconds,
    lastInsightAt: life.lastInsightAt,
    seed: g.golemId,
    parameters: noShocks,
  })
  return nextPhase(Phase.Thriving, v.vitality)
}
const expectedPhases = (g: FleetGolem) => Array.from({ length: RUNWAY_DAYS + 1 }, (_, d) => modelPhase(g, d))

beforeAll(async () => {
  env = await startHeartbeatEnv()
  // A fixed seed; BARDO_FAULT_SEED explores other fault sequences (stress runs).
  // The first sends of the run are forced to lose their answer, to drop and to fail, so every run meets
  // those cases whatever the interleaving of the three Golems' requests.
  proxy = await startRpcFaultProxy({
    target: env.devnet.rpcUrl,
    seed: Number(process.env.BARDO_FAULT_SEED ?? 20_261_121),
    scripted: { [SEND]: ['loseResponse', 'drop', 'fail', 'loseResponse'], [PLAIN_SEND]: ['loseResponse', 'drop', 'fail', 'loseResponse'] },
  })
  faulty = clientThrough(env, proxy.url)
  owner = await env.devnet.createOwner()
  fleet = await provisionFleet({
    keyCeiling: WHOLE_RUNWAY_ON_KEY,
    devnet: env.devnet,
    store: env.store,
    signers: env.signers,
    owner,
    count: GOLEMS,
    idPrefix: 'fault',
    periodAmount: PERIOD_AMOUNT,
    runwayDays: RUNWAY_DAYS,
  })
  // Whole days later each tick is past the Golem's stagger offset, so every period's tick redeems.
  await passStaggerOffsets(
    env.devnet,
    fleet.map((g) => g.golemId),
  )

  // 25 % of requests faulted (17 % fail outright); sends are hit harder, lost answers above all.
  proxy.setFaults({ drop: 0.06, delay: 0.08, fail: 0.06, loseResponse: 0.05 }, { [SEND]: SEND_FAULTS, [PLAIN_SEND]: SEND_FAULTS })
  const invoker = new LocalInvoker((id) => env.deps(id, { client: faulty, leaseMs: 10_000, tickIntervalSeconds: 3_600 }), {
    onError: () => tickErrors++,
  })
  for (let day = 0; day <= RUNWAY_DAYS; day++) {
    const dayStartMs = Number(await chainNow(env.client)) * 1000
    let rounds = 0
    for (;;) {
      rounds++
      await runHeartbeat({ store: env.store, client: faulty, deployment: env.devnet.deployment, invoker }).catch(() => heartbeatErrors++)
      const records = await Promise.all(fleet.map((g) => env.store.getGolem(g.golemId)))
      const done = records.every(
        (r) => r?.status === 'dead' || (r?.lastTick && r.lastTick.at >= dayStartMs && r.lastTick.outcome !== 'running'),
      )
      if (done || rounds >= MAX_ROUNDS_PER_DAY) break
      await env.devnet.increaseTime(30)
    }
    roundsPerDay.push(rounds)
    await env.devnet.increaseTime(DAY)
  }
  proxy.setFaults({})
}, 110_000)
afterAll(async () => {
  await proxy?.stop()
  await env?.stop()
})

describe('RPC faults: drops, delays, errors and lost answers on >= 20 % of requests', () => {
  it('faulted at least 20 % of all requests, with every kind of fault, including sends that landed unanswered', () => {
    const s = proxy.stats
    expect(s.faulted / s.requests).toBeGreaterThanOrEqual(0.2)
    for (const kind of ['drop', 'delay', 'fail', 'loseResponse'] as const) expect(s.byKind[kind], kind).toBeGreaterThan(0)
    expect(s.faultsByMethod[`${SEND}:loseResponse`] ?? 0).toBeGreaterThan(0)
    // The faults did reach the ticks (retryCount 0): this is not a fault-free run in disguise.
    expect(tickErrors + heartbeatErrors).toBeGreaterThan(0)
  })

  it('completes every tick eventually: each day ends with every Golem ticked (or dead) within the round budget', async () => {
    expect(roundsPerDay).toHaveLength(RUNWAY_DAYS + 1)
    expect(Math.max(...roundsPerDay)).toBeLessThan(MAX_ROUNDS_PER_DAY)
    for (const g of fleet) expect((await env.store.getGolem(g.golemId))?.status, g.golemId).toBe('dead')
  })

  it('makes 0 double redemptions and loses none: one per (Golem, period), at the phase multiplier', async () => {
    for (const g of fleet) {
      const phases = expectedPhases(g)
      // The model is stable across the retry window, so retries cannot change what a day decides.
      for (let d = 0; d <= RUNWAY_DAYS; d++) expect(modelPhase(g, d, 2 * 3600)).toBe(phases[d])
      const redemptions = await redemptionsBy(env.client, env.devnet.deployment.environment.DelegationManager, g.golemKey)
      const periods = redemptions.map((r) => periodAt(g.profile, r.timestamp))
      expect(new Set(periods).size, `${g.golemId}: a period redeemed twice`).toBe(periods.length)
      const redeemingDays = phases.filter((p) => p !== Phase.Terminal).length
      expect(redemptions, g.golemId).toHaveLength(redeemingDays)
      const transfers = await usdcTransfersFrom(env.client, env.devnet.deployment.assets.usdc, owner.address)
      const mine = transfers.filter((t) => t.to === g.golemKey).map((t) => t.value)
      expect(mine).toEqual(phases.filter((p) => p !== Phase.Terminal).map((p) => (PERIOD_AMOUNT * phaseMultiplierBps[p]) / 10_000n))
    }
  })

  // A slot is left `sent` by the tick that confirmed its redemption (its outcome on the record stands for
  // the completion) and completed `confirmed` by a later tick that settled it after a fault.
  it('keeps the store in step with the chain: every redemption has its slot and RunwayRedeemed', async () => {
    for (const g of fleet) {
      const redemptions = await redemptionsBy(env.client, env.devnet.deployment.environment.DelegationManager, g.golemKey)
      const events = (await allEvents(env.store, g.golemId)).filter((e) => e.type === 'RunwayRedeemed')
      expect(events.map((e) => e.data.txHash).sort(), g.golemId).toEqual(redemptions.map((r) => r.txHash).sort())
      for (const r of redemptions) {
        const period = periodAt(g.profile, r.timestamp)
        const slot = await env.store.getSlot({ golemId: g.golemId, period, step: 'runway' })
        expect(slot, `${g.golemId} period ${period}`).toMatchObject({ txHash: r.txHash })
        expect(['sent', 'confirmed'], `${g.golemId} period ${period}`).toContain(slot?.status)
      }
    }
  })

  it('loses 0 phase updates: the on-chain sequence is the expected one, and every transition is in the store once', async () => {
    for (const g of fleet) {
      const phases = expectedPhases(g)
      const expected: [number, number][] = []
      for (let d = 1; d < phases.length; d++) if (phases[d] !== phases[d - 1]) expected.push([phases[d - 1]!, phases[d]!])
      const onChain = await phaseTransitions(env.client, env.devnet.deployment.vitalityOracle, g.golemKey)
      expect(
        onChain.map((t) => [t.from, t.to]),
        g.golemId,
      ).toEqual(expected)
      const stored = (await allEvents(env.store, g.golemId)).filter((e) => e.type === 'PhaseChanged')
      expect(
        stored.map((e) => [e.data.from, e.data.to, e.data.survivalScoreBps]),
        g.golemId,
      ).toEqual(onChain.map((t) => [t.from, t.to, t.survivalScore]))
      expect((await env.store.getGolem(g.golemId))?.phase).toBe('Terminal')
    }
  })

  it('runs each death protocol to the end once: deregistered once, the record written, the key zeroed', async () => {
    for (const g of fleet) {
      const deregistered = await deregistrations(env, g.golemKey)
      expect(deregistered, g.golemId).toHaveLength(1)
      const death = await env.store.getDeathSettlement(g.golemId)
      expect(death?.settlement, g.golemId).toMatchObject({
        finalPhase: 'Terminal',
        sessionKeyZeroed: true,
        deregisterTx: deregistered[0]!.transactionHash,
      })
      expect(g.sessionKey.zeroed).toBe(true)
      expect((await allEvents(env.store, g.golemId)).filter((e) => e.type === 'DeathCompleted')).toHaveLength(1)
    }
  })
})
