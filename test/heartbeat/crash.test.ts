// A crash between sending and recording: a worker process runs a tick against the same anvil and
// dynalite and is SIGKILLed right after broadcasting (crashWorker.ts), before it sees a receipt or
// writes anything more. The next tick, in this process with another invocation id and after the
// lease, must reconcile from the chain and the store: the slot ends confirmed with the crashed tick's
// transaction, its event is written once, and no second transaction is ever sent.
import { bytesToHex, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SessionKey } from '../../core/custody/index.ts'
import { MemoryKey } from '../../core/custody/memoryKey.ts'
import { runTick } from '../../app/tick/runTick.ts'
import type { OwnerAccount } from '../../local/devnet.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import type { CrashArgs } from './crashWorker.ts'
import { crashArgsOn, crashingTick, type CrashExit } from './crashingTick.ts'
import {
  DAY,
  USDC,
  allEvents,
  chainNow,
  passStaggerOffsets,
  periodAt,
  phaseTransitions,
  redemptionsBy,
  sentCount,
  startHeartbeatEnv,
  usdcBalance,
  usdcTransfersFrom,
  type HeartbeatEnv,
  WHOLE_RUNWAY_ON_KEY,
  deregistrations,
} from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const CHILD_LEASE_MS = 60_000
const STRATEGY =
  '---\nname: crash-golem\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 5\n---\n\nSwap a little USDC into WETH every day.\n'

let env: HeartbeatEnv
let owner: OwnerAccount
/** The key hex of each Golem, handed to the worker only (never printed). */
const keys = new Map<string, Hex>()

async function provisionWithKnownKey(golemId: string): Promise<ProvisionedGolem> {
  const now = await chainNow(env.client)
  const memoryKey = MemoryKey.generate()
  const bytes = memoryKey.exportBytesForKeystore()
  keys.set(golemId, bytesToHex(bytes))
  bytes.fill(0)
  const sessionKey = SessionKey.fromMemoryKey(memoryKey, { expiresAt: Number(now) + 5 * DAY, initialBudget: 0n, now: Number(now) })
  const golem = await provisionGolemIn(env, golemId, {
    owner,
    strategy: STRATEGY,
    runwayDays: 5,
    sessionKey,
    keyCeiling: WHOLE_RUNWAY_ON_KEY,
  })
  // Whole days later the tick is past the Golem's stagger offset: a new period's tick redeems at once.
  await passStaggerOffsets(env.devnet, [golemId])
  return golem
}

/** Runs one tick in a worker process that kills itself right after broadcasting `crashAfter`. */
function tickKilledAfter(golemId: string, crashAfter: CrashArgs['crashAfter']): Promise<CrashExit> {
  const args = crashArgsOn(env, { golemId, invocationId: `worker-${golemId}-${crashAfter}`, crashAfter, leaseMs: CHILD_LEASE_MS })
  return crashingTick(args, keys.get(golemId)!)
}

const dm = () => env.devnet.deployment.environment.DelegationManager

beforeAll(async () => {
  env = await startHeartbeatEnv()
  owner = await env.devnet.createOwner()
})
afterAll(async () => env?.stop())

