// Deploy-time settings for the stacks, read from the environment of `sst deploy`. A bad value fails
// the deploy before anything is created, with an error that names the variable and the rule.
// Nothing here is secret: secrets are `sst secret set` values (stacks/secrets.ts), never env vars.
import { getSmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import { getDefaultAsset } from '@x402/evm'
import { tickFrameworkOf } from '../core/deployment.ts'
import { BardoError } from '../core/errors.ts'
import { CustodyConfigError } from '../core/custody/errors.ts'
import { apiUrlOf, checkAppId, PRIVY_API_URL_VARIABLE, PRIVY_APP_ID } from '../adapters/signers/privySettings.ts'
import { HeartbeatAnomalyConfigError, parseMaxConsecutiveFailures } from '../core/lifecycle/heartbeatAnomaly.ts'
import { HEX_ADDRESS } from '../core/x402/patterns.ts'
import { isSnapId, PUBLISHED_SNAP_ID, SNAP_ID_RULE } from '../web/src/page.ts'
import { DeploymentError, deploymentJson, parseDeploymentFile, type DeploymentFile, type DeploymentJson } from '../core/deploymentSchema.ts'
import { toIndexerDeployment } from '../indexer/lib/deployment.ts'
import { deploymentSetting } from '../indexer/lib/settings.ts'

/** The chains this stack deploys to: where getSmartAccountsEnvironment(chainId) knows the framework. */
export const SUPPORTED_CHAINS = { 84532: 'Base Sepolia', 8453: 'Base' } as const
export type SupportedChainId = keyof typeof SUPPORTED_CHAINS

/** Ponder's port inside the container (its default). */
export const INDEXER_PORT = 42069

export type StackConfig = {
  stage: string
  production: boolean
  chainId: SupportedChainId
  /** The Bardo contracts on that chain, as parsed from BARDO_DEPLOYMENT. */
  deployment: DeploymentFile
  /** The same, as compact JSON (with the chain id): what the functions receive in BARDO_DEPLOYMENT. */
  deploymentJson: string
  /**
   * What the indexer receives in BARDO_DEPLOYMENT: built by toIndexerDeployment, the function `npm start`
   * and the tests use, with the framework's addresses on this chain and the USD prices.
   */
  indexerDeploymentJson: string
  startBlock: number
  /** Ponder database schema; a new one per indexer release (Ponder refuses another build's schema). */
  indexerSchema: string
  indexerDomain: string | undefined
  alarmEmail: string | undefined
  allowedOrigins: string
  /**
   * What x402 payments are made in: BARDO_USDC (with BARDO_USDC_NAME and BARDO_USDC_VERSION, its EIP-712
   * domain), else the chain's USDC as x402 knows it. Every function gets it in its environment, so the
   * API that prices and the tick that pays resolve the same asset without the tick carrying x402's table.
   */
  paymentAsset: { asset: string; name: string; version: string }
  /**
   * The framework contracts a tick calls on this chain (the DelegationManager and the two period-transfer
   * enforcers, from the kit's table), as JSON: the tick's BARDO_FRAMEWORK, so it does not bundle the table.
   */
  tickFrameworkJson: string
  /**
   * The Privy app whose server wallets hold some Golems' keys (BARDO_PRIVY_APP_ID, BARDO_PRIVY_API_URL):
   * plain values for the tick's environment; the app's secret is the PrivyAppSecret SST secret.
   */
  privy: { appId?: string; apiUrl?: string }
  /** The Snap the deployed dashboard pairs (BARDO_SNAP_ID; default the published one). */
  snapId: string
  /**
   * BARDO_MAX_FAILED_TICKS: ticks of one Golem that may fail in a row before it is halted and its owner
   * told (core/lifecycle/heartbeatAnomaly.ts); unset, the tick runs with its default.
   */
  maxFailedTicks: number | undefined
}

export class StackConfigError extends BardoError {
  readonly field: string
  constructor(field: string, rule: string) {
    super('STACK_CONFIG_INVALID', `${field}: ${rule}`, { details: { field } })
    this.field = field
  }
}

type Env = Record<string, string | undefined>

const present = (env: Env, name: string) => {
  const value = env[name]?.trim()
  return value === undefined || value === '' ? undefined : value
}

function wholeNumber(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = present(env, name)
  if (raw === undefined) return fallback
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max)
    throw new StackConfigError(name, `must be a whole number from ${min} to ${max}`)
  return Number(raw)
}

