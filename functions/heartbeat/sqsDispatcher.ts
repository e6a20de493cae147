// The deployed heartbeat's hand-over of the minute's shard walks: one SQS message per walk, whose
// subscriber is the walker function; the same message the local dispatcher walks in process.
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs'
import { settleBounded } from '../../app/concurrency.ts'
import type { ShardDispatcher } from '../../app/heartbeat/handOver.ts'
import { encodeShardWalk, type ShardWalk } from '../../app/heartbeat/shardWalk.ts'

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
