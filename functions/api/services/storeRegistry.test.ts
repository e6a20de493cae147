// The registry computes a Golem's view once per stored version: the same version read again is the same
// view, a new version (any write) is computed afresh, and the kept views are bounded. A Golem asked for
// by id has its record and its shard's last walk read together.
import { describe, expect, it } from 'vitest'
import type { GolemRecord, GolemStore } from '../../../core/store/index.ts'
import { StoreGolemRegistry } from './storeRegistry.ts'

const record = (golemId: string, version: number, phase: GolemRecord['phase'] = 'Thriving'): GolemRecord => ({
  golemId,
  owner: '0x00000000000000000000000000000000000000aa',
  sessionKeyAddress: '0x00000000000000000000000000000000000000bb',
  custodyMode: 'Delegation',
  profile: null,
  status: 'alive',
  phase,
  nextTickAt: 0,
  lastTick: null,
  createdAt: 1_000,
  updatedAt: 1_000 + version,
  version,
})

function storeOf(records: Map<string, GolemRecord>, walks: { at: number | null } = { at: null }) {
  let reads = 0
  const store = {
    getGolem: async (id: string) => {
      reads++
      return records.get(id) ?? null
    },
    findGolems: async () => [],
    lastWalkOf: async () => walks.at,
  } as unknown as GolemStore
  return { store, reads: () => reads }
}

describe('StoreGolemRegistry', () => {
  it('reads the store every time and reuses the view while the version is the same', async () => {
    const records = new Map([['atlas', record('atlas', 1)]])
    const { store, reads } = storeOf(records)
    const registry = new StoreGolemRegistry({ store })
    const a = await registry.getGolem('atlas')
    const b = await registry.getGolem('atlas')
    expect(reads()).toBe(2)
    expect(b).toBe(a)
    records.set('atlas', record('atlas', 2, 'Stable'))
    const c = await registry.getGolem('atlas')
    expect(c).not.toBe(a)
    expect(c?.phase).toBe('Stable')
  })

  it('keeps at most maxViews views, and refuses a bad bound naming it', async () => {
    const records = new Map([
      ['a', record('a', 1)],
      ['b', record('b', 1)],
    ])
    const registry = new StoreGolemRegistry({ store: storeOf(records).store, maxViews: 1 })
    const a = await registry.getGolem('a')
    await registry.getGolem('b')
    expect(await registry.getGolem('a')).not.toBe(a)
    expect(() => new StoreGolemRegistry({ store: storeOf(records).store, maxViews: 0 })).toThrow(/maxViews/)
  })

  it("reads a Golem's record and its shard's last walk together, and reads no walk for an unknown id", async () => {
    const order: string[] = []
    let release: () => void = () => undefined
    const held = new Promise<void>((r) => {
      release = r
    })
    const store = {
      getGolem: async (id: string) => {
        order.push(`record ${id}`)
        await held
        return id === 'atlas' ? record('atlas', 1) : null
      },
      findGolems: async () => [],
      lastWalkOf: async (id: string) => {
        order.push(`walk ${id}`)
        return 1_600_000
      },
    } as unknown as GolemStore
    const registry = new StoreGolemRegistry({ store })
    const view = registry.getGolem('atlas')
    await Promise.resolve()
    // Both reads are in flight before the record's answer came.
    expect(order).toEqual(['record atlas', 'walk atlas'])
    release()
    expect((await view)?.lastHeartbeatAt).toBe(1_600)
    expect(order).toHaveLength(2)
    order.length = 0
    expect(await registry.getGolem('0x00000000000000000000000000000000000000cc')).toBeUndefined()
    expect(order).toEqual(['record 0x00000000000000000000000000000000000000cc'])
  })

  it("reports the heartbeat's last walk of the Golem's shard as its last heartbeat when no tick came since (an idle Golem is not ticked)", async () => {
    const ticked = {
      ...record('idle', 3),
      nextTickAt: 1_060_000,
      lastTick: { at: 1_000_000, period: 1n, outcome: 'confirmed', txHash: null },
    }
    const walks = { at: null as number | null }
    const registry = new StoreGolemRegistry({ store: storeOf(new Map([['idle', ticked]]), walks).store })
    expect((await registry.getGolem('idle'))?.lastHeartbeatAt).toBe(1_000)
    walks.at = 1_600_000
    expect((await registry.getGolem('idle'))?.lastHeartbeatAt).toBe(1_600)
    expect((await registry.getGolem('idle'))?.phase).toBe('Thriving')
  })
})
