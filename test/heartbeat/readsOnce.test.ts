// A tick reads its Golem's record at most once and writes it twice (the lease, then the outcome), on
// every beat of a whole life: no re-reads between planning and executing. Handed over by the heartbeat,
// it reads it not at all: the walker's copy comes in the payload, so a beat reads the record once, in
// the walker's batch. Counted on the real DynamoStore; test/heartbeat/oneWay.test.ts counts the parses
// and plans.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import type { TickInvoker, TickRequest } from '../../app/heartbeat/handOver.ts'
import { runTick } from '../../app/tick/runTick.ts'
import type { TickResult } from '../../app/tick/types.ts'
import { DAY, startHeartbeatEnv, type HeartbeatEnv } from './harness.ts'
import { countedStore } from '../support/storeWith.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

type Counts = Record<string, number>

let env: HeartbeatEnv
/** One beat: the tick's store calls, and the heartbeat's. */
const beats: { result: TickResult; counts: Counts; heartbeat: Counts }[] = []

beforeAll(async () => {
  env = await startHeartbeatEnv()
  await provisionGolemIn(env, 'once')
  // The heartbeat reads the chain for the tick; the tick gets its own counted store, and so does the
  // heartbeat. Credits are on, so the once-a-period repair is counted too.
  let ticked: { result: TickResult; counts: Counts }[] = []
  const invoker: TickInvoker = {
    async invoke(requests: readonly TickRequest[]) {
      for (const request of requests) {
        const counts: Counts = {}
        const deps = env.deps(undefined, { store: countedStore(env.store, counts), credits: { runtimeCostPerHour: 1_000_000n } })
        ticked.push({ result: await runTick(deps, request), counts })
      }
    },
  }
  for (let day = 0; day < 40; day++) {
    const heartbeat: Counts = {}
    ticked = []
    await runHeartbeat({ store: countedStore(env.store, heartbeat), client: env.client, deployment: env.devnet.deployment, invoker })
    expect(ticked).toHaveLength(1)
    beats.push({ ...ticked[0]!, heartbeat })
    if ((await env.store.getGolem('once'))?.status === 'dead') break
    await env.devnet.increaseTime(DAY)
  }
})
afterAll(async () => env?.stop())

describe('a tick', () => {
  it('lived a whole life, redeeming and posting phases on the way', () => {
    expect(beats.length).toBeGreaterThan(20)
    expect(beats.some((b) => b.result.redemption?.status === 'confirmed')).toBe(true)
    expect(beats.some((b) => b.result.phase?.posted)).toBe(true)
    expect(beats.at(-1)!.result.outcome).toBe('died')
  })

  it('never reads its record on a beat the heartbeat hands over (the copy in the payload), the beat it dies included', () => {
    for (const [i, b] of beats.entries()) expect(b.counts.getGolem ?? 0, `beat ${i} (${b.result.outcome})`).toBe(0)
  })

  it('reads its record once when it is invoked alone, without a copy from the heartbeat', async () => {
    const counts: Counts = {}
    const result = await runTick(env.deps(undefined, { store: countedStore(env.store, counts) }), { golemId: 'once' })
    expect(result.outcome).toBe('dead')
    expect(counts.getGolem).toBe(1)
  })

  it("reads the record once a beat, walker and tick together: the walker's batch", () => {
    for (const [i, b] of beats.entries()) {
      const reads = { getGolem: (b.heartbeat.getGolem ?? 0) + (b.counts.getGolem ?? 0), getGolems: b.heartbeat.getGolems ?? 0 }
      expect(reads, `beat ${i} (${b.result.outcome})`).toEqual({ getGolem: 0, getGolems: 1 })
    }
  })

  it("lists each shard's due entries once a beat: the walker starts from the page the heartbeat listed", () => {
    for (const [i, b] of beats.entries()) expect(b.heartbeat.listDueGolems, `beat ${i}`).toBe(env.store.dueShards)
  })

  it('writes the record twice on a living beat: the lease and the outcome', () => {
    for (const [i, b] of beats.entries()) {
      if (b.result.outcome !== 'ticked') continue
      expect(b.counts.updateGolem, `beat ${i}`).toBe(2)
    }
  })
})
