// Configuration of the deployed functions: plain values from the environment (set by stacks/), secrets
// from SST links. Read lazily, on the first invocation, so importing a handler needs no configuration.
import { createPublicClient, http, isAddress, isHex, type Hex, type PublicClient, type Transport } from 'viem'
import { privateKeyToAccount, type LocalAccount } from 'viem/accounts'
import { getSmartAccountsEnvironment, type SmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { TICK_ENFORCERS, type BardoDeployment, type TickDeployment, type TickFramework } from '../../core/deployment.ts'
import { DeploymentError, parseDeployment } from '../../core/deploymentSchema.ts'
import { DynamoCouncilStore, DynamoStore, DynamoTickStore, type DynamoStoreOptions } from '../../adapters/store/index.ts'
import { createTickChainClient, type TickChainClient } from '../../adapters/chain/tickChainClient.ts'
import { createWalkChainClient, type WalkChainClient } from '../../adapters/chain/walkChainClient.ts'
import type { Store, TickStore } from '../../core/store/index.ts'
import { FunctionConfigError } from './configError.ts'
import { HeartbeatAnomalyConfigError, parseMaxConsecutiveFailures } from '../../core/lifecycle/heartbeatAnomaly.ts'
import { optionalSecret, secret } from './resource.ts'
import { CustodyConfigError } from '../../core/custody/errors.ts'
import { privySettingsFromEnv, type PrivySettingsResult } from '../../adapters/signers/privySettings.ts'

export type FunctionConfig<Client = PublicClient, Deployment = BardoDeployment, S = Store> = {
  chainId: number
  deployment: Deployment
  store: S
  client: Client
  operator: () => LocalAccount
  /** The x402 runtime price (atomic units of the asset per hour), as the API charges it. */
  runtimeCostPerHour: bigint
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const v = env[name]
  if (!v) throw new FunctionConfigError(`config: ${name} must be set`)
  return v
}

/**
 * The tick's configuration: its chain client carries only the actions a tick calls, and its deployment
 * only the framework contracts a tick calls, so its bundle stays lean.
 */
export type TickFunctionConfig = FunctionConfig<TickChainClient, TickDeployment, TickStore>

/**
 * The heartbeat's and the walker's configuration: their chain client carries only the three actions a
 * walk calls (the block, the priority fee, the multicall), so their bundles stay lean.
 */
export type WalkFunctionConfig = FunctionConfig<WalkChainClient>

export function loadFunctionConfig(env: NodeJS.ProcessEnv = process.env): WalkFunctionConfig {
  return loadConfig(
    env,
    (transport) => createWalkChainClient({ transport }),
    // The kit knows every public chain's framework; a private chain's deployment carries its own.
    getSmartAccountsEnvironment,
    (o) => new DynamoStore(o),
  )
}

/** The API's configuration: its store keeps the councils owners form too (the same table). */
export function loadApiFunctionConfig(
  env: NodeJS.ProcessEnv = process.env,
): FunctionConfig<PublicClient, BardoDeployment, DynamoCouncilStore> {
  return loadConfig(
    env,
    (transport) => createPublicClient({ transport }) as PublicClient,
    getSmartAccountsEnvironment,
    (o) => new DynamoCouncilStore(o),
  )
}

export function loadTickFunctionConfig(env: NodeJS.ProcessEnv = process.env): TickFunctionConfig {
  return loadConfig(
    env,
    (transport) => createTickChainClient({ transport }),
    () => tickFramework(env),
    // The tick's own items only: the API's (payment identifiers, nonces, Snap tokens) stay out of its bundle.
    (o) => new DynamoTickStore(o),
  )
}

/**
 * BARDO_FRAMEWORK: the framework contracts a tick calls on this chain (JSON: the DelegationManager and the
 * two period-transfer enforcers), which the stack writes from the kit's table when it deploys.
 */
function tickFramework(env: NodeJS.ProcessEnv): TickFramework {
  const name = 'BARDO_FRAMEWORK'
  let parsed: { DelegationManager?: unknown; caveatEnforcers?: Record<string, unknown> }
  try {
    parsed = JSON.parse(required(env, name)) as typeof parsed
  } catch (error) {
    if (error instanceof SyntaxError) throw new FunctionConfigError(`config: ${name} must be JSON`)
    throw error
  }
  const address = (field: string, value: unknown): `0x${string}` => {
    if (typeof value !== 'string' || !isAddress(value, { strict: false }))
      throw new FunctionConfigError(`config: ${name}.${field} must be a 20-byte hex address`)
    return value
  }
  const caveatEnforcers: Record<string, `0x${string}`> = {}
  for (const enforcer of TICK_ENFORCERS)
    caveatEnforcers[enforcer] = address(`caveatEnforcers.${enforcer}`, parsed?.caveatEnforcers?.[enforcer])
  return { DelegationManager: address('DelegationManager', parsed?.DelegationManager), caveatEnforcers }
}

function loadConfig<Client, Framework extends TickFramework, S>(
  env: NodeJS.ProcessEnv,
  chainClient: (transport: Transport) => Client,
  framework: (chainId: number) => Framework,
  openStore: (options: DynamoStoreOptions) => S,
): FunctionConfig<Client, Omit<BardoDeployment, 'environment'> & { environment: Framework | SmartAccountsEnvironment }, S> {
  const chainId = Number(required(env, 'BARDO_CHAIN_ID'))
  if (!Number.isSafeInteger(chainId) || chainId <= 0)
    throw new FunctionConfigError('config: BARDO_CHAIN_ID must be a chain id (a whole number > 0)')
  let json: unknown
  try {
    json = JSON.parse(required(env, 'BARDO_DEPLOYMENT'))
  } catch (error) {
    if (error instanceof SyntaxError) throw new FunctionConfigError('config: BARDO_DEPLOYMENT: must be valid JSON')
    throw error
  }
  let deployment: Omit<BardoDeployment, 'environment'> & { environment: Framework | SmartAccountsEnvironment }
  try {
    deployment = parseDeployment(json, { root: 'BARDO_DEPLOYMENT', chainId, framework })
  } catch (error) {
    if (error instanceof DeploymentError) throw new FunctionConfigError(`config: ${error.message}`)
    throw error
  }
  const store = openStore({
    client: DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } }),
    tableName: required(env, 'BARDO_TABLE_NAME'),
  })
  const client = chainClient(http(secret('RpcUrl', env)))
  const price = env.BARDO_RUNTIME_COST_PER_HOUR ?? '500000'
  if (!/^[1-9]\d*$/.test(price))
    throw new FunctionConfigError('config: BARDO_RUNTIME_COST_PER_HOUR must be a positive integer (atomic units of the asset per hour)')
  return {
    chainId,
    deployment,
    store,
    client,
    runtimeCostPerHour: BigInt(price),
    operator: () => {
      const key = secret('OperatorKey', env)
      if (!isHex(key) || key.length !== 66) throw new FunctionConfigError('config: OperatorKey must be a 32-byte hex key')
      return privateKeyToAccount(key as Hex)
    },
  }
}

