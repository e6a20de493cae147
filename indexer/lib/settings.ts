// Reads the indexer's network, addresses and database from environment variables, so one Ponder app
// serves the local anvil devnet, Base Sepolia and Base without code changes.
import { readFileSync } from 'node:fs'
import { getAddress, type Address } from 'viem'
import { BardoError } from '../../core/errors.ts'
import { bardoEnforcerNames } from '../../core/deployment.ts'
import { DeploymentError, parsePartialDeployment, type DeploymentJson, type PartialDeploymentFile } from '../../core/deploymentSchema.ts'
import type { TokenPrice } from './usd.ts'
import { caveatName } from './actions.ts'

/**
 * The indexer's view of a deployment (parseDeployment's result): where the Bardo contracts and the
 * framework pieces it reads live on the indexed chain.
 */
export type IndexerDeployment = {
  /** The chain the deployment names, checked against BARDO_CHAIN_ID. */
  chainId?: number
  vitalityOracle?: Address
  dreamOracle?: Address
  daimonOracle?: Address
  delegationManager?: Address
  /**
   * Bardo's nine by lower-cased name (`dailyspendlimit`), with the framework's two period enforcers
   * (`erc20periodtransfer`, `nativetokenperiodtransfer`): any of Bardo's in a delegation's caveats marks it
   * as Bardo's.
   */
  enforcers?: Record<string, Address>
  /** First block to index (BARDO_START_BLOCK overrides it). */
  startBlock?: number
  /**
   * How token spend is valued in USD, by token address (`0x000…0` is native ETH): `{ decimals, feed }`
   * reads a Chainlink-style feed at the spend's block; without `feed` the token counts at par ($1).
   */
  prices?: Record<string, TokenPrice>
  /**
   * Every other caveat enforcer by its contract name (`AllowedTargetsEnforcer`, …), to name the caveats
   * that bound an action; the indexer listens to none of them.
   */
  caveatEnforcers?: Record<string, Address>
  /** The ERC-4337 EntryPoint the councils' user operations run through (the framework's `EntryPoint`). */
  entryPoint?: Address
  /**
   * The Coordination Councils (MultiSig DeleGators) whose executions are indexed: their user operations
   * at the EntryPoint and their redemptions at the DelegationManager. None named, none indexed.
   */
  councils?: Address[]
}

export const ENFORCER_NAMES = [
  'dailySpendLimit',
  'replicantBudget',
  'golemPhase',
  'erc20PeriodTransfer',
  'nativeTokenPeriodTransfer',
] as const
export type EnforcerName = (typeof ENFORCER_NAMES)[number]

export type ResolvedAddresses = {
  vitalityOracle: Address
  dreamOracle: Address
  daimonOracle: Address
  delegationManager: Address
  enforcers: Record<EnforcerName, Address>
  /** UNCONFIGURED unless a council is named (nothing else at the EntryPoint is indexed). */
  entryPoint: Address
}

export type IndexerSettings = {
  chainId: number
  chainName: string
  rpcUrl: string
  startBlock: number
  pollingInterval: number
  ethGetLogsBlockRange?: number
  addresses: ResolvedAddresses
  /** Every Bardo enforcer address in the deployment (not the framework's), for the relevance rule. */
  bardoEnforcers: Address[]
  /** Normalised enforcer name (`dailyspendlimit`, `erc20periodtransfer`, …) by lower-case address, for the remaining-budget views. */
  enforcerNames: Record<string, string>
  /** Caveat name (`dailySpendLimit`, `allowedTargets`, `erc20PeriodTransfer`, …) by lower-case enforcer address, for actions. */
  caveatNames: Record<string, string>
  /** Contracts that had no address and therefore index nothing (see UNCONFIGURED). */
  unconfigured: string[]
  /** Store every delegation/redemption seen on the DelegationManager, not only Bardo's. */
  indexAllDelegations: boolean
  /** USD pricing by lower-case token address; a token not listed has no USD value. */
  prices: Record<string, TokenPrice>
  /** The councils whose executions are indexed, lower-case. */
  councils: Address[]
  database: { kind: 'pglite'; directory: string } | { kind: 'postgres'; connectionString: string }
}

/**
 * Stand-in for a contract with no configured address. Ponder indexes a contract's events from every
 * address when `address` is omitted (on Base that would be every DelegationManager-shaped log), so a
 * missing address is pinned to one that never emits instead.
 */
