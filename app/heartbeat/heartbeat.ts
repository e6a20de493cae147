// The heartbeat, in two parts that run the same code locally and on AWS. Every minute the dispatcher
// reads the chain head once, lists the first page of each due shard, and sends one walk per shard that
// fills a page and one per pack of smaller shards (SQS on AWS, in-process locally); a shard walker
// (walk.ts) lists its shards' due Golems, reads them from the chain in one batch per page and hands each
// Golem with its observation and its record to a tick. The invokers decide how ticks run:
// in-process locally, asynchronous Lambda invocations on AWS.
import type { WalkChainActions } from '../../adapters/chain/walkChainClient.ts'
import { planWalks, type ShardLoad } from '../../core/lifecycle/walkPlan.ts'
import type { Store } from '../../core/store/index.ts'
import { LocalShardDispatcher } from './dispatchers.ts'
import { DEFAULT_PAGE_SIZE, walkShard, type WalkDeps } from './walk.ts'
import type { ShardDispatcher, WalkResult } from './handOver.ts'
import type { ShardWalk } from './shardWalk.ts'

export type DispatchResult = {
  /** Due shards. */
  shards: number
  /** Walks sent: one per shard that fills a page, one per pack of smaller shards. */
  walks: number
  blockNumber: bigint
  timestamp: bigint
}

/** The dispatcher's whole job: one head read, one page of each shard's due list, then the minute's walks. */
export async function dispatchHeartbeat(deps: {
  client: Pick<WalkChainActions, 'getBlock' | 'estimateMaxPriorityFeePerGas'>
  store: Pick<Store, 'listDueGolems'>
  shards: number
  dispatcher: ShardDispatcher
  /** Golems per walker page and multicall, as the walkers page (walk.ts). */
  pageSize?: number
  wallClock?: () => number
}): Promise<DispatchResult> {
  // Chain time is the clock: an accelerated local life and a real chain behave the same way. The priority
  // fee is read here once for every shard (with the block, at once), not once per walk; a failed read
  // leaves it to each walk.
  const [block, maxPriorityFeePerGas] = await Promise.all([
    deps.client.getBlock({ blockTag: 'latest' }),
    deps.client.estimateMaxPriorityFeePerGas().catch(() => null),
  ])
  const pageSize = deps.pageSize ?? DEFAULT_PAGE_SIZE
  const loads = await shardLoads(deps.store, deps.shards, Number(block.timestamp) * 1000, pageSize)
  const dispatchedAt = (deps.wallClock ?? Date.now)()
  const baseFeePerGas = block.baseFeePerGas ?? undefined
  const firstPageOf = new Map(loads.map((l) => [l.shard, l.firstPage]))
  const walks = planWalks(loads, pageSize).map((shards) => ({
    shards,
    firstPages: shards.flatMap((shard) => {
      const page = firstPageOf.get(shard)
      return page ? [page] : []
    }),
    blockNumber: block.number,
    timestamp: block.timestamp,
    ...(baseFeePerGas === undefined ? {} : { baseFeePerGas }),
    ...(baseFeePerGas === undefined || maxPriorityFeePerGas === null ? {} : { maxPriorityFeePerGas }),
    dispatchedAt,
  }))
  await deps.dispatcher.dispatch(walks)
  return { shards: deps.shards, walks: walks.length, blockNumber: block.number, timestamp: block.timestamp }
}

/**
 * Each shard's first page of due entries at the minute's time (the time its walk lists at), kept so the
 * walk starts from it rather than listing it again. A shard whose list cannot be read counts as full, so
 * it walks alone and its walker lists it itself.
 */
async function shardLoads(store: Pick<Store, 'listDueGolems'>, shards: number, now: number, pageSize: number): Promise<ListedShard[]> {
  return Promise.all(
    Array.from({ length: shards }, (_, shard) =>
      store.listDueGolems({ now, limit: pageSize, cursor: null, shard }).then(
        (page) => ({
          shard,
          listed: page.golems.length,
          more: page.cursor !== null,
          firstPage: { shard, golemIds: page.golems.map((g) => g.golemId), cursor: page.cursor },
        }),
        () => ({ shard, listed: pageSize, more: true }),
      ),
    ),
  )
}

type ListedShard = ShardLoad & { firstPage?: NonNullable<ShardWalk['firstPages']>[number] }

/** A whole heartbeat in one process: what every shard's walk needs, and how many shards walk at once. */
export type HeartbeatDeps = Omit<WalkDeps, 'chainReader' | 'onPage'> & {
  /** Shards walked at once in this process (on AWS every shard is its own walker invocation). */
  shardConcurrency?: number
}

export type HeartbeatResult = {
  /** Golems whose record said they were due (and alive or dying). */
  due: number
  invoked: number
  /** Listed but not ticked: dead, or a record the tick could not read. */
  skipped: number
  /** Listed by an entry that lags its record (an idle tick does not rewrite it), and not due yet. */
  notDue: number
  /**
   * Due and observed, with nothing to do: not handed over (core/lifecycle/tickNeed.ts). A Golem the heartbeat
   * anomaly halted is counted here until its death is due.
   */
  idle: number
  shards: number
  blockNumber: bigint
  timestamp: bigint
}

/** One whole heartbeat in this process (`npm start`, tests, benches): the dispatcher and every walker. */
export async function runHeartbeat(deps: HeartbeatDeps): Promise<HeartbeatResult> {
  const walker = new LocalShardDispatcher((walk) => walkShard(deps, walk), { concurrency: deps.shardConcurrency ?? 4 })
  const dispatched = await dispatchHeartbeat({
    client: deps.client,
    store: deps.store,
    shards: deps.store.dueShards,
    dispatcher: walker,
    ...(deps.pageSize === undefined ? {} : { pageSize: deps.pageSize }),
  })
  const sum = (f: (w: WalkResult) => number) => walker.results.reduce((a, w) => a + f(w), 0)
  return {
    due: sum((w) => w.due),
    invoked: sum((w) => w.invoked),
    skipped: sum((w) => w.skipped),
    notDue: sum((w) => w.notDue),
    idle: sum((w) => w.idle),
    shards: dispatched.shards,
    blockNumber: dispatched.blockNumber,
    timestamp: dispatched.timestamp,
  }
}
