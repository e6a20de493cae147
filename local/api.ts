// Serves the HTTP API on 127.0.0.1 for the local stack: the same Hono app as on Lambda, wired to the
// devnet, the dynalite store and the local indexer. x402 payments settle on the devnet's TestUSDC, paid
// to the operator and submitted by a separate settlement account (anvil account 2).
import type { Store } from '../core/store/index.ts'
import { createLocalApi } from '../functions/api/local.ts'
import { serveApi } from '../functions/api/server.ts'
import { devnetAccount, type Devnet } from './devnet.ts'

export type LocalApi = { url: string; stop(): Promise<void> }

export async function startLocalApi(p: { devnet: Devnet; store: Store; indexerUrl: string | undefined; port: number | undefined }): Promise<LocalApi> {
  const app = createLocalApi({
    store: p.store,
    publicClient: p.devnet.publicClient,
    deployment: p.devnet.deployment,
    operator: p.devnet.operator.account.address,
    settlement: devnetAccount(2),
    indexerUrl: p.indexerUrl,
  })
  const running = await serveApi(app, p.port ?? 0)
  return { url: running.url, stop: running.close }
}
