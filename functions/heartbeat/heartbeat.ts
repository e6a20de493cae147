// The heartbeat, in two parts that run the same code locally and on AWS. Every minute the dispatcher
// reads the chain head once and sends one walk per due shard (SQS on AWS, in-process locally); a shard
// walker (walk.ts) lists that shard's due Golems, reads them from the chain in one batch per page and
// hands each Golem with its observation and its record to a tick. The invokers decide how ticks run:
// in-process locally, asynchronous Lambda invocations on AWS.
import type { PublicClient } from 'viem'
import type { TickFees } from '../../core/fees.ts'
import type { ObservedGolem } from '../../core/lifecycle/observation.ts'
import type { GolemRecord } from '../../core/store/index.ts'
import type { ShardWalk } from '../shared/shardWalk.ts'
import { LocalShardDispatcher } from './dispatchers.ts'
import { walkShard, type WalkDeps, type WalkResult } from './walk.ts'

/**
 * One Golem's tick: its chain observation and its record, both read by the walker, so the tick reads
 * neither; `fees`: the heartbeat block's fee data, so a tick prices its transactions without reading fees.
 */
export type TickRequest = { golemId: string; observed?: ObservedGolem; record?: GolemRecord; fees?: TickFees }

export interface TickInvoker {
  /** Hands a batch of ticks over. Returns once they are handed over (Lambda) or done (local). */
  invoke(requests: readonly TickRequest[]): Promise<void>
}

export interface ShardDispatcher {
  /** Hands the minute's shard walks over. Returns once they are sent (SQS) or walked (local). */
  dispatch(walks: readonly ShardWalk[]): Promise<void>
}

export type DispatchResult = { shards: number; blockNumber: bigint; timestamp: bigint }

/** The dispatcher's whole job: one head read, then one walk per shard of the due list. */
export async function dispatchHeartbeat(deps: {
  client: PublicClient
  shards: number
  dispatcher: ShardDispatcher
  wallClock?: () => number
}): Promise<DispatchResult> {
  // Chain time is the clock: an accelerated local life and a real chain behave the same way. The priority
  // fee is read here once for every shard (with the block, at once), not once per walk; a failed read
  // leaves it to each walk.
  const [block, maxPriorityFeePerGas] = await Promise.all([
    deps.client.getBlock({ blockTag: 'latest' }),
    deps.client.estimateMaxPriorityFeePerGas().catch(() => null),
  ])
  const dispatchedAt = (deps.wallClock ?? Date.now)()
  const baseFeePerGas = block.baseFeePerGas ?? undefined
  const walks = Array.from({ length: deps.shards }, (_, shard) => ({
    shard,
    blockNumber: block.number,
    timestamp: block.timestamp,
    ...(baseFeePerGas === undefined ? {} : { baseFeePerGas }),
    ...(baseFeePerGas === undefined || maxPriorityFeePerGas === null ? {} : { maxPriorityFeePerGas }),
    dispatchedAt,
  }))
  await deps.dispatcher.dispatch(walks)
  return { shards: deps.shards, blockNumber: block.number, timestamp: block.timestamp }
}

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
  shards: number
  blockNumber: bigint
  timestamp: bigint
}

/** One whole heartbeat in this process (`npm start`, tests, benches): the dispatcher and every walker. */
export async function runHeartbeat(deps: HeartbeatDeps): Promise<HeartbeatResult> {
  const walker = new LocalShardDispatcher((walk) => walkShard(deps, walk), { concurrency: deps.shardConcurrency ?? 4 })
  const dispatched = await dispatchHeartbeat({ client: deps.client, shards: deps.store.dueShards, dispatcher: walker })
  const sum = (f: (w: WalkResult) => number) => walker.results.reduce((a, w) => a + f(w), 0)
  return {
    due: sum((w) => w.due),
    invoked: sum((w) => w.invoked),
    skipped: sum((w) => w.skipped),
    notDue: sum((w) => w.notDue),
    shards: dispatched.shards,
    blockNumber: dispatched.blockNumber,
    timestamp: dispatched.timestamp,
  }
}
