// One walk: page through the due entries of its shards, read the records of a page in one batch, keep
// those the record says are due, read them from the chain in one multicall at the minute's block, and
// hand the ticks over a few invocations at a time, each with its observation and its record. The due
// Golems of a walk's small shards share a multicall: they are read once a page's worth has gathered, or
// at the end of the walk; a shard with more pages to come is read page by page.
import type { WalkChainActions } from '../../adapters/chain/walkChainClient.ts'
import type { BardoDeployment } from '../../core/deployment.ts'
import type { TickFees } from '../../core/fees.ts'
import { readRequestOf } from '../../core/lifecycle/observation.ts'
import { tickNeed, type TickNeedParameters } from '../../core/lifecycle/tickNeed.ts'
import { parseGolemProfile, type GolemProfile } from '../../core/lifecycle/profile.ts'
import type { GolemRecord, Store } from '../../core/store/index.ts'
import { readGolems } from '../../adapters/chain/readGolems.ts'
import { settleBounded } from '../concurrency.ts'
import type { ShardWalk } from './shardWalk.ts'
import type { TickInvoker, TickRequest, WalkResult } from './handOver.ts'

/** Golems per store page and per multicall (200: ~76 KB of calldata, inside providers' eth_call limits). */
export const DEFAULT_PAGE_SIZE = 200

export type WalkDeps = {
  store: Store
  client: WalkChainActions
  deployment: BardoDeployment
  invoker: TickInvoker
  /** Golems per store page and per multicall (DEFAULT_PAGE_SIZE). */
  pageSize?: number
  /** Golems per tick invocation. */
  batchSize?: number
  /** Invocations in flight at once: a page's 20 hand-overs take a few round trips, not 20. */
  handOverConcurrency?: number
  /** The page's chain read (the one multicall); readGolems unless a test stands in for the chain. */
  chainReader?: typeof readGolems
  /** Told after each listed page is handled (tests and benches time the walk with it). */
  onPage?: (page: { shard: number; index: number; listed: number; handedOver: number }) => void
  /**
   * What the ticks are configured with, for deciding which Golems need one (core/lifecycle/tickNeed.ts);
   * else the invoker's (a local invoker knows its ticks), else a plain tick every minute.
   */
  tickNeed?: TickNeedParameters
}

/** A tick every minute, no self-extension, no rotation, the default vitality. */
export const PLAIN_TICKS: TickNeedParameters = { beatSeconds: 60n }

/** Golems handed over in one tick invocation, unless the walk is told otherwise. */
export const WALK_BATCH_SIZE = 10

