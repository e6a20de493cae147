// A Golem whose key has no ETH left when its grant ends still dies Terminal: its own post of Terminal
// cannot be paid, so the operator's audited reset sets the oracle to Terminal before deregistering it.
// The oracle, its death event, the death record, the tick's vital signs and the API all say Terminal;
// the reset cannot set a score, so the oracle keeps its last one while the vital signs say 0: dead.
// The operator's attempts at the reset and the deregistration go on past the slots earlier ticks spent
// (their nonce taken by another operator transaction), so such a death still completes. A death attempt
// killed right after the reset went out leaves it to the next attempt, which records it from the chain.
import { getAbiItem, numberToHex, type Address } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import type { TickResult } from '../../app/tick/types.ts'
import { ChainGolemState } from '../../functions/api/services/chainState.ts'
import { StoreGolemRegistry } from '../../functions/api/services/storeRegistry.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import { deregisterStep, MAX_DEREGISTER_ATTEMPTS, terminalResetStep } from '../../core/lifecycle/deathPlan.ts'
import { DAY, USDC, chainNow, creditGolem, passStaggerOffsets, startHeartbeatEnv, type HeartbeatEnv } from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY =
  '---\nname: broke-golem\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 2\n---\n\nSwap a little USDC into WETH every day.\n'

let env: HeartbeatEnv
let golem: ProvisionedGolem
let invoker: LocalInvoker
const errors: unknown[] = []
const rpc = (method: string, params: unknown[]) => env.client.request({ method: method as never, params: params as never })

const beat = async (): Promise<TickResult[]> => {
  const before = invoker.results.length
  await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
  return invoker.results.slice(before)
}

/** A Golem of STRATEGY with an owner of its own, past its stagger offset. */
async function provision(golemId: string): Promise<ProvisionedGolem> {
  const provisioned = await provisionGolemIn(env, golemId, { strategy: STRATEGY, runwayDays: 2 })
  await passStaggerOffsets(env.devnet, [golemId])
  return provisioned
}

beforeAll(async () => {
  env = await startHeartbeatEnv()
  golem = await provision('broke')
  invoker = new LocalInvoker((id) => env.deps(id), { onError: (_id, e) => errors.push(e) })
}, 120_000)
afterAll(async () => env?.stop())

/** The oracle's audited resets and deregistrations of one key, in chain order. */
async function resetAndDeregistration(golemKey: Address) {
  const logs = await env.client.getLogs({
    address: env.devnet.deployment.vitalityOracle,
    events: [getAbiItem({ abi: VitalityOracleAbi, name: 'PhaseReset' }), getAbiItem({ abi: VitalityOracleAbi, name: 'GolemDeregistered' })],
    fromBlock: 0n,
    toBlock: 'latest',
  })
  return logs.filter((l) => l.args.golem === golemKey)
}

/**
 * Ten days of runway paid, so its vitality stays high and the grant's end, not Terminal, ends its life;
 * then past that end with no ETH left on its key to pay for its own Terminal post.
 */
async function pastGrantEndWithoutGas(g: ProvisionedGolem) {
  await creditGolem(env, g.golemId, { kind: 'extend', seconds: 10n * BigInt(DAY), amount: USDC(5), nonceByte: 'cd' })
  await env.devnet.increaseTime(2 * DAY + 60)
  await rpc('anvil_setBalance', [g.golemKey, numberToHex(0n)])
}

describe('death with a key that cannot pay for its own Terminal post', () => {
  it("lets the operator's reset post Terminal before deregistering, and every reading says Terminal", async () => {
    const [alive] = await beat()
    expect(alive).toMatchObject({ outcome: 'ticked' })
    expect(alive?.vitals).toMatchObject({ lifecycle: 'alive', phase: 'Thriving' })
    const oracle = env.devnet.deployment.vitalityOracle
    const scoreBefore = (
      await env.client.readContract({ address: oracle, abi: VitalityOracleAbi, functionName: 'getState', args: [golem.golemKey] })
    ).survivalScore
    await pastGrantEndWithoutGas(golem)
    let died: TickResult | undefined
    for (let i = 0; i < 3 && !died; i++) died = (await beat()).find((r) => r.outcome === 'died')
    expect(errors).toEqual([])
    expect(died?.vitals).toMatchObject({ lifecycle: 'dead', phase: 'Terminal', vitality: 0, livesSeconds: 0 })
    expect(died?.vitals?.change).toMatchObject({ kind: 'death', to: 'Terminal' })

    const logs = await resetAndDeregistration(golem.golemKey)
    expect(logs.map((l) => l.eventName)).toEqual(['PhaseReset', 'GolemDeregistered'])
    expect(logs[0]!.args).toMatchObject({ toPhase: 4, reason: 'death: its life ran out' })
    expect(logs[1]!.args).toMatchObject({ finalPhase: 4 })
    // The store says the same, once: the reset, then the death's end (newest first).
    const events = (await env.store.listEvents({ golemId: 'broke', limit: 50, order: 'desc' })).events
    expect(events.map((e) => e.type).slice(0, 2)).toEqual(['DeathCompleted', 'PhaseReset'])
    expect(events.filter((e) => e.type === 'PhaseReset')).toHaveLength(1)
    expect(events[1]!.data).toEqual({ from: 0, to: 4, reason: 'death' })
    expect(events.filter((e) => e.type === 'PhaseChanged' && e.data.to === 4)).toEqual([])
    expect(await env.store.getDeathSettlement('broke')).toMatchObject({
      settlement: { finalPhase: 'Terminal', expiryCause: 'NaturalExpiry' },
    })

    const view = (await new StoreGolemRegistry({ store: env.store }).getGolem('broke'))!
    const current = await new ChainGolemState({ client: env.client, deployment: env.devnet.deployment, store: env.store }).currentPhase(
      view,
    )
    expect(current).toMatchObject({ registered: false, phase: 'Terminal', survivalScore: scoreBefore })
    expect(current.vitals).toMatchObject({ lifecycle: 'dead', phase: 'Terminal', vitality: died!.vitals!.vitality, livesSeconds: 0 })
  }, 120_000)
})

