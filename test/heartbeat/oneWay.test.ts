// A tick runs one way: it observes once (its record and its parsed profile from the heartbeat's
// hand-over: no store read, no parse of its own), plans once (core/lifecycle/tickPlan.ts planTick, and
// at most one gas plan), then carries the plan out in order and writes its outcome. Counted per beat,
// the walker and the tick together, over a whole life on anvil and dynalite, a paid feed's reprieve
// included: the calls of the core functions are counted through the modules everyone imports them from.
// Across the wire the parsed profile stays behind, and each side parses it once.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import type { TickInvoker, TickRequest } from '../../app/heartbeat/handOver.ts'
import { decodeTickPayload, encodeTickPayload } from '../../app/heartbeat/tickPayload.ts'
import { runTick } from '../../app/tick/runTick.ts'
import type { TickResult } from '../../app/tick/types.ts'
import { parseGolemProfile, serializeGolemProfile } from '../../core/lifecycle/profile.ts'
import { DAY, startHeartbeatEnv, type HeartbeatEnv } from './harness.ts'
import { countedStore } from '../support/storeWith.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const calls = vi.hoisted(() => ({ parse: 0, plan: 0, gas: 0 }))
const reset = () => {
  calls.parse = 0
  calls.plan = 0
  calls.gas = 0
}

vi.mock('../../core/lifecycle/profile.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../core/lifecycle/profile.ts')>()
  return {
    ...original,
    parseGolemProfile: (...args: Parameters<typeof original.parseGolemProfile>) => {
      calls.parse++
      return original.parseGolemProfile(...args)
    },
  }
})
vi.mock('../../core/lifecycle/tickPlan.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../core/lifecycle/tickPlan.ts')>()
  return {
    ...original,
    planTick: (...args: Parameters<typeof original.planTick>) => {
      calls.plan++
      return original.planTick(...args)
    },
  }
})
vi.mock('../../core/lifecycle/gasPlan.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../core/lifecycle/gasPlan.ts')>()
  return {
    ...original,
    planGas: (...args: Parameters<typeof original.planGas>) => {
      calls.gas++
      return original.planGas(...args)
    },
  }
})

type Count = {
  reads: number
  parses: number
  /** The walker's plan (its decision that the Golem needs a tick, core/lifecycle/tickNeed.ts), then the tick's. */
  walkerPlans: number
  plans: number
  walkerGasPlans: number
  gasPlans: number
  result: TickResult
}

let env: HeartbeatEnv
const ticks: Count[] = []

beforeAll(async () => {
  env = await startHeartbeatEnv()
  await provisionGolemIn(env, 'oneway')
  // One Golem, so a beat is one tick: what the walker and the tick call in it is counted together.
  const invoker: TickInvoker = {
    async invoke(requests: readonly TickRequest[]) {
      for (const request of requests) {
        const counts: Record<string, number> = {}
        const walker = { plans: calls.plan, gas: calls.gas }
        calls.plan = 0
        calls.gas = 0
        const result = await runTick(env.deps(undefined, { store: countedStore(env.store, counts) }), request)
        ticks.push({
          reads: counts.getGolem ?? 0,
          parses: calls.parse,
          walkerPlans: walker.plans,
          plans: calls.plan,
          walkerGasPlans: walker.gas,
          gasPlans: calls.gas,
          result,
        })
      }
    },
  }
  for (let day = 0; day < 40; day++) {
    if (day === 20) {
      // A paid feed asks for a reprieve: the tick that serves it still plans once.
      const record = (await env.store.getGolem('oneway'))!
      const profile = parseGolemProfile(record.profile)
      const fed = {
        ...profile,
        life: { ...profile.life, runwayEndsAt: profile.life.runwayEndsAt + 20n * BigInt(DAY) },
        reprieve: { requestedAt: BigInt(Math.floor(Date.now() / 1000)), amount: 12_000_000n, payer: profile.golemKey },
      }
      await env.store.updateGolem({
        golemId: 'oneway',
        expectedVersion: record.version,
        patch: { profile: serializeGolemProfile(fed) },
        now: Date.now(),
      })
    }
    reset()
    await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
    if ((await env.store.getGolem('oneway'))?.status === 'dead') break
    await env.devnet.increaseTime(DAY)
  }
  resets = (await env.store.listEvents({ golemId: 'oneway', limit: 200 })).events.filter((e) => e.type === 'PhaseReset').length
})
let resets = 0
afterAll(async () => env?.stop())

describe('a tick, one way', () => {
  it('lived a whole life: redemptions, phase posts, a reprieve, a death', () => {
    expect(ticks.length).toBeGreaterThan(20)
    expect(ticks.some((t) => t.result.phase?.posted)).toBe(true)
    expect(ticks.at(-1)!.result.outcome).toBe('died')
    expect(resets).toBeGreaterThan(0)
  })

  it('reads no record, parses the profile once (the walker) and plans once, on every beat of it (the walker at most once, to decide it is needed)', () => {
    for (const [i, t] of ticks.entries()) {
      expect({ beat: i, reads: t.reads, parses: t.parses, plans: t.plans }).toEqual({ beat: i, reads: 0, parses: 1, plans: 1 })
      // None when the reason needs no plan (the first tick, a paid feed's reprieve).
      expect(t.walkerPlans, `beat ${i}`).toBeLessThanOrEqual(1)
    }
  })

  it('plans its gas at most once a beat (and the walker at most once to decide)', () => {
    for (const [i, t] of ticks.entries()) {
      expect(t.gasPlans, `beat ${i}`).toBeLessThanOrEqual(1)
      expect(t.walkerGasPlans, `beat ${i}`).toBeLessThanOrEqual(1)
    }
  })

  it("parses the profile once on each side when the hand-over crosses the wire: the walker's, then the tick's on arrival", async () => {
    await provisionGolemIn(env, 'wire')
    const sides: { parses: number; plans: number }[] = []
    const invoker: TickInvoker = {
      async invoke(requests: readonly TickRequest[]) {
        sides.push({ parses: calls.parse, plans: calls.plan })
        reset()
        for (const request of decodeTickPayload(encodeTickPayload(requests))) {
          expect(request.profile).toBeUndefined()
          expect((await runTick(env.deps(), request)).outcome).toBe('ticked')
        }
        sides.push({ parses: calls.parse, plans: calls.plan })
      },
    }
    reset()
    await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
    expect(sides).toEqual([
      { parses: 1, plans: 0 },
      { parses: 1, plans: 1 },
    ])
  })
})
