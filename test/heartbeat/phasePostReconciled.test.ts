// A phase post that can never land. The Golem's last day: its tick's post of Terminal never reached the
// node (the send was dropped, the tick threw), and another transaction of the key took the post's nonce
// before the next tick (here one the test sends as the key; on a chain, a reorg that drops the post and a
// next send that reuses its nonce, or a node that evicts it from its pool). The next tick finds the post's
// slot `sent`, no receipt and the nonce used: the slot settles `reconciled`, and a completed slot is never
// claimed again. The post must go on under its next attempt's slot and the Golem die; before, every later
// tick found the slot completed, posted nothing and recorded `skipped`, and the Golem lived on with its
// runway on the key (the soak's "alive; last tick skipped").
import { createPublicClient, getAbiItem, http, type PublicClient } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import { withReceiptPolling } from '../../adapters/chain/receipts.ts'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import type { TickResult } from '../../app/tick/types.ts'
import { Phase } from '../../core/lifecycle/phase.ts'
import { phaseAttemptStep } from '../../core/lifecycle/tickPlan.ts'
import { startRpcFaultProxy, type RpcFaultProxy } from '../support/rpcFaultProxy.ts'
import { provisionFleet, type FleetGolem } from './fleet.ts'
import {
  DAY,
  USDC,
  allEvents,
  passStaggerOffsets,
  phaseTransitions,
  startHeartbeatEnv,
  WHOLE_RUNWAY_ON_KEY,
  type HeartbeatEnv,
} from './harness.ts'

const RUNWAY_DAYS = 5

let env: HeartbeatEnv
let proxy: RpcFaultProxy
let invoker: LocalInvoker
let golem: FleetGolem
let client: PublicClient
const errors: unknown[] = []
/** The results of the ticks after the key's nonce was taken, in order. */
const after: TickResult[] = []
const rpc = (method: string, params: unknown[] = []) => env.client.request({ method: method as never, params: params as never })

async function beat(): Promise<TickResult[]> {
  const before = invoker.results.length
  await runHeartbeat({ store: env.store, client, deployment: env.devnet.deployment, invoker })
  return invoker.results.slice(before)
}

beforeAll(async () => {
  env = await startHeartbeatEnv()
  proxy = await startRpcFaultProxy({ target: env.devnet.rpcUrl })
  client = withReceiptPolling(
    createPublicClient({
      chain: env.devnet.chain,
      transport: http(proxy.url, { retryCount: 0, timeout: 10_000, batch: false }),
      pollingInterval: 25,
    }) as PublicClient,
  )
  const owner = await env.devnet.createOwner()
  ;[golem] = (await provisionFleet({
    keyCeiling: WHOLE_RUNWAY_ON_KEY,
    devnet: env.devnet,
    store: env.store,
    signers: env.signers,
    owner,
    count: 1,
    idPrefix: 'spentpost',
    periodAmount: USDC(10),
    runwayDays: RUNWAY_DAYS,
  })) as [FleetGolem]
  await passStaggerOffsets(env.devnet, [golem.golemId])
  invoker = new LocalInvoker((id) => env.deps(id, { client, leaseMs: 10_000, tickIntervalSeconds: 3_600 }), {
    onError: (_id, e) => errors.push(e),
  })
  // The days before the last, without faults: the Golem falls to Conservation.
  for (let day = 0; day < RUNWAY_DAYS; day++) {
    await beat()
    await env.devnet.increaseTime(DAY)
  }
  expect((await env.store.getGolem(golem.golemId))?.phase).toBe('Conservation')
  expect(errors).toEqual([])

  // The last day. 1: the post of Terminal is dropped before the node sees it; the tick throws.
  proxy.setFaults({}, { eth_sendRawTransactionSync: { drop: 1 } })
  await beat()
  proxy.setFaults({})
  expect(errors).toHaveLength(1)
  // 2: another transaction of the key takes the post's nonce.
  await rpc('anvil_impersonateAccount', [golem.golemKey])
  await rpc('eth_sendTransaction', [{ from: golem.golemKey, to: golem.golemKey, value: '0x0' }])
  await rpc('anvil_stopImpersonatingAccount', [golem.golemKey])
  // 3: past the lease, the next ticks.
  for (let i = 0; i < 3 && after.every((r) => r.outcome !== 'died'); i++) {
    await env.devnet.increaseTime(3_600)
    after.push(...(await beat()))
  }
}, 180_000)
afterAll(async () => {
  await proxy?.stop()
  await env?.stop()
})

describe('a phase post whose nonce another transaction took', () => {
  it('is sent again under its next attempt: the tick that finds the first spent posts Terminal and runs the death protocol', async () => {
    expect(errors).toHaveLength(1)
    expect(after).toHaveLength(1)
    expect(after[0]).toMatchObject({ outcome: 'died', phase: { from: Phase.Conservation, to: Phase.Terminal, posted: true } })
    expect(await env.store.getGolem(golem.golemId)).toMatchObject({ status: 'dead', phase: 'Terminal' })
    const step = `phase-${Phase.Terminal}`
    expect(await env.store.getSlot({ golemId: golem.golemId, period: 0n, step })).toMatchObject({
      status: 'reconciled',
      detail: { why: 'nonce-used' },
    })
    expect(await env.store.getSlot({ golemId: golem.golemId, period: 0n, step: phaseAttemptStep(step, 2) })).toMatchObject({
      status: 'confirmed',
    })
    const deregistered = await env.client.getLogs({
      address: env.devnet.deployment.vitalityOracle,
      event: getAbiItem({ abi: VitalityOracleAbi, name: 'GolemDeregistered' }),
      args: { golem: golem.golemKey },
      fromBlock: 0n,
    })
    expect(deregistered).toHaveLength(1)
  })

  it('writes the post once in the store, as the chain has it', async () => {
    const onChain = await phaseTransitions(env.client, env.devnet.deployment.vitalityOracle, golem.golemKey)
    expect(onChain.map((t) => [t.from, t.to])).toContainEqual([Phase.Conservation, Phase.Terminal])
    const changes = (await allEvents(env.store, golem.golemId)).filter((e) => e.type === 'PhaseChanged')
    expect(changes.map((e) => [e.data.from, e.data.to, e.data.survivalScoreBps])).toEqual(
      onChain.map((t) => [t.from, t.to, t.survivalScore]),
    )
  })
})