function chainId(env: Env): SupportedChainId {
  const raw = present(env, 'BARDO_CHAIN_ID') ?? '84532'
  const id = Number(raw)
  if (!(id in SUPPORTED_CHAINS))
    throw new StackConfigError('BARDO_CHAIN_ID', `must be one of ${Object.keys(SUPPORTED_CHAINS).join(', ')} (Base Sepolia, Base)`)
  return id as SupportedChainId
}

function deployment(env: Env, chain: SupportedChainId): DeploymentFile {
  const raw = present(env, 'BARDO_DEPLOYMENT')
  if (raw === undefined)
    throw new StackConfigError(
      'BARDO_DEPLOYMENT',
      'is required: the Bardo contract addresses (JSON, or the path of the JSON file the contract deploy wrote)',
    )
  try {
    return parseDeploymentFile(deploymentSetting(raw), { root: 'BARDO_DEPLOYMENT', chainId: chain })
  } catch (error) {
    if (error instanceof DeploymentError) throw new StackConfigError(error.field, error.rule)
    throw error
  }
}

function schema(env: Env, stage: string): string {
  const value = present(env, 'BARDO_INDEXER_SCHEMA') ?? `bardo_${stage.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`
  // Ponder's limit is 45 characters; Postgres identifiers stay unquoted with this alphabet.
  if (!/^[a-z_][a-z0-9_]{0,44}$/.test(value))
    throw new StackConfigError('BARDO_INDEXER_SCHEMA', 'must be 1-45 characters of a-z, 0-9 and _, not starting with a digit')
  return value
}

function optionalMatch(env: Env, name: string, pattern: RegExp, rule: string): string | undefined {
  const value = present(env, name)
  if (value !== undefined && !pattern.test(value)) throw new StackConfigError(name, rule)
  return value
}

