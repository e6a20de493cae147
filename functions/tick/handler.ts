// AWS Lambda entry: a few Golems' ticks, invoked asynchronously by a shard walker, run a few at a time.
// Every tick's outcome is a structured log line and its metrics an EMF line, both with the request id; a
// tick that throws is counted, the others finish, and the invocation then throws, so Lambda retries the
// event (the slots make the retry reconcile; the lease makes the Golems that ticked answer busy).
import { decodeTickPayload } from '../../app/heartbeat/tickPayload.ts'
import {
  loadMaxFailedTicks,
  loadTickFunctionConfig as loadFunctionConfig,
  loadTickPrivySettings,
  type TickFunctionConfig as FunctionConfig,
} from '../shared/config.ts'
import { createTelemetry, putTickFailure, putTickMetrics } from '../shared/metrics.ts'
import { KmsSignerResolver } from '../../adapters/signers/kmsSignerResolver.ts'
import { privySigners } from '../../adapters/signers/privySignerResolver.ts'
import { SignersByKind } from '../../adapters/signers/signersByKind.ts'
import { KmsKeyRotation } from '../../adapters/signers/kmsRotation.ts'
import { runTick } from '../../app/tick/runTick.ts'
import { apiUrlFromEnv } from './apiUrl.ts'
import { selfExtensionFor } from '../../app/tick/selfExtensionConfig.ts'
import type { SelfExtensionConfig } from '../../app/tick/types.ts'
import { resolvePaymentTerms } from '../../app/paymentTerms.ts'
import { VitalityOracleTickAbi } from '../../adapters/chain/oracleAbi.ts'
import type { TickDeps, TickResult } from '../../app/tick/types.ts'
import type { TickRequest } from '../../app/heartbeat/handOver.ts'
import { settleBounded } from '../../app/concurrency.ts'
import type { Address } from 'viem'
import type { CreditOptions } from '../../core/lifecycle/applyPaymentCredit.ts'
import { confirmationDepth } from '../../core/finality.ts'
import { chainCreditStanding } from '../../adapters/x402/creditStanding.ts'

let config: FunctionConfig | undefined
let signers: SignersByKind | undefined
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

/**
 * The keys a deployed tick holds: KMS keys always, Privy wallets when the stack has the Privy app's id and
 * its PrivyAppSecret is set (docs/deploy.md); memory and keystore keys live on other machines.
 */
export function deployedSigners(config: Pick<FunctionConfig, 'deployment'>, env: NodeJS.ProcessEnv): SignersByKind {
  const privy = privySigners(config.deployment, loadTickPrivySettings(env))
  return new SignersByKind(
    { kms: new KmsSignerResolver(config.deployment), ...privy.resolvers },
    {
      memory: 'its key is in the memory of a local stack: that stack ticks it',
      keystore: 'its key is a keystore file: `bardo run` ticks it where the file is',
      ...privy.missing,
    },
  )
}

/** Golems of one invocation ticked at once: their chain and store round trips overlap instead of queueing. */
export const TICK_CONCURRENCY = 5

export class TickBatchError extends Error {
  override readonly name = 'TickBatchError'
  constructor(
    readonly failed: readonly string[],
    readonly ticked: number,
  ) {
    super(`tick: ${failed.length} of ${failed.length + ticked} Golems failed (${failed.join(', ')}); the event is retried`)
  }
}

