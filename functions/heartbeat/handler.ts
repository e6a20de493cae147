// AWS Lambda entry: the 1-minute EventBridge cron. Lists due Golems and invokes the tick function
// asynchronously (InvocationType Event) in batches, then publishes the indexer's lag behind the chain.
import { LambdaClient } from '@aws-sdk/client-lambda'
import { loadFunctionConfig, type FunctionConfig } from '../shared/config.ts'
import { createTelemetry } from '../shared/metrics.ts'
import { runHeartbeat, type HeartbeatResult } from './heartbeat.ts'
import { readIndexerLag } from './indexerLag.ts'
import { LambdaInvoker } from './invokers.ts'

let config: FunctionConfig | undefined
let invoker: LambdaInvoker | undefined

export async function handler(_event?: unknown, context?: { awsRequestId?: string }): Promise<HeartbeatResult> {
  const telemetry = createTelemetry({ requestId: context?.awsRequestId ?? `heartbeat-${Date.now()}`, functionName: 'heartbeat' })
  try {
    config ??= loadFunctionConfig()
    const tick = process.env.BARDO_TICK_FUNCTION_NAME
    if (!tick) throw new Error('config: BARDO_TICK_FUNCTION_NAME must be set')
    invoker ??= new LambdaInvoker(new LambdaClient({}), tick)
    const result = await runHeartbeat({ store: config.store, client: config.client, deployment: config.deployment, invoker })
    const indexerUrl = process.env.BARDO_INDEXER_URL
    if (indexerUrl) {
      const lag = await readIndexerLag({ indexerUrl, chainId: config.chainId, head: result.blockNumber })
      if (lag !== null) telemetry.put('IndexerLagBlocks', Number(lag))
    }
    telemetry.log('info', 'heartbeat', { due: result.due, invoked: result.invoked, skipped: result.skipped, block: result.blockNumber })
    telemetry.flush()
    return result
  } catch (error) {
    telemetry.log('error', 'heartbeat failed', { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) })
    throw error
  }
}
