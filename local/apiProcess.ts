// The HTTP API as a process of its own, for the local stack's supervisor: it reads what the runner wrote
// for it (BARDO_API_CONFIG: the chain, the deployment file, the store, the indexer, its port; no secret)
// and its secrets from its environment (the stack keys' secret, the read key's hash), serves on
// 127.0.0.1 at the port the config names and prints `api listening on <url>`. Killed at any moment, it is
// started again by the runner on the same port: what it settled and credited is in the store (x402
// slots, payment identifiers), so a payment it answered is never credited twice and one it did not
// answer is settled once when the client asks again.
import { readFileSync } from 'node:fs'
import type { Address, Hex } from 'viem'
import { createLocalApi } from '../functions/api/local.ts'
import { serveApi } from '../functions/api/server.ts'
import { connectChain, readDeploymentFile, type StackChain } from './chain.ts'
import { attachDevnet, devnetAccount } from './devnet.ts'
import { LocalStackError } from './errors.ts'
import { localOnboarding } from './onboarding.ts'
import { localReplicantSpawning } from './replicants.ts'
import { READ_KEY_HASH_ENV, type ApiConfig } from './apiConfig.ts'
import { LOCAL_READ_LIMIT } from './readKey.ts'
import { openStackStore, stackSigners } from './stackChild.ts'

const configPath = process.env.BARDO_API_CONFIG
if (!configPath) throw new LocalStackError('LOCAL_CONFIG', 'BARDO_API_CONFIG: must name the API config the runner wrote')
const config = JSON.parse(readFileSync(configPath, 'utf8')) as ApiConfig
const env = process.env

const deployment = config.deploymentFile ? readDeploymentFile(config.deploymentFile, config.chainId) : undefined
const devnet = config.devnet && deployment?.assets ? attachDevnet(config.rpcUrl, { ...deployment, assets: deployment.assets }) : undefined
const chain: StackChain = devnet
  ? {
      rpcUrl: config.rpcUrl,
      publicClient: devnet.publicClient,
      deployment: devnet.deployment,
      usdc: devnet.deployment.assets.usdc,
      operator: devnetAccount(1),
      settlement: devnetAccount(2),
      stop: async () => {},
    }
  : await connectChain(env)
const store = await openStackStore(config.store, env)
const { keys, signers } = stackSigners(env, config.stateDir, chain.deployment)
const readKeyHash = env[READ_KEY_HASH_ENV] as Hex | undefined
const replicants = localReplicantSpawning({ chain, keys })
const app = createLocalApi({
  store,
  publicClient: chain.publicClient,
  deployment: chain.deployment,
  asset: chain.usdc as Address,
  operator: chain.operator.address,
  settlement: chain.settlement,
  indexerUrl: config.indexerUrl,
  ...(readKeyHash ? { config: { readApiKeyHashes: [readKeyHash], rateLimits: { read: LOCAL_READ_LIMIT } } } : {}),
  signers,
  ...(replicants ? { replicants } : {}),
  onboarding: localOnboarding({
    chain,
    store,
    keys,
    lifeSeconds: BigInt(config.lifeSeconds),
    periodSeconds: BigInt(config.periodSeconds),
  }),
})
const running = await serveApi(app, config.port)
process.stdout.write(`api listening on ${running.url}\n`)

const stop = () => void running.close().finally(() => process.exit(0))
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
// Runs in its own process group: when the runner is gone (even by SIGKILL), this process goes too.
const parent = process.ppid
setInterval(() => {
  if (process.ppid !== parent) stop()
}, 500).unref()
