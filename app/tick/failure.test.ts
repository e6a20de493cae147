// Counting a failed tick on the record: one more on the lease's lastTick, the halt and its event at the
// limit (once, however often the write is retried), nothing when another tick holds the record now,
// and no key material in the event.
import { describe, expect, it } from 'vitest'
import { InMemoryStore } from '../../adapters/store/index.ts'
import { golemInput } from '../../adapters/store/conformance/fixtures.ts'
import { recordTickFailure } from './failure.ts'

const T = 1_767_225_600_000

async function leased(failures?: number) {
  const store = new InMemoryStore()
  await store.createGolem(golemInput('g1', { now: T - 60_000, nextTickAt: T - 60_000 }))
  const lastTick = { at: T, period: 3n, outcome: 'running', txHash: null, ...(failures === undefined ? {} : { failures }) }
  await store.updateGolem({ golemId: 'g1', expectedVersion: 1, patch: { lastTick }, now: T })
  return store
}

describe('recordTickFailure', () => {
  it('counts one more failure on the lease, which stays the lease', async () => {
    const store = await leased()
    expect(await recordTickFailure({ store, maxConsecutiveFailures: 3 }, 'g1', T, new Error('boom'))).toEqual({
      failures: 1,
      halted: false,
    })
    expect((await store.getGolem('g1'))!.lastTick).toEqual({ at: T, period: 3n, outcome: 'running', txHash: null, failures: 1 })
    expect((await store.listEvents({ golemId: 'g1', limit: 10, cursor: null, order: 'asc' })).events).toEqual([])
  })

  it('halts at the limit and records the event once, without the key in the reason', async () => {
    const store = await leased(2)
    const key = `0x${'5a'.repeat(32)}`
    const error = new Error(`cannot load ${key}\nstack`)
    expect(await recordTickFailure({ store, maxConsecutiveFailures: 3 }, 'g1', T, error)).toEqual({ failures: 3, halted: true })
    expect((await store.getGolem('g1'))!.lastTick).toMatchObject({ outcome: 'halted', failures: 3 })
    // A second attempt finds the record halted, not this tick's lease: nothing more.
    expect(await recordTickFailure({ store, maxConsecutiveFailures: 3 }, 'g1', T, error)).toBeNull()
    const events = (await store.listEvents({ golemId: 'g1', limit: 10, cursor: null, order: 'asc' })).events
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['HeartbeatAnomaly', { failures: 3, maxConsecutiveFailures: 3, reason: 'Error: cannot load [hex]' }],
    ])
    expect(JSON.stringify(events)).not.toContain('5a5a5a')
  })

  it('writes nothing when another tick holds the record now', async () => {
    const store = await leased(1)
    expect(await recordTickFailure({ store, maxConsecutiveFailures: 3 }, 'g1', T - 1, new Error('late'))).toBeNull()
    expect((await store.getGolem('g1'))!.lastTick).toMatchObject({ at: T, failures: 1 })
  })
})
