// Configuration of the deployed functions: plain values from the environment (set by stacks/), secrets
// from SST links. Read lazily, on the first invocation, so importing a handler needs no configuration.
import { createPublicClient, http, isHex, type Hex, type PublicClient, type Transport } from 'viem'
import { privateKeyToAccount, type LocalAccount } from 'viem/accounts'
import { getSmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import type { BardoDeployment } from '../../core/deployment.ts'
import { DynamoStore } from '../../adapters/store/index.ts'
import { createTickChainClient, type TickChainClient } from '../../adapters/chain/tickChainClient.ts'
import type { Store } from '../../core/store/index.ts'
import { secret } from './resource.ts'

export type FunctionConfig<Client = PublicClient> = {
  chainId: number
  deployment: BardoDeployment
  store: Store
  client: Client
  operator: () => LocalAccount
  /** The x402 runtime price (atomic units of the asset per hour), as the API charges it. */
  runtimeCostPerHour: bigint
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const v = env[name]
  if (!v) throw new Error(`config: ${name} must be set`)
  return v
}

/** The tick's configuration: its chain client carries only the actions a tick calls, so its bundle stays lean. */
export type TickFunctionConfig = FunctionConfig<TickChainClient>

export function loadFunctionConfig(env: NodeJS.ProcessEnv = process.env): FunctionConfig {
  return loadConfig(env, (transport) => createPublicClient({ transport }) as PublicClient)
}

export function loadTickFunctionConfig(env: NodeJS.ProcessEnv = process.env): TickFunctionConfig {
  return loadConfig(env, (transport) => createTickChainClient({ transport }))
}

function loadConfig<Client>(env: NodeJS.ProcessEnv, chainClient: (transport: Transport) => Client): FunctionConfig<Client> {
  const chainId = Number(required(env, 'BARDO_CHAIN_ID'))
  const addresses = JSON.parse(required(env, 'BARDO_DEPLOYMENT')) as Omit<BardoDeployment, 'environment' | 'chainId' | 'startBlock'> & {
    startBlock?: string
    environment?: BardoDeployment['environment']
  }
  const deployment: BardoDeployment = {
    ...addresses,
    chainId,
    // The kit knows every public chain's framework; a private chain's deployment carries its own.
    environment: addresses.environment ?? getSmartAccountsEnvironment(chainId),
    startBlock: BigInt(addresses.startBlock ?? 0),
  }
  const store = new DynamoStore({
    client: DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } }),
    tableName: required(env, 'BARDO_TABLE_NAME'),
  })
  const client = chainClient(http(secret('RpcUrl', env)))
  const price = env.BARDO_RUNTIME_COST_PER_HOUR ?? '500000'
  if (!/^[1-9]\d*$/.test(price))
    throw new Error('config: BARDO_RUNTIME_COST_PER_HOUR must be a positive integer (atomic units of the asset per hour)')
  return {
    chainId,
    deployment,
    store,
    client,
    runtimeCostPerHour: BigInt(price),
    operator: () => {
      const key = secret('OperatorKey', env)
      if (!isHex(key) || key.length !== 66) throw new Error('config: OperatorKey must be a 32-byte hex key')
      return privateKeyToAccount(key as Hex)
    },
  }
}
