// A tick reads its Golem's record at most once and writes it twice (the lease, then the outcome), on
// every beat of a whole life: no re-reads between planning and executing. Handed over by the heartbeat,
// it reads it not at all: the walker's copy comes in the payload, with the profile the walker parsed, so
// the beat, walker and tick together, parses the profile once and plans once. Counted on the real
// DynamoStore; parses and plans through the modules everyone imports them from, the real functions
// wrapped.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { Store } from '../../core/store/index.ts'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import type { TickInvoker, TickRequest } from '../../app/heartbeat/handOver.ts'
import { decodeTickPayload, encodeTickPayload } from '../../app/heartbeat/tickPayload.ts'
import { runTick } from '../../app/tick/runTick.ts'
import type { TickResult } from '../../app/tick/types.ts'
import { DAY, provisionExampleGolem, startHeartbeatEnv, type HeartbeatEnv } from './harness.ts'

type Counts = Record<string, number>

const calls = vi.hoisted(() => ({}) as Record<string, number>)

/** `fn`, counted under `name` in `calls`. */
const counted = vi.hoisted(() => <A extends unknown[], R>(name: string, fn: (...args: A) => R) => (...args: A): R => {
  calls[name] = (calls[name] ?? 0) + 1
  return fn(...args)
})

vi.mock('../../core/lifecycle/profile.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../core/lifecycle/profile.ts')>()
  return { ...original, parseGolemProfile: counted('parseGolemProfile', original.parseGolemProfile) }
})
vi.mock('../../core/lifecycle/tickPlan.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../core/lifecycle/tickPlan.ts')>()
  return { ...original, planTick: counted('planTick', original.planTick) }
})
vi.mock('../../core/lifecycle/gasPlan.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../core/lifecycle/gasPlan.ts')>()
  return { ...original, planGas: counted('planGas', original.planGas) }
})

/** The store, with every call counted by method name. */
function counting(store: Store, counts: Counts): Store {
  return new Proxy(store, {
    get(target, name) {
      // The target as the receiver: the store's getters read its private fields.
      const value = Reflect.get(target, name, target)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        counts[String(name)] = (counts[String(name)] ?? 0) + 1
        return value.apply(target, args)
      }
    },
  })
}

/** What one beat did, counted: the tick's store calls, the heartbeat's, and the parses and plans of both. */
type Beat = { result: TickResult; counts: Counts; heartbeat: Counts; calls: Counts }

let env: HeartbeatEnv
const beats: Beat[] = []

beforeAll(async () => {
  env = await startHeartbeatEnv()
  await provisionExampleGolem(env, 'once')
  // The heartbeat reads the chain for the tick; the tick gets its own counted store. Credits are on, so the
  // once-a-period repair is counted too.
  let ticked: { result: TickResult; counts: Counts }[] = []
  const invoker: TickInvoker = {
    async invoke(requests: readonly TickRequest[]) {
      for (const request of requests) {
        const counts: Counts = {}
        const deps = env.deps(undefined, { store: counting(env.store, counts), credits: { runtimeCostPerHour: 1_000_000n } })
        ticked.push({ result: await runTick(deps, request), counts })
      }
    },
  }
  for (let day = 0; day < 40; day++) {
    const heartbeat: Counts = {}
    for (const name of Object.keys(calls)) delete calls[name]
    ticked = []
    await runHeartbeat({ store: counting(env.store, heartbeat), client: env.client, deployment: env.devnet.deployment, invoker })
    expect(ticked).toHaveLength(1)
    beats.push({ ...ticked[0]!, heartbeat, calls: { ...calls } })
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
    const result = await runTick(env.deps(undefined, { store: counting(env.store, counts) }), { golemId: 'once' })
    expect(result.outcome).toBe('dead')
    expect(counts.getGolem).toBe(1)
  })

  it("reads the record once a beat, walker and tick together: the walker's batch", () => {
    for (const [i, b] of beats.entries()) {
      const reads = { getGolem: (b.heartbeat.getGolem ?? 0) + (b.counts.getGolem ?? 0), getGolems: b.heartbeat.getGolems ?? 0 }
      expect(reads, `beat ${i} (${b.result.outcome})`).toEqual({ getGolem: 0, getGolems: 1 })
    }
  })

  it('parses the profile once a beat, walker and tick together: the tick takes the one the walker parsed', () => {
    for (const [i, b] of beats.entries()) expect(b.calls.parseGolemProfile ?? 0, `beat ${i} (${b.result.outcome})`).toBe(1)
  })

  it('plans once a beat: one tick plan and one gas plan on a living beat, none on the beat that runs the death protocol alone', () => {
    for (const [i, b] of beats.entries()) {
      const plans = { planTick: b.calls.planTick ?? 0, planGas: b.calls.planGas ?? 0 }
      expect(plans.planTick, `beat ${i} (${b.result.outcome})`).toBeLessThanOrEqual(1)
      expect(plans.planGas, `beat ${i} (${b.result.outcome})`).toBeLessThanOrEqual(1)
      if (b.result.outcome === 'ticked') expect(plans.planTick, `beat ${i}`).toBe(1)
    }
    expect(beats.filter((b) => b.result.outcome === 'ticked').length).toBeGreaterThan(20)
  })

  it("parses the profile once on each side when the request crosses the wire: the walker's, and the tick's on arrival", async () => {
    const fresh = 'wire'
    await provisionExampleGolem(env, fresh)
    const sides: Counts[] = []
    const invoker: TickInvoker = {
      async invoke(requests: readonly TickRequest[]) {
        sides.push({ ...calls })
        for (const name of Object.keys(calls)) delete calls[name]
        for (const request of decodeTickPayload(encodeTickPayload(requests))) {
          expect(request.profile).toBeUndefined()
          await runTick(env.deps(), request)
        }
        sides.push({ ...calls })
      },
    }
    for (const name of Object.keys(calls)) delete calls[name]
    await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
    expect(sides.map((c) => c.parseGolemProfile ?? 0)).toEqual([1, 1])
    expect(sides[1]!.planTick).toBe(1)
  })

  it('writes the record twice on a living beat: the lease and the outcome', () => {
    for (const [i, b] of beats.entries()) {
      if (b.result.outcome !== 'ticked') continue
      expect(b.counts.updateGolem, `beat ${i}`).toBe(2)
    }
  })
})