export const UNCONFIGURED: Address = '0x000000000000000000000000000000000000dEaD'

export const LOCAL_CHAIN_ID = 31337
const CHAIN_NAMES: Record<number, string> = { 31337: 'anvil', 8453: 'base', 84532: 'baseSepolia' }

export type FrameworkLookup = (chainId: number) => {
  DelegationManager: Address
  EntryPoint?: Address
  caveatEnforcers: Record<string, Address>
}

function fail(field: string, rule: string, details?: Record<string, unknown>): never {
  throw new BardoError('INDEXER_CONFIG_INVALID', `${field}: ${rule}`, details === undefined ? undefined : { details })
}

function parseInteger(env: Record<string, string | undefined>, name: string, fallback: number, min: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!/^\d+$/.test(raw)) fail(name, `must be a whole number >= ${min}`, { value: raw })
  const value = Number(raw)
  if (!Number.isSafeInteger(value) || value < min) fail(name, `must be a whole number >= ${min}`, { value: raw })
  return value
}

/**
 * Parses BARDO_DEPLOYMENT (inline JSON, or a path to a JSON file) through the deployment schema, any
 * address left out, into the indexer's view of it.
 */
export function parseDeployment(raw: string | undefined): IndexerDeployment {
  if (raw === undefined || raw.trim() === '') return {}
  try {
    return indexerView(parsePartialDeployment(deploymentSetting(raw), 'BARDO_DEPLOYMENT'))
  } catch (error) {
    if (error instanceof DeploymentError) fail(error.field, error.rule)
    throw error
  }
}

/** The JSON a BARDO_DEPLOYMENT setting holds: inline, or in the file it names. A bad one throws a DeploymentError. */
export function deploymentSetting(raw: string): unknown {
  let text = raw.trim()
  if (!text.startsWith('{')) {
    try {
      text = readFileSync(text, 'utf8')
    } catch {
      throw new DeploymentError('BARDO_DEPLOYMENT', 'must be JSON or the path of a readable JSON file')
    }
  }
  try {
    return JSON.parse(text)
  } catch {
    throw new DeploymentError('BARDO_DEPLOYMENT', 'must be valid JSON')
  }
}

/** Indexed by lower-case names; the framework's two period enforcers join Bardo's nine. */
function indexerView(d: PartialDeploymentFile): IndexerDeployment {
  const out: IndexerDeployment = d.chainId === undefined ? {} : { chainId: d.chainId }
  for (const key of ['vitalityOracle', 'dreamOracle', 'daimonOracle'] as const) {
    const value = d[key]
    if (value !== undefined) out[key] = getAddress(value)
  }
  const environment = d.environment ?? {}
  if (environment.DelegationManager !== undefined) out.delegationManager = getAddress(environment.DelegationManager)
  if (environment.EntryPoint !== undefined) out.entryPoint = getAddress(environment.EntryPoint)
  const enforcers: Record<string, Address> = {}
  for (const [name, value] of Object.entries(d.enforcers ?? {})) if (value !== undefined) enforcers[name.toLowerCase()] = getAddress(value)
  if (environment.caveatEnforcers !== undefined) {
    out.caveatEnforcers = Object.fromEntries(Object.entries(environment.caveatEnforcers).map(([name, a]) => [name, getAddress(a)]))
    for (const name of ['ERC20PeriodTransferEnforcer', 'NativeTokenPeriodTransferEnforcer']) {
      const value = out.caveatEnforcers[name]
      if (value !== undefined) enforcers[name.slice(0, -'Enforcer'.length).toLowerCase()] = value
    }
  }
  if (Object.keys(enforcers).length > 0) out.enforcers = enforcers
  if (d.prices !== undefined)
    out.prices = Object.fromEntries(
      Object.entries(d.prices).map(([token, { decimals, feed }]) => [
        token.toLowerCase(),
        feed === undefined ? { decimals } : { decimals, feed: getAddress(feed) },
      ]),
    )
  if (d.councils !== undefined) out.councils = d.councils.map((c) => getAddress(c))
  if (d.startBlock !== undefined) {
    // Ponder counts blocks in numbers: a start beyond the safe integers cannot be indexed from.
    if (d.startBlock > BigInt(Number.MAX_SAFE_INTEGER))
      fail('BARDO_DEPLOYMENT.startBlock', 'must be a whole number >= 0', { value: d.startBlock.toString() })
    out.startBlock = Number(d.startBlock)
  }
  return out
}