describe('a worker killed right after broadcasting the runway redemption', () => {
  let golem: ProvisionedGolem
  let crashedTx: Hex

  it('dies with the transaction mined, the slot sent, the Golem leased, and nothing else recorded', async () => {
    golem = await provisionWithKnownKey('crash-runway')
    const exit = await tickKilledAfter(golem.golemId, 'runway')
    expect(exit.signal, exit.output).toBe('SIGKILL')
    const redemptions = await redemptionsBy(env.client, dm(), golem.golemKey)
    expect(redemptions).toHaveLength(1)
    crashedTx = redemptions[0]!.txHash
    const period = periodAt(golem.profile, redemptions[0]!.timestamp)
    expect(await env.store.getSlot({ golemId: golem.golemId, period, step: 'runway' })).toMatchObject({ status: 'sent', txHash: crashedTx })
    expect((await env.store.getGolem(golem.golemId))?.lastTick?.outcome).toBe('running')
    expect((await allEvents(env.store, golem.golemId)).filter((e) => e.type === 'RunwayRedeemed')).toHaveLength(0)
    expect(await sentCount(env.client, golem.golemKey)).toBe(1)
  })

  it('a tick inside the lease leaves the Golem alone', async () => {
    await env.devnet.increaseTime(10)
    expect((await runTick(env.deps('parent-early'), { golemId: golem.golemId })).outcome).toBe('busy')
  })

  it('the next tick after the lease reconciles it: slot confirmed with the crashed tx, one event with the amount it signed, no second send', async () => {
    await env.devnet.increaseTime(120)
    const result = await runTick(env.deps('parent-after-lease'), { golemId: golem.golemId })
    expect(result.outcome).toBe('ticked')
    expect(result.redemption).toMatchObject({ status: 'confirmed', txHash: crashedTx, amount: USDC(20) })
    expect(await sentCount(env.client, golem.golemKey)).toBe(1)
    const redemptions = await redemptionsBy(env.client, dm(), golem.golemKey)
    expect(redemptions.map((r) => r.txHash)).toEqual([crashedTx])
    const period = periodAt(golem.profile, redemptions[0]!.timestamp)
    expect(await env.store.getSlot({ golemId: golem.golemId, period, step: 'runway' })).toMatchObject({
      status: 'confirmed',
      txHash: crashedTx,
      claims: 1,
    })
    // The amount is read back from the signed transaction the slot holds; no budget record is kept.
    expect(await env.store.getBudget(golem.golemId, period)).toBeNull()
    const events = (await allEvents(env.store, golem.golemId)).filter((e) => e.type === 'RunwayRedeemed')
    expect(events.map((e) => [e.data.txHash, e.data.amount])).toEqual([[crashedTx, USDC(20).toString()]])
    expect((await env.store.getGolem(golem.golemId))?.lastTick).toMatchObject({ outcome: 'confirmed', txHash: crashedTx })
  })

  it('and a retry of that tick (same observation time) sends nothing either; the next period redeems once', async () => {
    await env.devnet.increaseTime(120)
    const again = await runTick(env.deps('parent-retry'), { golemId: golem.golemId })
    expect(again.redemption?.status).toBe('skipped')
    expect(await sentCount(env.client, golem.golemKey)).toBe(1)
    await env.devnet.increaseTime(DAY)
    const next = await runTick(env.deps('parent-next-day'), { golemId: golem.golemId })
    expect(next.redemption?.status).toBe('confirmed')
    expect(await sentCount(env.client, golem.golemKey)).toBe(2)
  })
})

describe('a worker killed right after broadcasting, with the next tick in the next period', () => {
  it("settles the earlier period's slot from the chain (confirmed, its own event) and redeems the new period once", async () => {
    const golem = await provisionWithKnownKey('crash-boundary')
    const exit = await tickKilledAfter(golem.golemId, 'runway')
    expect(exit.signal, exit.output).toBe('SIGKILL')
    const [crashed] = await redemptionsBy(env.client, dm(), golem.golemKey)
    const crashedPeriod = periodAt(golem.profile, crashed!.timestamp)

    await env.devnet.increaseTime(DAY)
    const result = await runTick(env.deps('parent-next-period'), { golemId: golem.golemId })
    expect(result.outcome).toBe('ticked')
    expect(result.redemption?.status).toBe('confirmed')
    expect(result.redemption?.txHash).not.toBe(crashed!.txHash)
    expect(await sentCount(env.client, golem.golemKey)).toBe(2)

    const redemptions = await redemptionsBy(env.client, dm(), golem.golemKey)
    expect(redemptions.map((r) => r.txHash)).toEqual([crashed!.txHash, result.redemption!.txHash])
    const nextPeriod = periodAt(golem.profile, redemptions[1]!.timestamp)
    expect(nextPeriod).toBe(crashedPeriod + 1n)
    expect(await env.store.getSlot({ golemId: golem.golemId, period: crashedPeriod, step: 'runway' })).toMatchObject({
      status: 'confirmed',
      txHash: crashed!.txHash,
    })
    // Settled by the tick that sent it: left `sent`, its confirmed outcome on the record stands for it.
    expect(await env.store.getSlot({ golemId: golem.golemId, period: nextPeriod, step: 'runway' })).toMatchObject({
      status: 'sent',
      txHash: result.redemption!.txHash,
    })
    const events = (await allEvents(env.store, golem.golemId)).filter((e) => e.type === 'RunwayRedeemed')
    expect(events.map((e) => [e.data.period, e.data.txHash, e.data.amount])).toEqual([
      [crashedPeriod.toString(), crashed!.txHash, USDC(20).toString()],
      [nextPeriod.toString(), result.redemption!.txHash, USDC(20).toString()],
    ])

    // A retry in the new period sends nothing and writes no event again.
    await env.devnet.increaseTime(120)
    expect((await runTick(env.deps('parent-next-period-retry'), { golemId: golem.golemId })).redemption?.status).toBe('skipped')
    expect(await sentCount(env.client, golem.golemKey)).toBe(2)
    expect((await allEvents(env.store, golem.golemId)).filter((e) => e.type === 'RunwayRedeemed')).toHaveLength(2)
  })
})

