// The heartbeat's fan-out at 100,000 Golems: the records and due entries in dynalite (seeded with
// BatchWriteItem), the real dispatcher (dispatchHeartbeat + SqsShardDispatcher), the real shard walker
// (walkShard on DynamoStore), and stand-ins for what is not here: the chain head, the page's multicall,
// SQS and Lambda's Invoke. Every call costs its measured latency on a virtual clock: the dispatcher has
// one, each walker its own (on AWS every shard is its own invocation), and a call advances its caller's
// clock by its latency (calls in flight at once overlap). Asserted: every shard's pages are all handed
// over within the minute of virtual time, and every due Golem is handed over exactly once. No wall-clock
// time is asserted.
import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { createRequire } from 'node:module'
import type { SQSClient } from '@aws-sdk/client-sqs'
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import type { PublicClient } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BardoDeployment } from '../../core/deployment.ts'
import { serializeGolemProfile } from '../../core/lifecycle/profile.ts'
import { testProfile, testRead } from '../support/lifecycle/profile.ts'
import type { GolemRecord } from '../../core/store/index.ts'
import * as codec from '../../adapters/store/codec.ts'
import { DynamoStore } from '../../adapters/store/index.ts'
import { DEFAULT_DUE_SHARDS } from '../../adapters/store/keys.ts'
import type { readGolems } from '../../adapters/chain/readGolems.ts'
import { dispatchHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import type { TickInvoker, TickRequest } from '../../app/heartbeat/handOver.ts'
import { SqsShardDispatcher } from '../../functions/heartbeat/sqsDispatcher.ts'
import { walkShard } from '../../app/heartbeat/walk.ts'
import type { WalkResult } from '../../app/heartbeat/handOver.ts'
import { decodeShardWalk, type ShardWalk } from '../../app/heartbeat/shardWalk.ts'
import { settleBounded } from '../../app/concurrency.ts'
import { createTable, documentClient, localDynamoClient } from '../../local/dynalite.ts'

const DUE = 100_000
/** Dead Golems (their entries say so) and Golems that already ticked this minute (entry behind the record). */
const DEAD = 500
const TICKED = 500
const SHARDS = DEFAULT_DUE_SHARDS
const MINUTE_MS = 60_000

/**
 * Stand-in latencies (ms). A heartbeat page measured 0.6-1.2 s on main (docs/scaling.md): a Query, 200
 * record reads, one multicall and 20 Lambda invokes awaited in turn (~30 ms each), so the multicall is the
 * rest of the upper end, ~600 ms. DynamoDB's in-region round trips are the ~5 ms docs/scaling.md assumes,
 * more for the bigger answers; SQS -> walker delivery is the event source mapping's poll, taken at a
 * generous second.
 */
const LATENCY = {
  blockRead: 100,
  multicall: 600,
  invoke: 30,
  sqsSendBatch: 20,
  sqsDelivery: 1_000,
  query: 10,
  batchGetItem: 25,
} as const

/** A virtual clock: a call advances it by its latency, from when the call started (so overlapping calls overlap). */
class VirtualClock {
  constructor(public now = 0) {}
  async call<T>(latencyMs: number, run: () => Promise<T> | T): Promise<T> {
    const start = this.now
    const out = await run()
    this.now = Math.max(this.now, start + latencyMs)
    return out
  }
}

let dynalite: { endpoint: string; stop(): Promise<void> }

/**
 * dynalite in a child process: the seeding and the walkers' clients then run on one core and the table on
 * the other, instead of both on this worker's one thread (the 100,000 Golems make it the test's whole cost).
 */
async function startDynaliteProcess(): Promise<{ endpoint: string; stop(): Promise<void> }> {
  const main = createRequire(import.meta.url).resolve('dynalite')
  const script = `const s = require(${JSON.stringify(main)})({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
    s.listen(0, '127.0.0.1', () => process.stdout.write(String(s.address().port) + '\\n'));
    process.on('disconnect', () => process.exit(0));`
  const child: ChildProcess = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] })
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => reject(new Error(`dynalite exited with ${code}`)))
    child.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())))
  })
  child.removeAllListeners('exit')
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}
let tableName: string
const BLOCK = { number: 1_000n, timestamp: 1_750_000_000n }
const NOW_MS = Number(BLOCK.timestamp) * 1000
const handedOver = new Map<string, number>()
const walks: { walk: ShardWalk; startAt: number }[] = []
const finished: { shards: number[]; result: WalkResult; pageTimes: number[]; startAt: number; endAt: number }[] = []
let dispatchEndAt = 0
const seedTimings: { seedMs: number; walkMs: number } = { seedMs: 0, walkMs: 0 }

const idOf = (i: number) => `g${String(i).padStart(6, '0')}`