function origins(env: Env): string {
  const list = (present(env, 'BARDO_ALLOWED_ORIGINS') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  for (const origin of list) {
    if (!/^https?:\/\/[^/\s]+$/.test(origin))
      throw new StackConfigError('BARDO_ALLOWED_ORIGINS', 'must be a comma-separated list of origins like https://app.example.com')
  }
  return list.join(',')
}

/**
 * The indexer's deployment: the framework on `chainId` (getSmartAccountsEnvironment, unless the deployment
 * carries its own), then the one builder every run of the indexer goes through.
 */
export function indexerDeploymentFor(chainId: SupportedChainId, d: DeploymentFile): DeploymentJson {
  return toIndexerDeployment({ ...d, chainId, environment: d.environment ?? getSmartAccountsEnvironment(chainId) })
}

function paymentAsset(env: Env, chain: SupportedChainId): StackConfig['paymentAsset'] {
  const asset = optionalMatch(env, 'BARDO_USDC', HEX_ADDRESS, 'must be a 20-byte hex address')
  const name = present(env, 'BARDO_USDC_NAME')
  const version = present(env, 'BARDO_USDC_VERSION')
  if (asset === undefined) {
    if (name !== undefined || version !== undefined)
      throw new StackConfigError('BARDO_USDC', 'must be set with BARDO_USDC_NAME and BARDO_USDC_VERSION (they name its EIP-712 domain)')
    const known = getDefaultAsset(`eip155:${chain}`)
    return { asset: known.asset, name: known.name, version: known.version }
  }
  if (name === undefined || version === undefined)
    throw new StackConfigError(
      name === undefined ? 'BARDO_USDC_NAME' : 'BARDO_USDC_VERSION',
      "must be set with BARDO_USDC: the asset's EIP-712 domain",
    )
  return { asset, name, version }
}

/** The Privy app's id and API URL, by the rules the tick applies to them (adapters/signers/privySettings.ts). */
function privy(env: Env): StackConfig['privy'] {
  const appId = present(env, PRIVY_APP_ID)
  const apiUrl = present(env, PRIVY_API_URL_VARIABLE)
  if (apiUrl !== undefined && appId === undefined)
    throw new StackConfigError(PRIVY_API_URL_VARIABLE, `is set, so ${PRIVY_APP_ID} must be set too`)
  try {
    return {
      ...(appId === undefined ? {} : { appId: checkAppId(appId) }),
      ...(apiUrl === undefined ? {} : { apiUrl: apiUrlOf(apiUrl) }),
    }
  } catch (error) {
    if (error instanceof CustodyConfigError) {
      const field = String(error.details?.field)
      throw new StackConfigError(field, error.message.slice(field.length + 2))
    }
    throw error
  }
}

/** Reads and checks every deploy-time setting. `stage` is `$app.stage`. */
export function loadStackConfig(env: Env, stage: string): StackConfig {
  // Deploying removes a stage's pool keys from the stack: make whoever still sets the pool read how first.
  if (present(env, 'BARDO_KEY_POOL_SIZE') !== undefined)
    throw new StackConfigError(
      'BARDO_KEY_POOL_SIZE',
      'is no longer read: keys are created per Golem at onboarding; follow docs/deploy.md, "Migrating from the key pool", then unset it',
    )
  const chain = chainId(env)
  const parsed = deployment(env, chain)
  const production = stage === 'production'
  return {
    stage,
    production,
    chainId: chain,
    deployment: parsed,
    deploymentJson: JSON.stringify(deploymentJson({ ...parsed, chainId: chain })),
    indexerDeploymentJson: JSON.stringify(indexerDeploymentFor(chain, parsed)),
    startBlock: wholeNumber(env, 'BARDO_START_BLOCK', Number(parsed.startBlock ?? 0n), 0, Number.MAX_SAFE_INTEGER),
    indexerSchema: schema(env, stage),
    indexerDomain: optionalMatch(
      env,
      'BARDO_INDEXER_DOMAIN',
      /^(?=.{1,253}$)([a-z0-9-]+\.)+[a-z]{2,}$/i,
      'must be a domain name like indexer.example.com',
    ),
    alarmEmail: optionalMatch(env, 'BARDO_ALARM_EMAIL', /^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'must be an email address'),
    allowedOrigins: origins(env),
    paymentAsset: paymentAsset(env, chain),
    tickFrameworkJson: JSON.stringify(tickFrameworkOf(getSmartAccountsEnvironment(chain))),
    privy: privy(env),
    snapId: snapId(env),
    maxFailedTicks: maxFailedTicks(env),
  }
}

/** The tick's limit of failed ticks in a row, by the rule the tick applies to it; undefined when unset. */
function maxFailedTicks(env: Env): number | undefined {
  const raw = present(env, 'BARDO_MAX_FAILED_TICKS')
  if (raw === undefined) return undefined
  try {
    return parseMaxConsecutiveFailures(raw, 'BARDO_MAX_FAILED_TICKS')
  } catch (error) {
    if (error instanceof HeartbeatAnomalyConfigError) throw new StackConfigError('BARDO_MAX_FAILED_TICKS', String(error.details?.rule))
    throw error
  }
}

function snapId(env: Env): string {
  const id = present(env, 'BARDO_SNAP_ID') ?? PUBLISHED_SNAP_ID
  if (!isSnapId(id)) throw new StackConfigError('BARDO_SNAP_ID', SNAP_ID_RULE)
  return id
}