/**
 * Builds the settings from the environment. `framework` returns the MetaMask framework's addresses for
 * public chains (getSmartAccountsEnvironment); it is not called for the local chain, whose framework is
 * deployed per run and must come from BARDO_DEPLOYMENT.
 */
export function loadIndexerSettings(env: Record<string, string | undefined>, framework?: FrameworkLookup): IndexerSettings {
  const chainId = parseInteger(env, 'BARDO_CHAIN_ID', LOCAL_CHAIN_ID, 1)
  const rpcUrl = env.BARDO_RPC_URL ?? (chainId === LOCAL_CHAIN_ID ? 'http://127.0.0.1:8545' : undefined)
  if (rpcUrl === undefined || !/^(https?|wss?):\/\//.test(rpcUrl)) fail('BARDO_RPC_URL', 'must be an http(s) or ws(s) URL', { chainId })
  const deployment = parseDeployment(env.BARDO_DEPLOYMENT)
  if (deployment.chainId !== undefined && deployment.chainId !== chainId)
    fail('BARDO_DEPLOYMENT.chainId', `the deployment is for chain ${deployment.chainId}, the chain is ${chainId}`)

  let defaults: {
    delegationManager?: Address
    entryPoint?: Address
    enforcers: Partial<Record<EnforcerName, Address>>
    caveatEnforcers?: Record<string, Address>
  } = { enforcers: {} }
  if (chainId !== LOCAL_CHAIN_ID && framework !== undefined) {
    let fw: ReturnType<FrameworkLookup> | undefined
    try {
      fw = framework(chainId)
    } catch {
      fw = undefined // unknown chain: every address must come from BARDO_DEPLOYMENT
    }
    if (fw !== undefined) {
      defaults = {
        delegationManager: fw.DelegationManager,
        ...(fw.EntryPoint === undefined ? {} : { entryPoint: fw.EntryPoint }),
        enforcers: {
          erc20PeriodTransfer: fw.caveatEnforcers.ERC20PeriodTransferEnforcer,
          nativeTokenPeriodTransfer: fw.caveatEnforcers.NativeTokenPeriodTransferEnforcer,
        },
        caveatEnforcers: fw.caveatEnforcers,
      }
    }
  }

  const unconfigured: string[] = []
  const pick = (name: string, ...candidates: (Address | undefined)[]): Address => {
    const found = candidates.find((c) => c !== undefined)
    if (found === undefined) unconfigured.push(name)
    return found ?? UNCONFIGURED
  }
  const enforcers = Object.fromEntries(
    ENFORCER_NAMES.map((name) => [name, pick(`enforcers.${name}`, deployment.enforcers?.[name.toLowerCase()], defaults.enforcers[name])]),
  ) as Record<EnforcerName, Address>
  const addresses: ResolvedAddresses = {
    vitalityOracle: pick('vitalityOracle', deployment.vitalityOracle),
    dreamOracle: pick('dreamOracle', deployment.dreamOracle),
    daimonOracle: pick('daimonOracle', deployment.daimonOracle),
    delegationManager: pick('delegationManager', deployment.delegationManager, defaults.delegationManager),
    enforcers,
    // The EntryPoint carries every smart account's operations: it is listened to only for named councils.
    entryPoint: (deployment.councils ?? []).length === 0 ? UNCONFIGURED : pick('entryPoint', deployment.entryPoint, defaults.entryPoint),
  }
  if ((deployment.councils ?? []).length > 0 && addresses.entryPoint === UNCONFIGURED)
    fail('BARDO_DEPLOYMENT.environment.EntryPoint', 'is required when councils are named')

  const pgliteDir = env.BARDO_INDEXER_PGLITE_DIR
  const databaseUrl = env.DATABASE_URL ?? env.DATABASE_PRIVATE_URL
  const database: IndexerSettings['database'] =
    databaseUrl !== undefined && databaseUrl !== '' && (pgliteDir === undefined || pgliteDir === '')
      ? { kind: 'postgres', connectionString: databaseUrl }
      : { kind: 'pglite', directory: pgliteDir && pgliteDir !== '' ? pgliteDir : '.ponder/pglite' }

  const blockRange = env.BARDO_ETH_GETLOGS_BLOCK_RANGE
  const settings: IndexerSettings = {
    chainId,
    chainName: CHAIN_NAMES[chainId] ?? `chain${chainId}`,
    rpcUrl,
    startBlock: parseInteger(env, 'BARDO_START_BLOCK', deployment.startBlock ?? 0, 0),
    pollingInterval: parseInteger(env, 'BARDO_POLLING_INTERVAL_MS', chainId === LOCAL_CHAIN_ID ? 250 : 1_000, 100),
    addresses,
    bardoEnforcers: Object.entries(deployment.enforcers ?? {})
      .filter(([name]) => bardoEnforcerNames.some((n) => n.toLowerCase() === name))
      .map(([, a]) => a),
    enforcerNames: enforcerNames(deployment.enforcers ?? {}, enforcers),
    caveatNames: caveatNames(deployment, defaults.caveatEnforcers, enforcers),
    unconfigured,
    indexAllDelegations: parseBoolean(env, 'BARDO_INDEX_ALL_DELEGATIONS', false),
    prices: deployment.prices ?? {},
    councils: (deployment.councils ?? []).map((c) => c.toLowerCase() as Address),
    database,
  }
  if (blockRange !== undefined && blockRange !== '')
    settings.ethGetLogsBlockRange = parseInteger(env, 'BARDO_ETH_GETLOGS_BLOCK_RANGE', 0, 1)
  return settings
}

function enforcerNames(given: Record<string, Address>, resolved: Record<EnforcerName, Address>): Record<string, string> {
  const names: Record<string, string> = {}
  for (const [name, a] of Object.entries(given)) names[a.toLowerCase()] = name
  for (const [name, a] of Object.entries(resolved)) if (a !== UNCONFIGURED) names[a.toLowerCase()] = name.toLowerCase()
  return names
}

/**
 * Names for every enforcer the deployment knows: the framework's by contract name, then Bardo's nine in
 * their own spelling (`vaultNav`), which win; the two period enforcers keep their camel-case names.
 */
function caveatNames(
  deployment: IndexerDeployment,
  framework: Record<string, Address> | undefined,
  resolved: Record<EnforcerName, Address>,
): Record<string, string> {
  const names: Record<string, string> = {}
  for (const [name, a] of Object.entries({ ...framework, ...deployment.caveatEnforcers })) names[a.toLowerCase()] = caveatName(name)
  for (const [name, a] of Object.entries(resolved)) if (a !== UNCONFIGURED) names[a.toLowerCase()] = name
  for (const [key, a] of Object.entries(deployment.enforcers ?? {})) {
    const bardo = bardoEnforcerNames.find((n) => n.toLowerCase() === key)
    if (bardo !== undefined) names[a.toLowerCase()] = bardo
  }
  return names
}

function parseBoolean(env: Record<string, string | undefined>, name: string, fallback: boolean): boolean {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (raw === 'true' || raw === '1') return true
  if (raw === 'false' || raw === '0') return false
  fail(name, 'must be true or false', { value: raw })
}

/** The environment a child `ponder start` needs for these inputs (used by tests, the bench and the runner). */
export function indexerEnv(input: {
  chainId: number
  rpcUrl: string
  /** The deployment as JSON holds it (toIndexerDeployment's result). */
  deployment: DeploymentJson
  startBlock?: number | bigint
  pgliteDir?: string
  pollingInterval?: number
  indexAllDelegations?: boolean
}): Record<string, string> {
  const env: Record<string, string> = {
    BARDO_CHAIN_ID: String(input.chainId),
    BARDO_RPC_URL: input.rpcUrl,
    BARDO_DEPLOYMENT: JSON.stringify(input.deployment),
  }
  // Without an explicit start block the deployment's own startBlock (or 0) applies.
  if (input.startBlock !== undefined) env.BARDO_START_BLOCK = String(input.startBlock)
  if (input.pgliteDir !== undefined) env.BARDO_INDEXER_PGLITE_DIR = input.pgliteDir
  if (input.pollingInterval !== undefined) env.BARDO_POLLING_INTERVAL_MS = String(input.pollingInterval)
  if (input.indexAllDelegations !== undefined) env.BARDO_INDEX_ALL_DELEGATIONS = String(input.indexAllDelegations)
  return env
}
