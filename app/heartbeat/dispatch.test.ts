// The heartbeat's dispatch on its own: the walk message's wire format (validated on arrival), which shards
// each walk covers, the SQS dispatcher's batching and its report of unsent walks, and the bounded helpers
// both sides use.
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs'
import type { PublicClient } from 'viem'
import { describe, expect, it } from 'vitest'
import { Limiter, settleBounded } from '../concurrency.ts'
import { decodeShardWalk, encodeShardWalk, type ShardWalk } from './shardWalk.ts'
import { ShardDispatchError, SqsShardDispatcher } from '../../functions/heartbeat/sqsDispatcher.ts'
import type { ListDueInput, ListDueResult, Store } from '../../core/store/index.ts'
import { dispatchHeartbeat } from './heartbeat.ts'

const walk = (...shards: number[]): ShardWalk => ({ shards, blockNumber: 7n, timestamp: 1_750_000_000n, dispatchedAt: 1_750_000_000_123 })

describe('the walk message', () => {
  it('round-trips with its bigints', () => {
    expect(decodeShardWalk(encodeShardWalk(walk(3)))).toEqual(walk(3))
    expect(decodeShardWalk(encodeShardWalk(walk(0, 5, 9)))).toEqual(walk(0, 5, 9))
    const priced = { ...walk(4), baseFeePerGas: 12n, maxPriorityFeePerGas: 1_000_000n }
    expect(decodeShardWalk(encodeShardWalk(priced))).toEqual(priced)
  })

  it('refuses a malformed walk, naming the field', () => {
    const good = JSON.parse(encodeShardWalk(walk(1))) as Record<string, unknown>
    for (const [field, value] of [
      ['shards', []],
      ['shards', [2, 2]],
      ['shards', 3],
      ['shards.0', [-1]],
      ['shards.1', [0, 1.5]],
      ['blockNumber', 7],
      ['timestamp', '-1'],
      ['dispatchedAt', 'now'],
      ['maxPriorityFeePerGas', '0x1'],
    ] as const)
      expect(() => decodeShardWalk(JSON.stringify({ ...good, [field.split('.')[0]!]: value })), field).toThrow(
        new RegExp(`^walk\\.${field.replace('.', '\\.')}: `),
      )
    // One line, for the walker's error log.
    expect(() => decodeShardWalk(JSON.stringify({ ...good, shards: [-1] }))).toThrow('walk.shards.0: Too small: expected number to be >=0')
    expect(() => decodeShardWalk(JSON.stringify({ ...good, shards: [2, 2] }))).toThrow('walk.shards: must name each shard once')
    expect(() => decodeShardWalk('not json')).toThrow('walk: must be JSON')
  })
})

/** A due list of `listed[shard]` entries per shard (200 a page), answering as the store does. */
function dueList(listed: number[], failing: number[] = []): Pick<Store, 'listDueGolems'> & { asked: ListDueInput[] } {
  const asked: ListDueInput[] = []
  return {
    asked,
    async listDueGolems(input: ListDueInput): Promise<ListDueResult> {
      asked.push(input)
      const shard = input.shard ?? -1
      const limit = input.limit ?? 200
      if (failing.includes(shard)) throw new Error('throttled')
      const n = listed[shard] ?? 0
      const golems = Array.from({ length: Math.min(n, limit) }, (_, i) => ({
        golemId: `g-${shard}-${i}`,
        dueAt: 0,
        status: 'alive' as const,
        version: 1,
      }))
      return { golems, cursor: n > limit ? 'more' : null }
    },
  }
}

