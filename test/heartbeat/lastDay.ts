// One Golem taken to its last day with its post of Terminal lost: the setup of the phase post suites.
// The Golem lives its days before the last without faults (it falls to Conservation), ticked through a
// fault proxy; on the last day the tick's post of Terminal is dropped before the node sees it, and the
// tick throws. What happens to the post next is each suite's own.
import { expect } from 'vitest'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import type { TickResult } from '../../app/tick/types.ts'
import { Phase } from '../../core/lifecycle/phase.ts'
import { startRpcFaultProxy, type RpcFaultProxy } from '../support/rpcFaultProxy.ts'
import { provisionFleet, type FleetGolem } from './fleet.ts'
import {
  allEvents,
  clientThrough,
  DAY,
  USDC,
  passStaggerOffsets,
  phaseTransitions,
  startHeartbeatEnv,
  WHOLE_RUNWAY_ON_KEY,
  type HeartbeatEnv,
} from './harness.ts'

const RUNWAY_DAYS = 5

export type LastDay = {
  env: HeartbeatEnv
  /** Between the ticks' client and the node. */
  proxy: RpcFaultProxy
  golem: FleetGolem
  /** What the ticks threw, in order: the lost post's tick first. */
  errors: unknown[]
  /** The last day's first tick, whose post of Terminal was dropped. */
  lostPost: TickResult[]
  /** One heartbeat: the ticks it ran. */
  beat: () => Promise<TickResult[]>
  /** A JSON-RPC request straight to the node. */
  rpc: (method: string, params?: unknown[]) => Promise<unknown>
  stop: () => Promise<void>
}

export async function startLastDay(idPrefix: string): Promise<LastDay> {
  const env = await startHeartbeatEnv()
  const proxy = await startRpcFaultProxy({ target: env.devnet.rpcUrl })
  const client = clientThrough(env, proxy.url)
  const owner = await env.devnet.createOwner()
  const [golem] = (await provisionFleet({
    keyCeiling: WHOLE_RUNWAY_ON_KEY,
    devnet: env.devnet,
    store: env.store,
    signers: env.signers,
    owner,
    count: 1,
    idPrefix,
    periodAmount: USDC(10),
    runwayDays: RUNWAY_DAYS,
  })) as [FleetGolem]
  await passStaggerOffsets(env.devnet, [golem.golemId])
  const errors: unknown[] = []
  const invoker = new LocalInvoker((id) => env.deps(id, { client, leaseMs: 10_000, tickIntervalSeconds: 3_600 }), {
    onError: (_id, e) => errors.push(e),
  })
  const beat = async () => {
    const before = invoker.results.length
    await runHeartbeat({ store: env.store, client, deployment: env.devnet.deployment, invoker })
    return invoker.results.slice(before)
  }
  // The days before the last, without faults: the Golem falls to Conservation.
  for (let day = 0; day < RUNWAY_DAYS; day++) {
    await beat()
    await env.devnet.increaseTime(DAY)
  }
  expect((await env.store.getGolem(golem.golemId))?.phase).toBe('Conservation')
  expect(errors).toEqual([])
  // The last day's first tick: its post of Terminal is dropped before the node sees it, and it throws.
  proxy.setFaults({}, { eth_sendRawTransactionSync: { drop: 1 } })
  const lostPost = await beat()
  proxy.setFaults({})
  expect(errors).toHaveLength(1)
  return {
    env,
    proxy,
    golem,
    errors,
    lostPost,
    beat,
    rpc: (method, params = []) => env.client.request({ method: method as never, params: params as never }),
    stop: async () => {
      await proxy.stop()
      await env.stop()
    },
  }
}

/** The Golem's PhaseChanged history in the store is the chain's PhaseTransition history, the post of Terminal in it once. */
export async function expectPhasesAsOnChain({ env, golem }: LastDay): Promise<void> {
  const onChain = await phaseTransitions(env.client, env.devnet.deployment.vitalityOracle, golem.golemKey)
  expect(onChain.map((t) => [t.from, t.to])).toContainEqual([Phase.Conservation, Phase.Terminal])
  const changes = (await allEvents(env.store, golem.golemId)).filter((e) => e.type === 'PhaseChanged')
  expect(changes.map((e) => [e.data.from, e.data.to, e.data.survivalScoreBps])).toEqual(onChain.map((t) => [t.from, t.to, t.survivalScore]))
}
