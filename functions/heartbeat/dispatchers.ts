// How the heartbeat hands the minute's shard walks over: in-process (local stack, tests), or as one SQS
// message per walk whose subscriber is the walker function (AWS). Both carry the same message, so the
// walker sees the same thing either way.
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs'
import { settleBounded } from '../shared/concurrency.ts'
import { decodeShardWalk, encodeShardWalk, type ShardWalk } from '../shared/shardWalk.ts'
import type { ShardDispatcher } from './heartbeat.ts'
import type { WalkResult } from './walk.ts'

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

/** SQS's limit of messages per SendMessageBatch. */
const SQS_BATCH = 10

export class ShardDispatchError extends Error {
  override readonly name = 'ShardDispatchError'
  constructor(readonly shards: readonly number[]) {
    super(`walks: shards ${shards.join(', ')} were not sent to the walker queue (they are walked again next minute)`)
  }
}

const entryId = (w: ShardWalk) => `shard-${w.shards[0]}`

/** One SQS message per walk, ten to a SendMessageBatch, the batches sent at once. */
export class SqsShardDispatcher implements ShardDispatcher {
  constructor(
    private readonly sqs: Pick<SQSClient, 'send'>,
    private readonly queueUrl: string,
  ) {}

  async dispatch(walks: readonly ShardWalk[]): Promise<void> {
    const batches: ShardWalk[][] = []
    for (let i = 0; i < walks.length; i += SQS_BATCH) batches.push(walks.slice(i, i + SQS_BATCH))
    const settled = await settleBounded(batches, batches.length || 1, async (batch) => {
      const out = await this.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          // A walk's first shard names it: each shard is in one walk.
          Entries: batch.map((w) => ({ Id: entryId(w), MessageBody: encodeShardWalk(w) })),
        }),
      )
      // A batch call succeeds as a whole even when some entries fail: those are named in `Failed`.
      return (out.Failed ?? []).flatMap((f) => batch.find((w) => entryId(w) === f.Id)?.shards ?? [])
    })
    const unsent = settled.flatMap((s, i) => (s.status === 'fulfilled' ? s.value : batches[i]!.flatMap((w) => w.shards)))
    if (unsent.length > 0) throw new ShardDispatchError(unsent.sort((a, b) => a - b))
  }
}