async function seed(doc: DynamoDBDocumentClient): Promise<void> {
  const profile = serializeGolemProfile(testProfile())
  const record = (golemId: string, over: Partial<GolemRecord> = {}): GolemRecord => ({
    golemId,
    owner: '0x00000000000000000000000000000000000000a1',
    sessionKeyAddress: '0x00000000000000000000000000000000000000b2',
    custodyMode: 'Delegation',
    profile,
    status: 'alive',
    phase: 'Thriving',
    nextTickAt: NOW_MS - 1_000,
    lastTick: null,
    createdAt: NOW_MS - 86_400_000,
    updatedAt: NOW_MS - 60_000,
    version: 1,
    ...over,
  })
  const items: Record<string, unknown>[] = []
  for (let i = 0; i < DUE + DEAD + TICKED; i++) {
    const id = idOf(i)
    if (i < DUE) {
      const r = record(id)
      items.push(codec.golemToItem(r), codec.dueToItem(r, SHARDS))
    } else if (i < DUE + DEAD) {
      const r = record(id, { status: 'dead' })
      items.push(codec.golemToItem(r), codec.dueToItem(r, SHARDS))
    } else {
      // Ticked this minute already: the record's next tick is a minute on, its entry (not rewritten) is behind.
      const r = record(id, { nextTickAt: NOW_MS + 59_000, version: 3 })
      items.push(codec.golemToItem(r), codec.dueToItem({ ...r, nextTickAt: NOW_MS - 61_000, version: 1 }, SHARDS))
    }
  }
  const batches: Record<string, unknown>[][] = []
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25))
  const settled = await settleBounded(batches, 16, async (batch) => {
    let pending = batch.map((Item) => ({ PutRequest: { Item } }))
    while (pending.length > 0) {
      const out = await doc.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }))
      pending = (out.UnprocessedItems?.[tableName] ?? []) as typeof pending
    }
  })
  const failed = settled.find((s) => s.status === 'rejected')
  if (failed) throw (failed as PromiseRejectedResult).reason
}

/** A DynamoStore whose every request costs the walker's clock its latency (counted on the wire). */
function timedStore(clock: VirtualClock, endpoint: string): { store: DynamoStore; destroy: () => void } {
  const raw = localDynamoClient(endpoint)
  raw.middlewareStack.add(
    (next, context) => async (args) => {
      const latency = context.commandName === 'QueryCommand' ? LATENCY.query : LATENCY.batchGetItem
      return clock.call(latency, () => next(args))
    },
    { step: 'finalizeRequest', name: 'virtualLatency' },
  )
  return { store: new DynamoStore({ client: documentClient(raw), tableName }), destroy: () => raw.destroy() }
}

beforeAll(async () => {
  const started = performance.now()
  dynalite = await startDynaliteProcess()
  tableName = `fanout-${randomUUID().slice(0, 8)}`
  const raw = localDynamoClient(dynalite.endpoint)
  await createTable(raw, tableName)
  await seed(documentClient(raw))
  raw.destroy()
  seedTimings.seedMs = performance.now() - started

  // The dispatcher: one head read, the first page of each shard's due list (to pack small shards; here
  // every shard fills a page, so each walks alone), then SendMessageBatch (ten walks each) to the stand-in queue.
  const dispatcherClock = new VirtualClock(0)
  const dispatcherStore = timedStore(dispatcherClock, dynalite.endpoint)
  const head = {
    getBlock: () => dispatcherClock.call(LATENCY.blockRead, () => BLOCK),
    estimateMaxPriorityFeePerGas: () => dispatcherClock.call(LATENCY.blockRead, () => 1_000_000n),
  } as unknown as PublicClient
  const sqs = {
    send: (command: { input: { Entries?: { MessageBody?: string }[] } }) => {
      const sentAt = dispatcherClock.now
      return dispatcherClock.call(LATENCY.sqsSendBatch, () => {
        for (const e of command.input.Entries ?? [])
          walks.push({ walk: decodeShardWalk(e.MessageBody!), startAt: sentAt + LATENCY.sqsSendBatch + LATENCY.sqsDelivery })
        return { Successful: command.input.Entries, Failed: [] }
      })
    },
  } as unknown as Pick<SQSClient, 'send'>
  await dispatchHeartbeat({
    client: head,
    store: dispatcherStore.store,
    shards: SHARDS,
    dispatcher: new SqsShardDispatcher(sqs, 'https://sqs.local/walks'),
  })
  dispatcherStore.destroy()
  dispatchEndAt = dispatcherClock.now

  // Every walker on its own clock, from the moment SQS delivers its message. Run a few at a time here;
  // their clocks are independent, as the walkers' invocations are on AWS.
  const walkStarted = performance.now()
  const runs = await settleBounded(walks, 8, async ({ walk, startAt }) => {
    const clock = new VirtualClock(startAt)
    const { store, destroy } = timedStore(clock, dynalite.endpoint)
    const pageTimes: number[] = []
    const invoker: TickInvoker = {
      invoke: (requests: readonly TickRequest[]) =>
        clock.call(LATENCY.invoke, () => {
          for (const r of requests) {
            expect(r.record?.golemId).toBe(r.golemId)
            handedOver.set(r.golemId, (handedOver.get(r.golemId) ?? 0) + 1)
          }
        }),
    }
    const chainReader = ((_client, _deployment, requests, at) =>
      clock.call(LATENCY.multicall, () => ({
        blockNumber: at!.number,
        timestamp: at!.timestamp,
        golems: requests.map((q) => {
          const { timestamp: _, ...read } = testRead({ golemId: q.golemId, isNewPeriod: false })
          return read
        }),
      }))) as typeof readGolems
    try {
      const result = await walkShard(
        {
          store,
          client: head,
          deployment: {} as BardoDeployment,
          invoker,
          chainReader,
          onPage: () => pageTimes.push(clock.now),
        },
        walk,
      )
      finished.push({ shards: walk.shards, result, pageTimes, startAt, endAt: clock.now })
    } finally {
      destroy()
    }
  })
  const failed = runs.find((r) => r.status === 'rejected')
  if (failed) throw (failed as PromiseRejectedResult).reason
  seedTimings.walkMs = performance.now() - walkStarted
  // Measured CI cost (not asserted): seeding and walking, in wall-clock seconds, for docs/heartbeat.md.
  process.stderr.write(
    `fan-out ${DUE} Golems: seeded in ${(seedTimings.seedMs / 1000).toFixed(1)} s, walked in ${(seedTimings.walkMs / 1000).toFixed(1)} s; ` +
      `slowest shard done at ${(Math.max(...finished.map((f) => f.endAt)) / 1000).toFixed(2)} s of virtual time, ` +
      `pages per shard ${Math.min(...finished.map((f) => f.result.pages))}-${Math.max(...finished.map((f) => f.result.pages))}\n`,
  )
}, 600_000)

