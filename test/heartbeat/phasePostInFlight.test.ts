// A phase post re-broadcast and not mined yet when its tick looks for the receipt. The Golem's last day:
// its tick's post of Terminal never reached the node (the send was dropped, the tick threw); the next
// tick finds the post's slot `sent` with nothing mined, re-broadcasts the same signed bytes and looks
// once for a receipt the node does not have yet (anvil mines a plain send a moment after it answers; here
// it mines only when told, once the tick has looked). That tick must wait for the receipt and act on the
// post: record it, and run the death protocol. Ending instead on the phase it started from, with a
// settled outcome, left the Golem alive with Terminal on-chain and Conservation in the store, never
// deregistered: the fault suite's rounds stop for a Golem once its tick of the day settled.
import { createPublicClient, getAbiItem, http, type PublicClient } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import { withReceiptPolling } from '../../adapters/chain/receipts.ts'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import type { TickResult } from '../../app/tick/types.ts'
import { Phase } from '../../core/lifecycle/phase.ts'
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
const errors: unknown[] = []
/** The results of the last day's ticks, in order. */
const lastDay: TickResult[] = []
let rebroadcastWaited = false
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const rpc = (method: string, params: unknown[] = []) => env.client.request({ method: method as never, params: params as never })

async function beat(): Promise<TickResult[]> {
  const before = invoker.results.length
  await runHeartbeat({ store: env.store, client, deployment: env.devnet.deployment, invoker })
  return invoker.results.slice(before)
}

let client: PublicClient

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
    idPrefix: 'inflight',
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
  lastDay.push(...(await beat()))
  proxy.setFaults({})
  expect(errors).toHaveLength(1)
  // 2: past the lease, with the node mining only when told: the next tick re-broadcasts the signed post and
  // finds no receipt at once; once it waits for one (the watcher's first block read, after the look), a
  // block is mined.
  await env.devnet.increaseTime(30)
  await rpc('evm_setAutomine', [false])
  const sends = () => proxy.stats.byMethod.eth_sendRawTransaction ?? 0
  const blockReads = () => proxy.stats.byMethod.eth_blockNumber ?? 0
  const sendsBefore = sends()
  let ended = false
  const ticking = beat().finally(() => {
    ended = true
  })
  while (!ended && sends() === sendsBefore) await sleep(5)
  const readsAfterSend = blockReads()
  while (!ended && blockReads() === readsAfterSend) await sleep(5)
  rebroadcastWaited = !ended
  await rpc('evm_setAutomine', [true])
  await env.devnet.mine()
  lastDay.push(...(await ticking))
}, 120_000)
afterAll(async () => {
  await proxy?.stop()
  await env?.stop()
})

describe('a phase post re-broadcast from its slot and not mined yet', () => {
  it('is waited for: the tick records the post and runs the death protocol to the end', async () => {
    expect(rebroadcastWaited).toBe(true)
    expect(errors).toHaveLength(1)
    expect(lastDay).toHaveLength(1)
    expect(lastDay[0]).toMatchObject({ outcome: 'died', phase: { from: Phase.Conservation, to: Phase.Terminal, posted: true } })
    expect(await env.store.getGolem(golem.golemId)).toMatchObject({ status: 'dead', phase: 'Terminal' })
    const deregistered = await env.client.getLogs({
      address: env.devnet.deployment.vitalityOracle,
      event: getAbiItem({ abi: VitalityOracleAbi, name: 'GolemDeregistered' }),
      args: { golem: golem.golemKey },
      fromBlock: 0n,
    })
    expect(deregistered).toHaveLength(1)
    expect((await env.store.getDeathSettlement(golem.golemId))?.settlement).toMatchObject({
      finalPhase: 'Terminal',
      deregisterTx: deregistered[0]!.transactionHash,
    })
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