describe('dispatchHeartbeat', () => {
  const run = async (fee: () => Promise<bigint>, baseFeePerGas: bigint | null = 12n, store = dueList(Array(16).fill(200))) => {
    const calls = { block: 0, fee: 0 }
    const client = {
      getBlock: async () => {
        calls.block++
        return { number: 7n, timestamp: 1_750_000_000n, baseFeePerGas }
      },
      estimateMaxPriorityFeePerGas: () => {
        calls.fee++
        return fee()
      },
    } as unknown as PublicClient
    const sent: ShardWalk[] = []
    const result = await dispatchHeartbeat({
      client,
      store,
      shards: 16,
      dispatcher: { dispatch: async (w) => void sent.push(...w) },
      wallClock: () => 5,
    })
    return { calls, sent, result }
  }

  it('reads the block and the priority fee once for every shard, and every walk carries both', async () => {
    const { calls, sent } = await run(async () => 1_000_000n)
    expect(calls).toEqual({ block: 1, fee: 1 })
    expect(sent.map((w) => w.shards)).toEqual([...Array(16).keys()].map((s) => [s]))
    for (const w of sent)
      expect(w).toEqual({
        shards: w.shards,
        blockNumber: 7n,
        timestamp: 1_750_000_000n,
        baseFeePerGas: 12n,
        maxPriorityFeePerGas: 1_000_000n,
        dispatchedAt: 5,
        // The shard's first page as the heartbeat listed it: the walk starts from it, never lists it again.
        firstPages: [{ shard: w.shards[0], golemIds: expect.any(Array), cursor: null }],
      })
  })

  it('leaves the priority fee to each walk when its read fails, and both out on a chain without a base fee', async () => {
    const failed = await run(() => Promise.reject(new Error('rate limited')))
    for (const w of failed.sent) expect(w.maxPriorityFeePerGas).toBeUndefined()
    expect(failed.sent[0]!.baseFeePerGas).toBe(12n)
    const legacy = await run(async () => 1n, null)
    for (const w of legacy.sent) expect(Object.keys(w)).toEqual(['shards', 'firstPages', 'blockNumber', 'timestamp', 'dispatchedAt'])
  })

  it("lists each shard's first page at the block's time and packs the small shards: a fleet of 100 is one walk", async () => {
    const store = dueList([7, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7])
    const { sent, result } = await run(async () => 1n, 12n, store)
    expect(store.asked).toEqual([...Array(16).keys()].map((shard) => ({ now: 1_750_000_000_000, limit: 200, cursor: null, shard })))
    expect(sent.map((w) => w.shards)).toEqual([[...Array(16).keys()]])
    expect(sent[0]!.firstPages!.map((p) => [p.shard, p.golemIds.length, p.cursor])).toEqual(
      [7, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7].map((n, shard) => [shard, n, null]),
    )
    expect(result).toMatchObject({ shards: 16, walks: 1 })
  })

  it('sends no walk for a shard with nothing due, and walks a shard whose list could not be read alone', async () => {
    const { sent, result } = await run(async () => 1n, 12n, dueList([0, 0, 5, 0, 0, 0, 300, 0, 0, 0, 0, 0, 0, 0, 0, 9], [11]))
    expect(sent.map((w) => w.shards)).toEqual([[6], [11], [2, 15]])
    // The unreadable shard carries no first page: its walker lists it itself.
    expect(sent.map((w) => w.firstPages!.map((p) => p.shard))).toEqual([[6], [], [2, 15]])
    expect(result.walks).toBe(3)
    const idle = await run(async () => 1n, 12n, dueList([]))
    expect(idle.sent).toEqual([])
  })
})

describe('SqsShardDispatcher', () => {
  it('sends ten walks a SendMessageBatch, the batches at once, and names the walks SQS did not take', async () => {
    const sent: { entries: string[] }[] = []
    let inFlight = 0
    let most = 0
    const sqs = {
      async send(command: SendMessageBatchCommand) {
        expect(command).toBeInstanceOf(SendMessageBatchCommand)
        expect(command.input.QueueUrl).toBe('https://sqs.local/walks')
        inFlight++
        most = Math.max(most, inFlight)
        await new Promise((r) => setTimeout(r, 5))
        inFlight--
        const entries = command.input.Entries ?? []
        sent.push({ entries: entries.map((e) => e.MessageBody!) })
        // SQS answers 200 with some entries failed: those must not be taken as sent.
        return {
          Successful: [],
          Failed: entries.filter((e) => e.Id === 'shard-13').map((e) => ({ Id: e.Id, SenderFault: false, Code: 'x' })),
        }
      },
    }
    const dispatcher = new SqsShardDispatcher(sqs as never, 'https://sqs.local/walks')
    const walks = [...Array.from({ length: 13 }, (_, i) => walk(i)), walk(13, 14), walk(15)]
    await expect(dispatcher.dispatch(walks)).rejects.toThrow(ShardDispatchError)
    expect(sent.map((b) => b.entries.length).sort()).toEqual([10, 5])
    expect(most).toBe(2)
    expect(
      sent
        .flatMap((b) => b.entries)
        .flatMap((t) => decodeShardWalk(t).shards)
        .sort((a, b) => a - b),
    ).toEqual([...Array(16).keys()])
    // The walk SQS refused covered shards 13 and 14: both are named.
    await expect(dispatcher.dispatch(walks)).rejects.toMatchObject({ shards: [13, 14] })
  })
})

describe('bounded parallelism', () => {
  it('runs at most `limit` at once, keeps the order, and lets one failure stop none', async () => {
    let inFlight = 0
    let most = 0
    const settled = await settleBounded([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      inFlight++
      most = Math.max(most, inFlight)
      await new Promise((r) => setTimeout(r, 8 - n))
      inFlight--
      if (n === 4) throw new Error('four')
      return n * 10
    })
    expect(most).toBe(3)
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : 'x'))).toEqual([10, 20, 30, 'x', 50, 60, 70])
    await expect(settleBounded([], 0, async () => 0)).rejects.toThrow(RangeError)
  })

  it('shares one cap among every caller of a Limiter', async () => {
    const limiter = new Limiter(2)
    let inFlight = 0
    let most = 0
    const task = () =>
      limiter.run(async () => {
        inFlight++
        most = Math.max(most, inFlight)
        await new Promise((r) => setTimeout(r, 3))
        inFlight--
      })
    await Promise.all([Promise.all([task(), task(), task()]), Promise.all([task(), task()])])
    expect(most).toBe(2)
    await expect(limiter.run(async () => Promise.reject(new Error('no')))).rejects.toThrow('no')
    await task()
    expect(inFlight).toBe(0)
  })
})
