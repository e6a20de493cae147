// AWS Lambda entry: one or a few Golems' ticks, invoked asynchronously by the heartbeat.
import { decodeTickPayload } from '../shared/tickPayload.ts'
import { loadFunctionConfig, type FunctionConfig } from '../shared/config.ts'
import { KmsSignerResolver } from '../../adapters/signers/kmsSignerResolver.ts'
import { runTick } from './runTick.ts'
import { selfExtensionFromEnv } from './selfExtensionConfig.ts'
import type { TickResult } from './types.ts'

let config: FunctionConfig | undefined
let signers: KmsSignerResolver | undefined

export async function handler(event: unknown, context?: { awsRequestId?: string }): Promise<TickResult[]> {
  config ??= loadFunctionConfig()
  signers ??= new KmsSignerResolver(config.deployment)
  const selfExtension = selfExtensionFromEnv(process.env, config.runtimeCostPerHour)
  const requests = decodeTickPayload(typeof event === 'string' ? event : JSON.stringify(event))
  const results: TickResult[] = []
  for (const request of requests) {
    const result = await runTick(
      {
        store: config.store,
        client: config.client,
        deployment: config.deployment,
        signers,
        operator: config.operator(),
        invocationId: context?.awsRequestId ?? `tick-${Date.now()}`,
        credits: { runtimeCostPerHour: config.runtimeCostPerHour },
        ...(selfExtension ? { selfExtension } : {}),
      },
      request,
    )
    results.push(result)
    // One structured line per tick (no key material): CloudWatch metric filters count outcomes.
    process.stdout.write(
      `${JSON.stringify({ golemId: result.golemId, outcome: result.outcome, redemption: result.redemption?.status, selfExtension: result.selfExtension?.status, health: result.health })}\n`,
    )
  }
  return results
}