describe('a worker killed right after broadcasting a phase update', () => {
  it('the next tick records the transition from the chain once, then redeems at the new phase; the key sent two txs in all', async () => {
    const golem = await provisionWithKnownKey('crash-phase')
    await env.devnet.increaseTime(3 * DAY) // day 3 of a 5-day runway: Stable
    const exit = await tickKilledAfter(golem.golemId, 'phase')
    expect(exit.signal, exit.output).toBe('SIGKILL')
    const transitions = await phaseTransitions(env.client, env.devnet.deployment.vitalityOracle, golem.golemKey)
    expect(transitions.map((t) => [t.from, t.to])).toEqual([[0, 1]])
    expect((await env.store.getGolem(golem.golemId))?.phase).toBe('Thriving')
    expect(await sentCount(env.client, golem.golemKey)).toBe(1)

    await env.devnet.increaseTime(120)
    const result = await runTick(env.deps('parent-phase'), { golemId: golem.golemId })
    expect(result.outcome).toBe('ticked')
    expect(result.phase).toBeUndefined() // nothing left to post: the chain already has it
    expect(result.redemption).toMatchObject({ status: 'confirmed', amount: USDC(15) }) // Stable: 0.75 x 20
    expect(await sentCount(env.client, golem.golemKey)).toBe(2)
    expect(await phaseTransitions(env.client, env.devnet.deployment.vitalityOracle, golem.golemKey)).toHaveLength(1)
    const stored = (await allEvents(env.store, golem.golemId)).filter((e) => e.type === 'PhaseChanged')
    expect(stored.map((e) => [e.data.from, e.data.to, e.data.survivalScoreBps])).toEqual([[0, 1, transitions[0]!.survivalScore]])
    expect((await env.store.getSlot({ golemId: golem.golemId, period: 0n, step: 'phase-1' }))?.status).toBe('confirmed')
    expect((await env.store.getGolem(golem.golemId))?.phase).toBe('Stable')
  })
})

describe('a worker killed right after broadcasting the deregistration (death protocol)', () => {
  it('the next tick finishes the death from where it stopped: one deregistration, its tx in the record, the key zeroed here too', async () => {
    const golem = await provisionWithKnownKey('crash-death')
    const operator = env.devnet.operator.account.address
    await env.devnet.increaseTime(5 * DAY + 60) // the runway has ended: Terminal
    const operatorBefore = await sentCount(env.client, operator)
    const exit = await tickKilledAfter(golem.golemId, 'deregister')
    expect(exit.signal, exit.output).toBe('SIGKILL')
    expect((await env.store.getGolem(golem.golemId))?.status).toBe('dying')
    expect(await env.store.getDeathSettlement(golem.golemId)).toBeNull()
    expect(await sentCount(env.client, operator)).toBe(operatorBefore + 1)

    await env.devnet.increaseTime(120)
    const result = await runTick(env.deps('parent-death'), { golemId: golem.golemId })
    expect(result.outcome).toBe('died')
    expect(await sentCount(env.client, operator)).toBe(operatorBefore + 1)
    const deregistered = await deregistrations(env, golem.golemKey)
    expect(deregistered).toHaveLength(1)
    expect((await env.store.getDeathSettlement(golem.golemId))?.settlement).toMatchObject({
      deregisterTx: deregistered[0]!.transactionHash,
      finalPhase: 'Terminal',
      sessionKeyZeroed: true,
    })
    expect((await env.store.getGolem(golem.golemId))?.status).toBe('dead')
    expect(golem.sessionKey.zeroed).toBe(true)
    expect((await allEvents(env.store, golem.golemId)).filter((e) => e.type === 'DeathCompleted')).toHaveLength(1)
  })
})

