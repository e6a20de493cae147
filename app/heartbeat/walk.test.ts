// One walk over the store's due list, the chain read stood in: how many multicalls it makes and with how
// many Golems each. Several small shards share one; a shard with more than a page is read page by page;
// no multicall carries more than a page.
import type { PublicClient } from 'viem'
import { describe, expect, it } from 'vitest'
import type { readGolems } from '../../adapters/chain/readGolems.ts'
import { dueShard } from '../../adapters/store/keys.ts'
import { InMemoryStore } from '../../adapters/store/memoryStore.ts'
import type { BardoDeployment } from '../../core/deployment.ts'
import { serializeGolemProfile } from '../../core/lifecycle/profile.ts'
import { testProfile, testRead } from '../../test/support/lifecycle/profile.ts'
import type { TickRequest } from './handOver.ts'
import { walkShard } from './walk.ts'

const NOW_MS = 1_750_000_000_000
const SHARDS = 16

/** A store holding `count` due Golems whose ids the due list puts in the given shards (every shard when left out). */
async function fleet(count: number, inShards?: readonly number[]): Promise<InMemoryStore> {
  const store = new InMemoryStore({ dueShards: SHARDS })
  const profile = serializeGolemProfile(testProfile())
  for (let i = 0, made = 0; made < count; i++) {
    const golemId = `g${i}`
    if (inShards && !inShards.includes(dueShard(golemId, SHARDS))) continue
    await store.createGolem({
      golemId,
      owner: '0x00000000000000000000000000000000000000a1',
      sessionKeyAddress: '0x00000000000000000000000000000000000000b2',
      custodyMode: 'Delegation',
      profile,
      nextTickAt: NOW_MS - 1_000,
      now: NOW_MS - 60_000,
    })
    made++
  }
  return store
}

async function walk(store: InMemoryStore, shards: number[]) {
  const reads: number[] = []
  const handedOver: string[] = []
  const chainReader = (async (_client, _deployment, requests, at) => {
    reads.push(requests.length)
    return {
      blockNumber: at!.number,
      timestamp: at!.timestamp,
      golems: requests.map((q) => {
        const { timestamp: _, ...read } = testRead({ golemId: q.golemId, isNewPeriod: false })
        return read
      }),
    }
  }) as typeof readGolems
  const result = await walkShard(
    {
      store,
      client: {} as PublicClient,
      deployment: {} as BardoDeployment,
      invoker: { invoke: async (requests: readonly TickRequest[]) => void handedOver.push(...requests.map((r) => r.golemId)) },
      chainReader,
    },
    { shards, blockNumber: 7n, timestamp: BigInt(NOW_MS / 1000), dispatchedAt: NOW_MS },
  )
  return { result, reads, handedOver }
}

describe('walkShard over several shards', () => {
  it('reads a fleet of 100 spread over every shard in one multicall, and hands each Golem over once', async () => {
    const { result, reads, handedOver } = await walk(await fleet(100), [...Array(SHARDS).keys()])
    expect(reads).toEqual([100])
    expect(result).toMatchObject({ shards: [...Array(SHARDS).keys()], reads: 1, listed: 100, due: 100, invoked: 100, failed: 0 })
    expect(new Set(handedOver).size).toBe(100)
    expect(handedOver).toHaveLength(100)
  })

  it('reads a shard with more than a page page by page, never more than a page a multicall', async () => {
    const { result, reads } = await walk(await fleet(450, [3]), [3])
    expect(reads).toEqual([200, 200, 50])
    expect(result).toMatchObject({ pages: 3, reads: 3, due: 450, invoked: 450 })
  })

  it('carries what small shards leave over into the next multicall, up to a page', async () => {
    const { result, reads } = await walk(await fleet(300, [1, 2]), [1, 2])
    expect(reads.every((n) => n <= 200)).toBe(true)
    expect(reads.reduce((a, n) => a + n, 0)).toBe(300)
    expect(reads).toHaveLength(2)
    expect(result).toMatchObject({ due: 300, invoked: 300 })
  })
})
