// Where the local runner's chain comes from: a fresh local devnet (the default), or an existing chain
// named by configuration (BARDO_RPC_URL, BARDO_DEPLOYMENT, BARDO_OPERATOR_KEY): then nothing is
// deployed, no demo Golem is provisioned (an owner's consent is needed for that) and time runs at its
// real pace.
import { readFileSync, writeFileSync } from 'node:fs'
import {
  createPublicClient,
  http,
  isAddress,
  isHex,
  type Account,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
  type Transport,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { getSmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import type { BardoDeployment } from '../core/deployment.ts'
import { DeploymentError, deploymentJson, parseDeployment } from '../core/deploymentSchema.ts'
import { withReceiptPolling } from '../adapters/chain/receipts.ts'
import { PUBLIC_ADDRESSES } from '../core/permissions/index.ts'
import { devnetAccount, localChain, startDevnet, type Devnet } from './devnet.ts'
import { LocalStackError } from './errors.ts'

export type StackChain = {
  rpcUrl: string
  publicClient: PublicClient<Transport, Chain>
  deployment: BardoDeployment
  /** The chain's USDC: the runway token and the x402 payment asset. */
  usdc: Address
  operator: Account
  settlement: Account
  /** Present on the local devnet only. */
  devnet?: Devnet
  stop(): Promise<void>
}

function key(env: NodeJS.ProcessEnv, name: string): Account {
  const value = env[name]
  if (!value || !isHex(value) || value.length !== 66)
    throw new LocalStackError('LOCAL_CONFIG', `${name}: must be a 32-byte hex private key`)
  return privateKeyToAccount(value as Hex)
}

/**
 * A deployment file (what `npm start` and `bardo deploy` write) through the deployment schema, the
 * framework from the MetaMask kit when the file does not carry it. A bad file throws a DeploymentError.
 */
export function deploymentOfFile(path: string, chainId: number): BardoDeployment {
  const root = 'BARDO_DEPLOYMENT'
  let json: unknown
  try {
    json = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new DeploymentError(
      root,
      `must be the path of a readable JSON file (${path} is ${error instanceof SyntaxError ? 'not JSON' : 'unreadable'})`,
    )
  }
  return parseDeployment(json, { root, chainId, framework: getSmartAccountsEnvironment })
}

/** deploymentOfFile, a bad file refused as the local runner's configuration error. */
export function readDeploymentFile(path: string, chainId: number): BardoDeployment {
  try {
    return deploymentOfFile(path, chainId)
  } catch (error) {
    if (error instanceof DeploymentError) throw new LocalStackError('LOCAL_CONFIG', error.message, { details: { field: error.field } })
    throw error
  }
}

/**
 * Writes a deployment in the format readDeploymentFile and `bardo deploy` share, with the framework's
 * addresses (a devnet's are its own) and the local test assets, so the CLI can act on this chain.
 */
export function writeDeploymentFile(path: string, deployment: BardoDeployment): void {
  writeFileSync(path, `${JSON.stringify(deploymentJson(deployment), null, 2)}\n`, { mode: 0o600 })
}

export async function connectChain(env: NodeJS.ProcessEnv): Promise<StackChain> {
  const rpcUrl = env.BARDO_RPC_URL
  if (!rpcUrl) {
    const devnet = await startDevnet()
    return {
      rpcUrl: devnet.rpcUrl,
      publicClient: devnet.publicClient,
      deployment: devnet.deployment,
      usdc: devnet.deployment.assets.usdc,
      operator: devnet.operator.account,
      settlement: devnetAccount(2),
      devnet,
      stop: devnet.stop,
    }
  }
  const probe = createPublicClient({ transport: http(rpcUrl) })
  const chainId = await probe.getChainId()
  const deploymentPath = env.BARDO_DEPLOYMENT
  if (!deploymentPath)
    throw new LocalStackError('LOCAL_CONFIG', 'BARDO_DEPLOYMENT: must name the deployment file when BARDO_RPC_URL is set')
  const publicAddresses = (PUBLIC_ADDRESSES as Record<number, { usdc: string } | undefined>)[chainId]
  const usdc = env.BARDO_USDC ?? publicAddresses?.usdc
  if (!usdc || !isAddress(usdc, { strict: false }))
    throw new LocalStackError(
      'LOCAL_CONFIG',
      `BARDO_USDC: chain ${chainId} has no known USDC (Base 8453, Base Sepolia 84532); set its address`,
    )
  const operator = key(env, 'BARDO_OPERATOR_KEY')
  return {
    rpcUrl,
    publicClient: withReceiptPolling(
      createPublicClient({ chain: localChain(rpcUrl, chainId), transport: http(rpcUrl) }) as PublicClient<Transport, Chain>,
    ),
    deployment: readDeploymentFile(deploymentPath, chainId),
    usdc: usdc as Address,
    operator,
    settlement: env.BARDO_SETTLEMENT_KEY ? key(env, 'BARDO_SETTLEMENT_KEY') : operator,
    stop: async () => {},
  }
}
