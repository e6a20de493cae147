// AWS Lambda entry: the 1-minute EventBridge cron. Lists due Golems and invokes the tick function
// asynchronously (InvocationType Event) in batches.
import { LambdaClient } from '@aws-sdk/client-lambda'
import { loadFunctionConfig, type FunctionConfig } from '../shared/config.ts'
import { runHeartbeat, type HeartbeatResult } from './heartbeat.ts'
import { LambdaInvoker } from './invokers.ts'

let config: FunctionConfig | undefined
let invoker: LambdaInvoker | undefined

export async function handler(): Promise<HeartbeatResult> {
  config ??= loadFunctionConfig()
  const tick = process.env.BARDO_TICK_FUNCTION_NAME
  if (!tick) throw new Error('config: BARDO_TICK_FUNCTION_NAME must be set')
  invoker ??= new LambdaInvoker(new LambdaClient({}), tick)
  const result = await runHeartbeat({ store: config.store, client: config.client, deployment: config.deployment, invoker })
  process.stdout.write(
    `${JSON.stringify({ heartbeat: { due: result.due, invoked: result.invoked, block: result.blockNumber.toString() } })}\n`,
  )
  return result
}
