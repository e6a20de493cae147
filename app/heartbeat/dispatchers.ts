// The minute's shard walks walked in this process (local stack, tests), through the same message the
// deployed heartbeat sends the walker over SQS (functions/heartbeat/sqsDispatcher.ts), so a walk sees the
// same thing either way.
import { settleBounded } from '../concurrency.ts'
import { decodeShardWalk, encodeShardWalk, type ShardWalk } from './shardWalk.ts'
import type { ShardDispatcher, WalkResult } from './handOver.ts'

/** Walks the shards in this process, a few at a time; rethrows the first failed walk once all are done. */
export class LocalShardDispatcher implements ShardDispatcher {
  readonly results: WalkResult[] = []
  constructor(
    private readonly walk: (walk: ShardWalk) => Promise<WalkResult>,
    private readonly options: { concurrency?: number } = {},
  ) {}

  async dispatch(walks: readonly ShardWalk[]): Promise<void> {
    // Round-trip through the wire format so local runs exercise exactly what the walker receives.
    const decoded = walks.map((w) => decodeShardWalk(encodeShardWalk(w)))
    const settled = await settleBounded(decoded, this.options.concurrency ?? 4, (w) => this.walk(w))
    for (const s of settled) if (s.status === 'fulfilled') this.results.push(s.value)
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected')
    if (failed) throw failed.reason
  }
}