describe('a worker killed inside the death settlement, right after broadcasting a return to the owner', () => {
  it.each(['return-token', 'return-native'] as const)(
    '%s: the next tick settles that transfer from the chain, sends no second one, and loses nothing',
    async (step) => {
      const golem = await provisionWithKnownKey(`crash-${step}`)
      const usdc = env.devnet.deployment.assets.usdc
      const ownerUsdcStart = await usdcBalance(env.client, usdc, owner.address)
      await env.devnet.increaseTime(DAY)
      expect((await runTick(env.deps(`${step}-day1`), { golemId: golem.golemId })).redemption?.status).toBe('confirmed')
      const held = await usdcBalance(env.client, usdc, golem.golemKey)
      expect(held).toBeGreaterThan(0n)
      await env.devnet.increaseTime(5 * DAY + 60) // the runway has ended: Terminal
      const sentBefore = await sentCount(env.client, golem.golemKey)

      const exit = await tickKilledAfter(golem.golemId, step)
      expect(exit.signal, exit.output).toBe('SIGKILL')
      expect((await env.store.getGolem(golem.golemId))?.status).toBe('dying')
      expect(await env.store.getDeathSettlement(golem.golemId)).toBeNull()
      expect(golem.sessionKey.zeroed).toBe(false)
      const crashedSends = await sentCount(env.client, golem.golemKey)

      await env.devnet.increaseTime(120)
      const result = await runTick(env.deps(`parent-${step}`), { golemId: golem.golemId })
      expect(result.outcome).toBe('died')
      const returnedUsdc = await usdcTransfersFrom(env.client, usdc, golem.golemKey)
      expect(returnedUsdc).toHaveLength(1)
      expect(returnedUsdc[0]).toMatchObject({ to: owner.address, value: held })
      expect(await usdcBalance(env.client, usdc, golem.golemKey)).toBe(0n)
      expect(await usdcBalance(env.client, usdc, owner.address)).toBe(ownerUsdcStart - (await redeemedFrom(golem.golemKey)) + held)
      // The crashed worker's transfer is the one the record names; the parent sent only what was left.
      const settlement = (await env.store.getDeathSettlement(golem.golemId))?.settlement as {
        fundsReturned: { asset: string; status: string; txHash: string | null }[]
      }
      expect(settlement.fundsReturned.map((f) => [f.asset, f.status])).toEqual([
        [usdc, 'returned'],
        ['native', 'returned'],
      ])
      expect(settlement.fundsReturned[0]!.txHash).toBe(returnedUsdc[0]!.txHash)
      const total = await sentCount(env.client, golem.golemKey)
      // The phase post to Terminal, the token return and the ETH return: three in all, whichever of them
      // the worker broadcast before it died.
      expect(total).toBe(sentBefore + 3)
      expect(crashedSends).toBe(sentBefore + (step === 'return-token' ? 2 : 3))
      expect(golem.sessionKey.zeroed).toBe(true)
    },
  )
})

async function redeemedFrom(golemKey: Hex): Promise<bigint> {
  const transfers = await usdcTransfersFrom(env.client, env.devnet.deployment.assets.usdc, owner.address)
  return transfers.filter((t) => t.to.toLowerCase() === golemKey.toLowerCase()).reduce((a, t) => a + t.value, 0n)
}
