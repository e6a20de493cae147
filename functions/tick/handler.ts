// AWS Lambda entry: one or a few Golems' ticks, invoked asynchronously by the heartbeat. Every tick's
// outcome is a structured log line and its metrics an EMF line, both with the request id; a tick that
// throws is counted and rethrown, so Lambda retries the event (the slots make the retry reconcile).
import { decodeTickPayload } from '../shared/tickPayload.ts'
import { loadTickFunctionConfig as loadFunctionConfig, type TickFunctionConfig as FunctionConfig } from '../shared/config.ts'
import { createTelemetry, putTickFailure, putTickMetrics } from '../shared/metrics.ts'
import { KmsSignerResolver } from '../../adapters/signers/kmsSignerResolver.ts'
import { KmsKeyRotation } from './kmsRotation.ts'
import { runTick } from './runTick.ts'
import { apiUrlFromEnv } from './apiUrl.ts'
import { selfExtensionFor } from './selfExtensionConfig.ts'
import type { SelfExtensionConfig } from './selfExtend.ts'
import { resolvePaymentTerms } from '../shared/paymentTerms.ts'
import { VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import type { TickResult } from './types.ts'

let config: FunctionConfig | undefined
let signers: KmsSignerResolver | undefined
// Resolved once per cold start (the API's URL and one read of the operator's address at most), and
// again later while the API's URL parameter is not written yet or the resolution failed.
let selfExtension: { config: Promise<SelfExtensionConfig | undefined>; retryAt: number } | undefined
const PARAMETER_RETRY_MS = 300_000
let rotation: KmsKeyRotation | null | undefined

/**
 * Rotation with keys created in KMS under the stage's alias prefix (BARDO_KMS_ALIAS_PREFIX); none when
 * the function has no prefix (a tick run outside the stack).
 */
function keyRotation(config: FunctionConfig, env: NodeJS.ProcessEnv): KmsKeyRotation | null {
  const aliasPrefix = env.BARDO_KMS_ALIAS_PREFIX?.trim()
  if (!aliasPrefix) return null
  return new KmsKeyRotation({ deployment: config.deployment, client: config.client, store: config.store, aliasPrefix })
}

export async function handler(event: unknown, context?: { awsRequestId?: string }): Promise<TickResult[]> {
  const invocationId = context?.awsRequestId ?? `tick-${Date.now()}`
  const telemetry = createTelemetry({ requestId: invocationId, functionName: 'tick' })
  const results: TickResult[] = []
  let golemId: string | undefined
  try {
    config ??= loadFunctionConfig()
    signers ??= new KmsSignerResolver(config.deployment)
    if (rotation === undefined) rotation = keyRotation(config, process.env)
    const extension = await deployedSelfExtension(config)
    const requests = decodeTickPayload(typeof event === 'string' ? event : JSON.stringify(event))
    for (const request of requests) {
      golemId = request.golemId
      const result = await runTick(
        {
          store: config.store,
          client: config.client,
          deployment: config.deployment,
          signers,
          ...(rotation ? { rotation } : {}),
          operator: config.operator(),
          invocationId,
          credits: { runtimeCostPerHour: config.runtimeCostPerHour },
          ...(extension ? { selfExtension: extension } : {}),
        },
        request,
      )
      results.push(result)
      putTickMetrics(telemetry, result)
      // No key material: ids, outcomes and transaction hashes only.
      telemetry.log('info', 'tick', {
        golemId: result.golemId,
        outcome: result.outcome,
        redemption: result.redemption?.status,
        selfExtension: result.selfExtension?.status,
        txHash: result.redemption?.txHash ?? undefined,
        health: result.health,
        rotated: result.rotated ? { from: result.rotated.from, to: result.rotated.to } : undefined,
      })
    }
    telemetry.flush()
    return results
  } catch (error) {
    putTickFailure(telemetry, error)
    telemetry.log('error', 'tick failed', {
      golemId,
      error: error instanceof Error ? `${error.name}: ${error.message.split('\n')[0]}` : String(error),
    })
    telemetry.flush({ golemId })
    throw error
  }
}

async function deployedSelfExtension(loaded: FunctionConfig): Promise<SelfExtensionConfig | undefined> {
  if (selfExtension === undefined || selfExtension.retryAt < Date.now())
    selfExtension = {
      config: apiUrlFromEnv(process.env).then((apiUrl) =>
        selfExtensionFor(apiUrl, loaded.runtimeCostPerHour, () =>
          resolvePaymentTerms(
            process.env,
            loaded.chainId,
            () => loaded.client.readContract({ address: loaded.deployment.vitalityOracle, abi: VitalityOracleAbi, functionName: 'owner' }),
            { usdcFallback: loaded.deployment.assets?.usdc },
          ),
        ),
      ),
      retryAt: Number.POSITIVE_INFINITY,
    }
  const current = selfExtension
  const extension = await current.config.catch((error: unknown) => {
    current.retryAt = 0
    throw error
  })
  if (extension === undefined && process.env.BARDO_API_URL_PARAMETER)
    current.retryAt = Math.min(current.retryAt, Date.now() + PARAMETER_RETRY_MS)
  return extension
}
