// The record in the tick's payload is the walker's copy: the tick does not read it again, and a stale copy
// is harmless because the lease write is conditional on its version. A copy whose Golem ticked since is
// refused; one that lost only to a credit (same delegations, same key) takes the lease on the current
// record and keeps the credit, parsing each profile text once; one whose chain reads changed since is
// refused. Real anvil and DynamoStore.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { parseGolemProfile, serializeGolemProfile } from '../../core/lifecycle/profile.ts'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import type { TickInvoker, TickRequest } from '../../app/heartbeat/handOver.ts'
import { decodeTickPayload, encodeTickPayload } from '../../app/heartbeat/tickPayload.ts'
import { runTick } from '../../app/tick/runTick.ts'
import { DAY, startHeartbeatEnv, type HeartbeatEnv } from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const calls = vi.hoisted(() => ({ parse: 0 }))

// Parses counted through the module everyone imports parseGolemProfile from, the real one wrapped.
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

let env: HeartbeatEnv
const ID = 'stale'

/** One heartbeat whose hand-over is kept (through the wire format) instead of run. */
async function handOver(): Promise<TickRequest> {
  const kept: TickRequest[] = []
  const invoker: TickInvoker = {
    async invoke(requests) {
      kept.push(...decodeTickPayload(encodeTickPayload(requests)))
    },
  }
  await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
  expect(kept.map((r) => r.golemId)).toEqual([ID])
  return kept[0]!
}

async function editProfile(edit: (p: ReturnType<typeof parseGolemProfile>) => void): Promise<void> {
  const record = (await env.store.getGolem(ID))!
  const profile = parseGolemProfile(record.profile)
  edit(profile)
  const updated = await env.store.updateGolem({
    golemId: ID,
    expectedVersion: record.version,
    patch: { profile: serializeGolemProfile(profile) },
    now: record.updatedAt,
  })
  expect(updated.updated).toBe(true)
}

beforeAll(async () => {
  env = await startHeartbeatEnv()
  await provisionGolemIn(env, ID)
})
afterAll(async () => env?.stop())

describe('the record in the payload', () => {
  it('carries the record the walker read, validated on arrival', async () => {
    const request = await handOver()
    expect(request.record).toEqual(await env.store.getGolem(ID))
    const wire = JSON.parse(encodeTickPayload([request])) as { requests: Record<string, unknown>[] }
    expect(() => decodeTickPayload(JSON.stringify({ requests: [{ ...wire.requests[0], golemId: 'another' }] }))).toThrow(/record.golemId/)
    const bad = { ...(wire.requests[0]!.record as Record<string, unknown>), version: 0 }
    expect(() => decodeTickPayload(JSON.stringify({ requests: [{ ...wire.requests[0], record: bad }] }))).toThrow()
  })

  it('refuses a copy whose Golem ticked since: busy at the lease, nothing written', async () => {
    await env.devnet.increaseTime(61)
    const request = await handOver()
    expect((await runTick(env.deps('first'), request)).outcome).toBe('ticked')
    const after = (await env.store.getGolem(ID))!
    expect(after.version).toBeGreaterThan(request.record!.version)
    expect(await runTick(env.deps('late'), request)).toEqual({ golemId: ID, outcome: 'busy' })
    expect(await env.store.getGolem(ID)).toEqual(after)
  })

  it('takes the lease on the current record when the copy lost only to a credit, and keeps the credit', async () => {
    // A new period: the Golem has work (an idle minute is not handed over at all).
    await env.devnet.increaseTime(DAY)
    const request = await handOver()
    const credited = request.record && parseGolemProfile(request.record.profile).life.runwayEndsAt + 3_600n
    // A paid extension lands between the walk and the tick: a new version, the same chain reads.
    await editProfile((p) => {
      p.life.runwayEndsAt = credited!
    })
    calls.parse = 0
    const result = await runTick(env.deps('after-credit'), request)
    expect(result.outcome).toBe('ticked')
    // Each profile text once: the copy's, on arrival, and the current record's, which the lease is taken on.
    expect(calls.parse).toBe(2)
    const record = (await env.store.getGolem(ID))!
    expect(record.lastTick?.outcome).not.toBe('running')
    expect(parseGolemProfile(record.profile).life.runwayEndsAt).toBe(credited)
  })

  it('refuses a copy whose delegations changed since: the chain was read for the old ones', async () => {
    await env.devnet.increaseTime(DAY)
    const request = await handOver()
    await editProfile((p) => {
      p.runway.chainHashes = [`0x${'ee'.repeat(32)}`]
    })
    const before = (await env.store.getGolem(ID))!
    expect(await runTick(env.deps('after-renewal'), request)).toEqual({ golemId: ID, outcome: 'busy' })
    expect(await env.store.getGolem(ID)).toEqual(before)
  })
})