describe("the operator's death steps after earlier ticks spent their attempts", () => {
  it('passes over the spent attempt slots and resets and deregisters from a fresh one, once each', async () => {
    const spent = await provision('spent')
    await pastGrantEndWithoutGas(spent)
    // Every attempt a tick may make, spent by earlier ticks: each lost its nonce to another operator
    // transaction (reconciled, nothing sent for the Golem). Before, the death stopped here for good.
    const now = Number(await chainNow(env.client)) * 1000
    for (const step of Array.from({ length: MAX_DEREGISTER_ATTEMPTS }, (_, n) => [terminalResetStep(n), deregisterStep(n)]).flat()) {
      const slot = { golemId: 'spent', period: 0n, step }
      await env.store.claimSlot({ ...slot, owner: 'an-earlier-tick', now, leaseMs: 60_000 })
      await env.store.completeSlot({ ...slot, owner: 'an-earlier-tick', outcome: 'reconciled', now })
    }
    let died: TickResult | undefined
    for (let i = 0; i < 3 && !died; i++) died = (await beat()).find((r) => r.golemId === 'spent' && r.outcome === 'died')
    expect(errors).toEqual([])
    expect(died).toBeDefined()

    const logs = await resetAndDeregistration(spent.golemKey)
    expect(logs.map((l) => l.eventName)).toEqual(['PhaseReset', 'GolemDeregistered'])
    const fresh = MAX_DEREGISTER_ATTEMPTS
    const reset = await env.store.getSlot({ golemId: 'spent', period: 0n, step: terminalResetStep(fresh) })
    const deregistered = await env.store.getSlot({ golemId: 'spent', period: 0n, step: deregisterStep(fresh) })
    expect(reset).toMatchObject({ status: 'confirmed', txHash: logs[0]!.transactionHash })
    expect(deregistered).toMatchObject({ status: 'confirmed', txHash: logs[1]!.transactionHash })
    expect(await env.store.getDeathSettlement('spent')).toMatchObject({
      settlement: { finalPhase: 'Terminal', deregisterTx: logs[1]!.transactionHash },
    })
    expect((await env.store.getGolem('spent'))?.status).toBe('dead')
  }, 120_000)
})

describe("a death attempt killed right after the operator's reset went out", () => {
  it('records the reset from the chain at the next attempt, once, and completes the death', async () => {
    const crashed = await provision('crashed')
    await pastGrantEndWithoutGas(crashed)
    // The attempt that resets dies right after the broadcast: the reset is mined, its slot left `sent`,
    // nothing recorded of it.
    const killed: unknown[] = []
    const killing = new LocalInvoker(
      (id) =>
        env.deps(id, {
          afterBroadcast: (step) => {
            if (step === 'terminal') throw new Error('killed after the broadcast')
          },
        }),
      { onError: (_id, e) => killed.push(e) },
    )
    await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker: killing })
    expect(killed.map(String)).toEqual(['Error: killed after the broadcast'])
    const [mined] = await resetAndDeregistration(crashed.golemKey)
    expect(mined?.eventName).toBe('PhaseReset')
    const slot = await env.store.getSlot({ golemId: 'crashed', period: 0n, step: terminalResetStep(0) })
    expect(slot).toMatchObject({ status: 'sent', txHash: mined!.transactionHash })
    const stored = async () => (await env.store.listEvents({ golemId: 'crashed', limit: 50, order: 'desc' })).events
    expect((await stored()).filter((e) => e.type === 'PhaseReset')).toEqual([])

    // Once the killed attempt's lease has lapsed, the next beats take the death over.
    await env.devnet.increaseTime(180)
    let died: TickResult | undefined
    for (let i = 0; i < 3 && !died; i++) died = (await beat()).find((r) => r.golemId === 'crashed' && r.outcome === 'died')
    expect(errors).toEqual([])
    expect(died).toBeDefined()
    const logs = await resetAndDeregistration(crashed.golemKey)
    expect(logs.map((l) => l.eventName)).toEqual(['PhaseReset', 'GolemDeregistered'])
    expect(await env.store.getSlot({ golemId: 'crashed', period: 0n, step: terminalResetStep(0) })).toMatchObject({
      status: 'confirmed',
      txHash: mined!.transactionHash,
    })
    const events = await stored()
    expect(events.map((e) => e.type).slice(0, 2)).toEqual(['DeathCompleted', 'PhaseReset'])
    expect(events.filter((e) => e.type === 'PhaseReset').map((e) => e.data)).toEqual([{ from: 0, to: 4, reason: 'death' }])
    expect((await env.store.getGolem('crashed'))?.status).toBe('dead')
  }, 120_000)
})