export async function handler(event: unknown, context?: { awsRequestId?: string }): Promise<TickResult[]> {
  const invocationId = context?.awsRequestId ?? `tick-${Date.now()}`
  const telemetry = createTelemetry({ requestId: invocationId, functionName: 'tick' })
  let requests: TickRequest[]
  let deps: TickDeps
  try {
    config ??= loadFunctionConfig()
    signers ??= deployedSigners(config, process.env)
    if (rotation === undefined) rotation = keyRotation(config, process.env)
    const extension = await deployedSelfExtension(config)
    requests = decodeTickPayload(typeof event === 'string' ? event : JSON.stringify(event))
    deps = {
      store: config.store,
      client: config.client,
      deployment: config.deployment,
      signers,
      ...(rotation ? { rotation } : {}),
      operator: config.operator(),
      invocationId,
      credits: { runtimeCostPerHour: config.runtimeCostPerHour, ...creditStanding(config, extension?.payments.asset) },
      maxConsecutiveFailures: loadMaxFailedTicks(process.env),
      ...(extension ? { selfExtension: extension } : {}),
    }
  } catch (error) {
    fail(telemetry, error, undefined)
    telemetry.flush()
    throw error
  }
  // Each Golem's tick is its own: one that throws is logged and counted, and the others' results stand.
  const settled = await settleBounded(requests, TICK_CONCURRENCY, (request) => runTick(deps, request))
  const results: TickResult[] = []
  const failed: string[] = []
  for (const [i, s] of settled.entries()) {
    if (s.status === 'rejected') {
      failed.push(requests[i]!.golemId)
      fail(telemetry, s.reason, requests[i]!.golemId)
      continue
    }
    const result = s.value
    results.push(result)
    putTickMetrics(telemetry, result)
    // No key material: ids, outcomes and transaction hashes only.
    telemetry.log('info', 'tick', {
      golemId: result.golemId,
      outcome: result.outcome,
      redemption: result.redemption?.status,
      // Why nothing was redeemed (e.g. 'staggered', with the chain time the runway is redeemed at).
      redemptionReason: result.redemption?.reason,
      redeemAt: result.redemption?.redeemAt,
      selfExtension: result.selfExtension?.status,
      // Wind-down: positions closed so far, and how many this tick could not close.
      windDown: result.windDown ? { settled: result.windDown.settled, leftOpen: result.windDown.leftOpen.length } : undefined,
      txHash: result.redemption?.txHash ?? undefined,
      health: result.health,
      rotated: result.rotated ? { from: result.rotated.from, to: result.rotated.to } : undefined,
    })
  }
  telemetry.flush(failed.length > 0 ? { golemId: failed[0] } : {})
  // Thrown so Lambda retries the event soon: the Golems that ticked find their record moved on (the copy in
  // the payload is stale, so the lease refuses it) and answer busy at the cost of one read; the failed ones
  // run again, reconciling from their slots.
  if (failed.length > 0) throw new TickBatchError(failed, results.length)
  return results
}

function fail(telemetry: ReturnType<typeof createTelemetry>, error: unknown, golemId: string | undefined): void {
  putTickFailure(telemetry, error)
  telemetry.log('error', 'tick failed', {
    golemId,
    error: error instanceof Error ? `${error.name}: ${error.message.split('\n')[0]}` : String(error),
  })
}

/**
 * Where the chain's confirmation depth is above one block (Base: 30), the tick advances the Golems'
 * confirming x402 credits (app/tick/runTick.ts advanceCredits) with the payment asset's token. The tick's
 * client reads no logs, so a settlement another transaction carried (the payer's authorization used
 * elsewhere) stays confirming here until the API judges it on the payer's retry.
 */
function creditStanding(loaded: FunctionConfig, asset: Address | undefined): { standing?: CreditOptions['standing'] } {
  const depth = confirmationDepth(loaded.chainId)
  const token = asset ?? loaded.deployment.assets?.usdc
  if (depth <= 1 || token === undefined) return {}
  return { standing: chainCreditStanding({ client: loaded.client, asset: token, depth, findSettlement: async () => null }) }
}

async function deployedSelfExtension(loaded: FunctionConfig): Promise<SelfExtensionConfig | undefined> {
  if (selfExtension === undefined || selfExtension.retryAt < Date.now())
    selfExtension = {
      config: apiUrlFromEnv(process.env).then((apiUrl) =>
        selfExtensionFor(apiUrl, loaded.runtimeCostPerHour, () =>
          resolvePaymentTerms(
            process.env,
            loaded.chainId,
            () =>
              loaded.client.readContract({ address: loaded.deployment.vitalityOracle, abi: VitalityOracleTickAbi, functionName: 'owner' }),
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