/**
 * BARDO_MAX_FAILED_TICKS: ticks of one Golem that may fail in a row before it is halted and its owner told
 * (core/lifecycle/heartbeatAnomaly.ts); default 5.
 */
export function loadMaxFailedTicks(env: NodeJS.ProcessEnv = process.env): number {
  try {
    return parseMaxConsecutiveFailures(env.BARDO_MAX_FAILED_TICKS, 'BARDO_MAX_FAILED_TICKS')
  } catch (error) {
    if (error instanceof HeartbeatAnomalyConfigError) throw new FunctionConfigError(`config: ${error.message}`)
    throw error
  }
}

/**
 * The tick's Privy settings: BARDO_PRIVY_APP_ID and BARDO_PRIVY_API_URL from the stack's environment, the
 * app secret from the PrivyAppSecret link (never an environment variable). With neither, the tick holds
 * no Privy wallets and says which settings would add them.
 */
export function loadTickPrivySettings(env: NodeJS.ProcessEnv = process.env): PrivySettingsResult {
  const appSecret = optionalSecret('PrivyAppSecret', env)
  try {
    return privySettingsFromEnv(
      { BARDO_PRIVY_APP_ID: env.BARDO_PRIVY_APP_ID, BARDO_PRIVY_API_URL: env.BARDO_PRIVY_API_URL, BARDO_PRIVY_APP_SECRET: appSecret },
      { appSecretFrom: 'secret PrivyAppSecret' },
    )
  } catch (error) {
    if (error instanceof CustodyConfigError) throw new FunctionConfigError(`config: ${error.message}`)
    throw error
  }
}
