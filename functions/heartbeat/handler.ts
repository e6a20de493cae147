// AWS Lambda entry: the 1-minute EventBridge cron. Reads the chain head once, lists the first page of each
// due shard, and sends one message per walk to the walker queue (SQS; functions/walker/handler.ts walks
// each in its own invocation: a shard that fills a page alone, smaller ones packed together), then
// publishes the indexer's lag behind the chain.
import { SQSClient } from '@aws-sdk/client-sqs'
import { loadFunctionConfig, type WalkFunctionConfig } from '../shared/config.ts'
import { createTelemetry } from '../shared/metrics.ts'
import { dispatchHeartbeat, type DispatchResult } from '../../app/heartbeat/heartbeat.ts'
import { readIndexerLag } from './indexerLag.ts'
import { SqsShardDispatcher } from './sqsDispatcher.ts'
import { FunctionConfigError } from '../shared/configError.ts'

let config: WalkFunctionConfig | undefined
let dispatcher: SqsShardDispatcher | undefined

export async function handler(_event?: unknown, context?: { awsRequestId?: string }): Promise<DispatchResult> {
  const telemetry = createTelemetry({ requestId: context?.awsRequestId ?? `heartbeat-${Date.now()}`, functionName: 'heartbeat' })
  try {
    config ??= loadFunctionConfig()
    const queueUrl = process.env.BARDO_WALK_QUEUE_URL
    if (!queueUrl) throw new FunctionConfigError('config: BARDO_WALK_QUEUE_URL must be set (the shard walkers queue)')
    dispatcher ??= new SqsShardDispatcher(new SQSClient({}), queueUrl)
    const result = await dispatchHeartbeat({ client: config.client, store: config.store, shards: config.store.dueShards, dispatcher })
    const indexerUrl = process.env.BARDO_INDEXER_URL
    if (indexerUrl) {
      const lag = await readIndexerLag({ indexerUrl, chainId: config.chainId, head: result.blockNumber })
      if (lag !== null) telemetry.put('IndexerLagBlocks', Number(lag))
    }
    telemetry.log('info', 'heartbeat', { shards: result.shards, walks: result.walks, block: result.blockNumber })
    telemetry.flush()
    return result
  } catch (error) {
    telemetry.log('error', 'heartbeat failed', { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) })
    throw error
  }
}