afterAll(async () => dynalite?.stop())

describe(`heartbeat fan-out: ${DUE.toLocaleString('en')} Golems over ${SHARDS} shards, on a virtual clock at measured latencies`, () => {
  it('sends one walk per shard (each fills a page), all in the first seconds of the minute', () => {
    expect(walks.map((w) => w.walk.shards).sort((a, b) => a[0]! - b[0]!)).toEqual([...Array(SHARDS).keys()].map((s) => [s]))
    // One head read, the shards' first pages listed side by side, and the SendMessageBatch calls (ten walks each) side by side.
    expect(dispatchEndAt).toBe(LATENCY.blockRead + LATENCY.query + LATENCY.sqsSendBatch)
    for (const w of walks) expect(w.walk).toMatchObject({ blockNumber: BLOCK.number, timestamp: BLOCK.timestamp })
  })

  it("hands over every shard's pages within the minute of virtual time", () => {
    expect(finished).toHaveLength(SHARDS)
    for (const f of finished) {
      expect(f.result.pages, `shards ${f.shards.join(',')}`).toBeGreaterThan(1)
      for (const [page, at] of f.pageTimes.entries()) expect(at, `shards ${f.shards.join(',')} page ${page}`).toBeLessThan(MINUTE_MS)
      expect(f.endAt, `shards ${f.shards.join(',')}`).toBeLessThan(MINUTE_MS)
    }
    // The same pages walked one after another, as the heartbeat did before the fan-out, would not fit.
    const pages = finished.reduce((a, f) => a + f.result.pages, 0)
    const serialPageMs = LATENCY.query + 2 * LATENCY.batchGetItem + LATENCY.multicall + 20 * LATENCY.invoke
    expect(pages * serialPageMs).toBeGreaterThan(5 * MINUTE_MS)
  })

  it('hands every due Golem over exactly once, and neither the dead nor those that ticked this minute', () => {
    expect(handedOver.size).toBe(DUE)
    expect([...handedOver.values()].every((n) => n === 1)).toBe(true)
    for (let i = 0; i < DUE; i += 997) expect(handedOver.get(idOf(i))).toBe(1)
    for (let i = DUE; i < DUE + DEAD + TICKED; i++) expect(handedOver.has(idOf(i))).toBe(false)
    const sum = (f: (r: WalkResult) => number) => finished.reduce((a, x) => a + f(x.result), 0)
    expect({ due: sum((r) => r.due), invoked: sum((r) => r.invoked), notDue: sum((r) => r.notDue), failed: sum((r) => r.failed) }).toEqual({
      due: DUE,
      invoked: DUE,
      notDue: TICKED,
      failed: 0,
    })
  })
})
