// Serves the HTTP API on 127.0.0.1 for the local stack: the same Hono app as on Lambda, wired to the
// chain, the store and the indexer. x402 payments settle in the chain's USDC (TestUSDC on the devnet),
// paid to the operator and submitted by the settlement account.
import { hashApiKey } from '../core/ratelimit/tiers.ts'
import type { Store } from '../core/store/index.ts'
import type { Clock } from '../functions/api/deps.ts'
import { createLocalApi, type LocalApiOptions } from '../functions/api/local.ts'
import { serveApi } from '../functions/api/server.ts'
import type { StackChain } from './chain.ts'
import { LOCAL_READ_LIMIT } from './readKey.ts'
import type { SignerResolver } from '../core/custody/signerResolver.ts'

export type LocalApi = { url: string; stop(): Promise<void> }

export type StartLocalApiParams = {
  chain: StackChain
  store: Store
  indexerUrl: string | undefined
  port: number | undefined
  /** The dashboards' read key (local/readKey.ts); the API holds only its hash. */
  readApiKey?: string
  /** The rate limiter's clock (tests); the wall clock by default. */
  clock?: Clock
  /** The Golems' signers: the API then serves the action path for the Golems' runtimes. */
  signers?: SignerResolver
  /** Onboarding through the owner's wallet (local/onboarding.ts). */
  onboarding?: LocalApiOptions['onboarding']
  /** Spawning Replicants through the action path (local/replicants.ts); it needs `signers` too. */
  replicants?: LocalApiOptions['replicants']
}

export async function startLocalApi(p: StartLocalApiParams): Promise<LocalApi> {
  const app = createLocalApi({
    store: p.store,
    publicClient: p.chain.publicClient,
    deployment: p.chain.deployment,
    asset: p.chain.usdc,
    operator: p.chain.operator.address,
    settlement: p.chain.settlement,
    indexerUrl: p.indexerUrl,
    ...(p.readApiKey === undefined
      ? {}
      : { config: { readApiKeyHashes: [hashApiKey(p.readApiKey)], rateLimits: { read: LOCAL_READ_LIMIT } } }),
    ...(p.clock === undefined ? {} : { clock: p.clock }),
    ...(p.signers === undefined ? {} : { signers: p.signers }),
    ...(p.onboarding === undefined ? {} : { onboarding: p.onboarding }),
    ...(p.replicants === undefined ? {} : { replicants: p.replicants }),
  })
  const running = await serveApi(app, p.port ?? 0)
  return { url: running.url, stop: running.close }
}