export async function walkShard(deps: WalkDeps, walk: ShardWalk): Promise<WalkResult> {
  const nowMs = Number(walk.timestamp) * 1000
  const pageSize = deps.pageSize ?? DEFAULT_PAGE_SIZE
  const batchSize = deps.batchSize ?? WALK_BATCH_SIZE
  const handOver = deps.handOverConcurrency ?? 8
  const result: WalkResult = {
    shards: walk.shards,
    pages: 0,
    reads: 0,
    listed: 0,
    due: 0,
    invoked: 0,
    skipped: 0,
    notDue: 0,
    idle: 0,
    failed: 0,
  }
  const parameters = deps.tickNeed ?? deps.invoker.tickNeedParameters?.() ?? PLAIN_TICKS
  let fees: Promise<TickFees | undefined> | undefined
  const pending: Due[] = []
  /** Reads `due` from the chain in one multicall and hands its ticks over. */
  const tick = async (due: Due[]) => {
    result.reads++
    const batch = await (deps.chainReader ?? readGolems)(
      deps.client,
      deps.deployment,
      due.map((g) => readRequestOf(g.record.golemId, g.profile)),
      { number: walk.blockNumber, timestamp: walk.timestamp },
    )
    // Only a Golem with something to do is handed over: an idle one costs no invocation and no write.
    const dueOf = new Map(due.map((g) => [g.record.golemId, g]))
    const needed = batch.golems.flatMap((g) => {
      const observed = { ...g, timestamp: batch.timestamp }
      const { record, profile } = dueOf.get(g.golemId)!
      const reason = tickNeed({ golemId: g.golemId, record, profile, read: observed, parameters })
      return reason === null ? [] : [{ golemId: g.golemId, observed, record, profile }]
    })
    result.idle += batch.golems.length - needed.length
    if (needed.length === 0) return
    // Read once per walk, and only when a tick is handed over: a walk with nothing to hand over pays nothing for it.
    fees ??= feesAt(deps.client, walk)
    const tickFees = await fees
    // The record and the profile parsed from it travel together: the tick parses nothing the walker has.
    const requests: TickRequest[] = needed.map((g) => ({ ...g, ...(tickFees ? { fees: tickFees } : {}) }))
    const slices: TickRequest[][] = []
    for (let i = 0; i < requests.length; i += batchSize) slices.push(requests.slice(i, i + batchSize))
    const settled = await settleBounded(slices, handOver, (slice) => deps.invoker.invoke(slice))
    for (const [i, s] of settled.entries()) {
      if (s.status === 'fulfilled') result.invoked += slices[i]!.length
      else {
        result.failed += slices[i]!.length
        result.firstFailure ??= s.reason
      }
    }
  }
  for (const shard of walk.shards) {
    let cursor: string | null = null
    // The heartbeat listed this shard's first page at the walk's time: it is not listed twice a minute.
    let given = walk.firstPages?.find((p) => p.shard === shard)
    do {
      const page: { golems: { golemId: string }[]; cursor: string | null } = given
        ? { golems: given.golemIds.map((golemId) => ({ golemId })), cursor: given.cursor }
        : await deps.store.listDueGolems({ now: nowMs, limit: pageSize, cursor, shard })
      given = undefined
      cursor = page.cursor
      result.listed += page.golems.length
      const records = page.golems.length === 0 ? [] : await deps.store.getGolems(page.golems.map((g) => g.golemId))
      let notDue = 0
      let due = 0
      for (const record of records) {
        // The record decides: its entry only says "not before".
        if (record.nextTickAt > nowMs && record.status !== 'dead') {
          notDue++
          continue
        }
        // A Golem the heartbeat anomaly halted is observed too: it is handed over for its death only
        // (core/lifecycle/haltedDeath.ts, through tickNeed).
        const profile = record.status === 'dead' || record.profile === null ? null : readableProfile(record.profile)
        if (profile) {
          pending.push({ record, profile })
          due++
        }
      }
      // A listed Golem without a record (its entry written, its record never) counts as skipped too.
      result.notDue += notDue
      result.skipped += page.golems.length - notDue - due
      result.due += due
      // Never more than a page in one multicall; a shard with more pages to come is read page by page.
      while (pending.length >= pageSize) await tick(pending.splice(0, pageSize))
      if (cursor !== null && pending.length > 0) await tick(pending.splice(0))
      deps.onPage?.({ shard, index: result.pages, listed: page.golems.length, handedOver: due })
      result.pages++
    } while (cursor !== null)
  }
  if (pending.length > 0) await tick(pending.splice(0))
  // Its Golems were all observed and every one with work handed over: the walk is what says the heartbeat
  // of an idle Golem (not ticked, nothing of its own written) is alive. One write a walk.
  if (result.failed === 0) await deps.store.recordShardWalks({ shards: walk.shards, at: nowMs })
  return result
}

type Due = { record: GolemRecord; profile: GolemProfile }

function readableProfile(profile: string): GolemProfile | null {
  try {
    return parseGolemProfile(profile)
  } catch {
    return null
  }
}

/**
 * The minute's block's base fee and the node's priority fee, as the heartbeat read them for every shard, or
 * read here when its read failed. None on a chain without EIP-1559, or when the fee read fails: the ticks
 * then read their own, so a failed fee read never stops a walk.
 */
async function feesAt(
  client: Pick<WalkChainActions, 'estimateMaxPriorityFeePerGas'>,
  walk: Pick<ShardWalk, 'baseFeePerGas' | 'maxPriorityFeePerGas'>,
): Promise<TickFees | undefined> {
  const { baseFeePerGas } = walk
  if (baseFeePerGas === undefined) return undefined
  if (walk.maxPriorityFeePerGas !== undefined) return { baseFeePerGas, maxPriorityFeePerGas: walk.maxPriorityFeePerGas }
  const maxPriorityFeePerGas = await client.estimateMaxPriorityFeePerGas().catch(() => null)
  return maxPriorityFeePerGas === null ? undefined : { baseFeePerGas, maxPriorityFeePerGas }
}
