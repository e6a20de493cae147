// Spawning Replicants through the action path in a suite's own devnet: what spawning needs (the memory
// key issuer over the suite's signer resolver, the operator, the local price feeds) and one call that
// asks custody to spawn, as a Golem's runtime would.
import type { PublicClient } from 'viem'
import { serialSender } from '../../adapters/chain/serialSender.ts'
import { MemoryKeyIssuer } from '../../adapters/signers/memorySignerResolver.ts'
import { executeAction, type ActionOutcome, type ExecuteActionDeps } from '../../app/actions/executeAction.ts'
import type { ReplicantSpawning } from '../../app/actions/spawnReplicant.ts'
import type { SpawnReplicantRequest } from '../../core/actions/index.ts'
import { localUsdCaps } from '../../local/provision.ts'
import type { HeartbeatEnv } from './harness.ts'

/**
 * The devnet's price feeds never update, so a suite that moves chain time by days needs a Replicant's
 * budget to accept old prices: 400 days, as long as any suite runs.
 */
export const DEVNET_MAX_PRICE_AGE = 400 * 86_400

type SpawningOptions = { gasBootstrap?: bigint; maxPriceAge?: number }

/** Spawning's dependencies on the suite's devnet: keys held in `env.signers`, the operator's account, the local feeds. */
export function replicantSpawning(env: HeartbeatEnv, options: SpawningOptions = {}): ReplicantSpawning {
  const client = env.client as PublicClient
  return {
    keys: new MemoryKeyIssuer(env.signers, env.devnet.deployment),
    operator: serialSender(client, env.devnet.operator, (hash) => new Error(`operator transaction ${hash} reverted`)),
    usdCaps: () => localUsdCaps(client, env.devnet.deployment.assets, { maxPriceAge: options.maxPriceAge ?? DEVNET_MAX_PRICE_AGE }),
    ...(options.gasBootstrap === undefined ? {} : { gasBootstrap: options.gasBootstrap }),
  }
}

/** The action path's dependencies with spawning, for one invocation id. */
export function spawningDeps(env: HeartbeatEnv, invocationId = 'spawn', options: SpawningOptions = {}): ExecuteActionDeps {
  return {
    store: env.store,
    client: env.client,
    deployment: env.devnet.deployment,
    signers: env.signers,
    invocationId,
    replicants: replicantSpawning(env, options),
  }
}

/**
 * Asks custody, through the action path, to spawn a Replicant of `golemId` under `requestId` (the same
 * id again answers with the same Replicant). `request` holds the optional terms (daily runway, lifespan,
 * budget, calls); default 2 USDC a day until the parent's deadline. Bad input throws ActionRequestError.
 */
export function spawnReplicantThroughActions(
  env: HeartbeatEnv,
  p: { golemId: string; requestId: string; request?: Omit<SpawnReplicantRequest, 'kind'> } & SpawningOptions,
): Promise<ActionOutcome> {
  const { golemId: _g, requestId: _r, request: _q, ...options } = p
  return executeAction(spawningDeps(env, `spawn-${p.requestId}`, options), {
    golemId: p.golemId,
    requestId: p.requestId,
    actions: [{ kind: 'spawnReplicant', ...p.request }],
  })
}
