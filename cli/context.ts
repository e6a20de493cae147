// Where the CLI's chain, keys and store come from: the environment (BARDO_RPC_URL, BARDO_DEPLOYMENT,
// BARDO_*_KEY, BARDO_TABLE_NAME). Keys are read when a command needs them, never printed, and a missing
// or malformed one is refused with the variable's name before anything is sent or written.
import { existsSync } from 'node:fs'
import {
  createPublicClient,
  createWalletClient,
  http,
  isHex,
  toHex,
  type Account,
  type Chain,
  type Hex,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem'
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import type { BardoDeployment, LocalAssets } from '../core/deployment.ts'
import type { Store } from '../core/store/index.ts'
import { withReceiptPolling } from '../adapters/chain/receipts.ts'
import { DeploymentError } from '../core/deploymentSchema.ts'
import { deploymentOfFile } from '../local/chain.ts'
import { devnetAccount, FAUCET_ACCOUNT_INDEX, localChain } from '../local/devnet.ts'
import { openStore } from '../local/store.ts'
import { findStackInfo, readOwnerKey, readReadKey } from '../local/stackFile.ts'
import { CliConfigError } from './errors.ts'

export type CliChain = {
  chain: Chain
  chainId: number
  publicClient: PublicClient<Transport, Chain>
  wallet(account: Account): WalletClient<Transport, Chain, Account>
}

export type CliDeployment = BardoDeployment & { assets?: LocalAssets }

export function rpcUrlOf(env: NodeJS.ProcessEnv): string {
  const url = env.BARDO_RPC_URL
  if (!url) throw new CliConfigError('BARDO_RPC_URL', 'must be the JSON-RPC URL of the chain (http or https)')
  if (!/^https?:\/\//.test(url)) throw new CliConfigError('BARDO_RPC_URL', 'must be an http or https URL')
  return url
}

export async function connect(env: NodeJS.ProcessEnv): Promise<CliChain> {
  const url = rpcUrlOf(env)
  const transport = http(url, { batch: false })
  const chainId = await createPublicClient({ transport })
    .getChainId()
    .catch((e: unknown) => {
      throw new CliConfigError('BARDO_RPC_URL', `must answer eth_chainId (${e instanceof Error ? e.name : 'error'})`)
    })
  const chain = localChain(url, chainId)
  // A local chain answers in milliseconds; a public one is polled at viem's pace.
  const pollingInterval = chainId === 31337 ? 25 : 2_000
  const publicClient = withReceiptPolling(createPublicClient({ chain, transport, pollingInterval }) as PublicClient<Transport, Chain>)
  return {
    chain,
    chainId,
    publicClient,
    wallet: (account) => createWalletClient({ account, chain, transport, pollingInterval }),
  }
}

/** A private key from the environment, as an account; the value itself never leaves this function. */
export function keyFrom(env: NodeJS.ProcessEnv, name: string): PrivateKeyAccount {
  const value = env[name]
  if (!value) throw new CliConfigError(name, 'must be set to a 32-byte hex private key')
  if (!isHex(value) || value.length !== 66) throw new CliConfigError(name, 'must be a 32-byte hex private key (0x and 64 hex digits)')
  return privateKeyToAccount(value as Hex)
}

export function deploymentPathOf(env: NodeJS.ProcessEnv, flag?: string): string {
  const path = flag ?? env.BARDO_DEPLOYMENT
  if (!path) throw new CliConfigError('BARDO_DEPLOYMENT', 'must name the deployment file (or pass --deployment)')
  return path
}

/** The deployment file `bardo deploy` writes, with the local test assets when it deployed them. */
export function readCliDeployment(path: string, chainId: number): CliDeployment {
  if (!existsSync(path)) throw new CliConfigError('BARDO_DEPLOYMENT', `no deployment file at ${path} (run bardo deploy first)`)
  try {
    return deploymentOfFile(path, chainId)
  } catch (error) {
    if (error instanceof DeploymentError) throw new CliConfigError(error.field, error.rule)
    throw error
  }
}

/** The store the heartbeat reads: a DynamoDB table (BARDO_TABLE_NAME; BARDO_DYNAMODB_ENDPOINT for dynalite or DynamoDB Local). */
export async function openCliStore(env: NodeJS.ProcessEnv): Promise<{ store: Store; stop(): Promise<void> }> {
  // Without a table the local runner would start a private dynalite that dies with this process:
  // nothing written there would ever reach a heartbeat.
  if (!env.BARDO_TABLE_NAME)
    throw new CliConfigError('BARDO_TABLE_NAME', 'must name the table the heartbeat reads (with BARDO_DYNAMODB_ENDPOINT for a local one)')
  const { store, stop } = await openStore(env)
  return { store, stop }
}

/**
 * The environment with what a running local stack (`npm start`) wrote in the state directory filled in
 * where the environment is silent: its chain, deployment file, store, API, and the demo owner's key. A
 * BARDO_RPC_URL naming another chain keeps the stack out of it entirely, so nothing of one stack is mixed
 * into a command aimed elsewhere.
 */
export function withStackDefaults(env: NodeJS.ProcessEnv, stateDir: string): NodeJS.ProcessEnv {
  const info = findStackInfo(stateDir)
  if (!info || (env.BARDO_RPC_URL && env.BARDO_RPC_URL !== info.rpcUrl)) return env
  const out: NodeJS.ProcessEnv = { ...env, BARDO_RPC_URL: info.rpcUrl }
  if (!out.BARDO_DEPLOYMENT && info.deploymentFile) out.BARDO_DEPLOYMENT = info.deploymentFile
  if (!out.BARDO_API_URL) out.BARDO_API_URL = info.apiUrl
  if (!out.BARDO_DASHBOARD_URL && info.dashboardUrl) out.BARDO_DASHBOARD_URL = info.dashboardUrl
  if (!out.BARDO_TABLE_NAME && info.store) {
    out.BARDO_TABLE_NAME = info.store.tableName
    out.BARDO_DYNAMODB_ENDPOINT = info.store.endpoint
    // dynalite ignores credentials, but the AWS SDK looks for some (and a region) before it sends.
    out.AWS_REGION ??= 'us-east-1'
    out.AWS_ACCESS_KEY_ID ??= 'local'
    out.AWS_SECRET_ACCESS_KEY ??= 'local'
  }
  if (!out.BARDO_OWNER_KEY) {
    const key = readOwnerKey(info)
    if (key) out.BARDO_OWNER_KEY = key
  }
  // The stack's read key, for the owner's views the API shows a read key (`bardo observer list`).
  if (!out.BARDO_READ_API_KEY) {
    const key = readReadKey(info)
    if (key) out.BARDO_READ_API_KEY = key
  }
  // `bardo feed` pays from the stack's faucet account where no payer is named: anvil's public test key,
  // holding the local USDC reserve, on the local chain only.
  if (!out.BARDO_PAYER_KEY) {
    const faucet = devnetAccount(FAUCET_ACCOUNT_INDEX).getHdKey().privateKey
    if (faucet) out.BARDO_PAYER_KEY = toHex(faucet)
  }
  return out
}
