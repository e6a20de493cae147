// AWS Lambda entry: one walk, delivered by SQS (one message per walk each minute, batch size one: a due
// shard that fills a page alone, or several small ones packed). Lists its shards' due Golems, reads them from the chain at the minute's block and invokes the
// tick function asynchronously (InvocationType Event) a few invocations at a time. A walk older than a
// minute is dropped: the heartbeat has sent a fresher one. A walk that fails is reported as the batch's
// failed item; SQS redelivers it only within the queue's one-minute retention, so it never runs late.
import { LambdaClient } from '@aws-sdk/client-lambda'
import { loadFunctionConfig, type WalkFunctionConfig } from '../shared/config.ts'
import { createTelemetry } from '../shared/metrics.ts'
import { decodeShardWalk } from '../../app/heartbeat/shardWalk.ts'
import { LambdaInvoker } from '../heartbeat/lambdaInvoker.ts'
import { walkShard } from '../../app/heartbeat/walk.ts'
import type { WalkResult } from '../../app/heartbeat/handOver.ts'
import { FunctionConfigError } from '../shared/configError.ts'
import { BardoError } from '../../core/errors.ts'
import { DEFAULT_ROTATION_POLICY } from '../../core/custody/rotation.ts'
import type { TickNeedParameters } from '../../core/lifecycle/tickNeed.ts'

/** The part of an SQS event the walker reads. */
export type SqsEvent = { Records?: { messageId: string; body: string }[] }
export type SqsBatchResponse = { batchItemFailures: { itemIdentifier: string }[] }

/** A walk this much older than its dispatch is stale: the next minute's walk replaces it. */
export const MAX_WALK_AGE_MS = 60_000

let config: WalkFunctionConfig | undefined
let invoker: LambdaInvoker | undefined

/**
 * What the deployed tick acts on, as the stack tells the walker: a tick every minute at the default
 * vitality, buying its Golems' runtime at the configured price when BARDO_TICK_SELF_EXTENSION is set, and
 * rotating keys at the default maximum age when BARDO_TICK_ROTATION is set (the tick's own environment
 * turns both on: an API URL parameter and a KMS alias prefix).
 */
export function tickNeedParametersFromEnv(env: NodeJS.ProcessEnv, runtimeCostPerHour: bigint): TickNeedParameters {
  const on = (name: string) => env[name] === '1'
  return {
    beatSeconds: 60n,
    ...(on('BARDO_TICK_SELF_EXTENSION') ? { selfExtension: { runtimeCostPerHour } } : {}),
    ...(on('BARDO_TICK_ROTATION') ? { rotationMaxAgeSeconds: DEFAULT_ROTATION_POLICY.maxAgeSeconds } : {}),
  }
}

export async function handler(event: SqsEvent, context?: { awsRequestId?: string }): Promise<SqsBatchResponse> {
  const telemetry = createTelemetry({ requestId: context?.awsRequestId ?? `walker-${Date.now()}`, functionName: 'walker' })
  const failures: { itemIdentifier: string }[] = []
  for (const message of event.Records ?? []) {
    try {
      config ??= loadFunctionConfig()
      const tick = process.env.BARDO_TICK_FUNCTION_NAME
      if (!tick) throw new FunctionConfigError('config: BARDO_TICK_FUNCTION_NAME must be set')
      invoker ??= new LambdaInvoker(new LambdaClient({}), tick)
      const walk = decodeShardWalk(message.body)
      const { dueShards } = config.store
      const outside = walk.shards.find((shard) => shard >= dueShards)
      if (outside !== undefined)
        throw new BardoError('WALK_SHARD_OUT_OF_RANGE', `walk: shard ${outside} must be below the store's ${dueShards} due shards`)
      if (Date.now() - walk.dispatchedAt > MAX_WALK_AGE_MS) {
        telemetry.log('warn', 'walk dropped', { shards: walk.shards, ageMs: Date.now() - walk.dispatchedAt })
        continue
      }
      const result = await walkShard(
        {
          store: config.store,
          client: config.client,
          deployment: config.deployment,
          invoker,
          tickNeed: tickNeedParametersFromEnv(process.env, config.runtimeCostPerHour),
        },
        walk,
      )
      logWalk(telemetry, result, walk.blockNumber)
      if (result.failed > 0) telemetry.put('WalkFailed', 1)
    } catch (error) {
      failures.push({ itemIdentifier: message.messageId })
      telemetry.put('WalkFailed', 1)
      telemetry.log('error', 'walk failed', {
        error: error instanceof Error ? `${error.name}: ${error.message.split('\n')[0]}` : String(error),
      })
    }
  }
  telemetry.flush()
  return { batchItemFailures: failures }
}

function logWalk(telemetry: ReturnType<typeof createTelemetry>, r: WalkResult, block: bigint): void {
  const { firstFailure, ...counts } = r
  telemetry.log(r.failed > 0 ? 'error' : 'info', 'walk', {
    ...counts,
    block,
    ...(firstFailure === undefined
      ? {}
      : { error: firstFailure instanceof Error ? `${firstFailure.name}: ${firstFailure.message.split('\n')[0]}` : String(firstFailure) }),
  })
}
