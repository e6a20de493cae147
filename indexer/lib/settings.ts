// Reads the indexer's network, addresses and database from environment variables, so one Ponder app
// serves the local anvil devnet, Base Sepolia and Base without code changes.
import { readFileSync } from 'node:fs'
import { getAddress, isAddress, type Address } from 'viem'
import { BardoError } from '../../core/errors.ts'
import { bardoEnforcerNames } from '../../core/deployment.ts'
import type { TokenPrice } from './usd.ts'
import { caveatName } from './actions.ts'

/** Where the Bardo contracts (and the framework pieces the indexer reads) live on the indexed chain. */
export type IndexerDeployment = {
  vitalityOracle?: Address
  dreamOracle?: Address
  daimonOracle?: Address
  delegationManager?: Address
  /**
   * Keyed by name, with or without "Enforcer", any case (`dailySpendLimit`, `DailySpendLimitEnforcer`);
   * stored lower-cased. List all nine Bardo enforcers: any of them in a delegation's caveats marks it
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

/** `DailySpendLimitEnforcer`, `dailySpendLimit` and `dailyspendlimit` all name the same enforcer. */
function normaliseEnforcerKey(key: string): string {
  return (key.endsWith('Enforcer') ? key.slice(0, -'Enforcer'.length) : key).toLowerCase()
}

function address(field: string, value: unknown): Address {
  if (typeof value !== 'string' || !isAddress(value, { strict: false })) fail(field, 'must be a 0x-prefixed 20-byte address', { value })
  return getAddress(value)
}

/** Parses BARDO_DEPLOYMENT: inline JSON, or a path to a JSON file. */
export function parseDeployment(raw: string | undefined): IndexerDeployment {
  if (raw === undefined || raw.trim() === '') return {}
  let text = raw.trim()
  if (!text.startsWith('{')) {
    try {
      text = readFileSync(text, 'utf8')
    } catch (error) {
      fail('BARDO_DEPLOYMENT', 'must be JSON or the path of a readable JSON file', { path: raw, cause: String(error) })
    }
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    fail('BARDO_DEPLOYMENT', 'must be valid JSON')
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) fail('BARDO_DEPLOYMENT', 'must be a JSON object')
  const obj = json as Record<string, unknown>
  const out: IndexerDeployment = {}
  for (const key of ['vitalityOracle', 'dreamOracle', 'daimonOracle', 'delegationManager'] as const) {
    if (obj[key] !== undefined && obj[key] !== null) out[key] = address(`BARDO_DEPLOYMENT.${key}`, obj[key])
  }
  const enforcers: Record<string, Address> = {}
  // The devnet's BardoDeployment carries the framework as `environment` (DelegationManager, caveatEnforcers).
  const environment = obj.environment as
    | { DelegationManager?: unknown; EntryPoint?: unknown; caveatEnforcers?: Record<string, unknown> }
    | undefined
  if (obj.entryPoint !== undefined && obj.entryPoint !== null) out.entryPoint = address('BARDO_DEPLOYMENT.entryPoint', obj.entryPoint)
  if (typeof environment === 'object' && environment !== null) {
    if (out.entryPoint === undefined && environment.EntryPoint !== undefined)
      out.entryPoint = address('BARDO_DEPLOYMENT.environment.EntryPoint', environment.EntryPoint)
    if (out.delegationManager === undefined && environment.DelegationManager !== undefined) {
      out.delegationManager = address('BARDO_DEPLOYMENT.environment.DelegationManager', environment.DelegationManager)
    }
    for (const name of ['ERC20PeriodTransferEnforcer', 'NativeTokenPeriodTransferEnforcer']) {
      const value = environment.caveatEnforcers?.[name]
      if (value !== undefined)
        enforcers[normaliseEnforcerKey(name)] = address(`BARDO_DEPLOYMENT.environment.caveatEnforcers.${name}`, value)
    }
    if (typeof environment.caveatEnforcers === 'object' && environment.caveatEnforcers !== null)
      out.caveatEnforcers = addressMap('BARDO_DEPLOYMENT.environment.caveatEnforcers', environment.caveatEnforcers)
  }
  if (obj.caveatEnforcers !== undefined && obj.caveatEnforcers !== null)
    out.caveatEnforcers = { ...out.caveatEnforcers, ...addressMap('BARDO_DEPLOYMENT.caveatEnforcers', obj.caveatEnforcers) }
  if (obj.enforcers !== undefined && obj.enforcers !== null) {
    if (typeof obj.enforcers !== 'object' || Array.isArray(obj.enforcers))
      fail('BARDO_DEPLOYMENT.enforcers', 'must be an object of name -> address')
    for (const [key, value] of Object.entries(obj.enforcers as Record<string, unknown>)) {
      if (value !== undefined && value !== null) enforcers[normaliseEnforcerKey(key)] = address(`BARDO_DEPLOYMENT.enforcers.${key}`, value)
    }
  }
  if (Object.keys(enforcers).length > 0) out.enforcers = enforcers
  if (obj.prices !== undefined && obj.prices !== null) out.prices = parsePrices(obj.prices)
  if (obj.councils !== undefined && obj.councils !== null) {
    if (!Array.isArray(obj.councils)) fail('BARDO_DEPLOYMENT.councils', 'must be a list of council addresses')
    out.councils = obj.councils.map((c, i) => address(`BARDO_DEPLOYMENT.councils.${i}`, c))
  }
  if (obj.startBlock !== undefined && obj.startBlock !== null) {
    const value = Number(obj.startBlock)
    if (!Number.isSafeInteger(value) || value < 0)
      fail('BARDO_DEPLOYMENT.startBlock', 'must be a whole number >= 0', { value: obj.startBlock })
    out.startBlock = value
  }
  return out
}

function addressMap(field: string, raw: unknown): Record<string, Address> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail(field, 'must be an object of name -> address')
  const out: Record<string, Address> = {}
  for (const [key, value] of Object.entries(raw as Record<string, unknown>))
    if (value !== undefined && value !== null) out[key] = address(`${field}.${key}`, value)
  return out
}

function parsePrices(raw: unknown): Record<string, TokenPrice> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    fail('BARDO_DEPLOYMENT.prices', 'must be an object of token address -> { decimals, feed? }')
  const out: Record<string, TokenPrice> = {}
  for (const [token, value] of Object.entries(raw as Record<string, unknown>)) {
    const field = `BARDO_DEPLOYMENT.prices.${token}`
    const key = address(field, token).toLowerCase()
    if (typeof value !== 'object' || value === null) fail(field, 'must be { decimals, feed? }')
    const { decimals, feed } = value as { decimals?: unknown; feed?: unknown }
    if (typeof decimals !== 'number' || !Number.isInteger(decimals) || decimals < 0 || decimals > 36)
      fail(`${field}.decimals`, 'must be a whole number from 0 to 36')
    out[key] = feed === undefined || feed === null ? { decimals } : { decimals, feed: address(`${field}.feed`, feed) }
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
    fail('BARDO_DEPLOYMENT.entryPoint', 'is required when councils are named (or environment.EntryPoint)')

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
  deployment: IndexerDeployment
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
