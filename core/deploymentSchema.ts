// The deployment file's one rule: every reader (the local runner, the CLI, the functions, the indexer, the
// stack) parses a deployment through this schema, and the writers serialise one with deploymentJson (`bardo
// deploy`, which writes as it goes, parses its file when done), so what is written is what is read. zod's
// mini build keeps the tick's bundle small.
import { isAddress, type Address } from 'viem'
import type { SmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import * as z from './zodMini.ts'
import { BardoError } from './errors.ts'
import { bardoEnforcerNames, type BardoDeployment, type BardoEnforcerName } from './deployment.ts'

const ADDRESS_RULE = 'must be a 0x-prefixed 20-byte address'

const address = z.pipe(
  z
    .string({ error: (issue) => (issue.input === undefined ? `is required and ${ADDRESS_RULE}` : ADDRESS_RULE) })
    .check(z.refine((v) => isAddress(v, { strict: false }), ADDRESS_RULE)),
  z.transform((v: string) => v as Address),
)

const addressRecord = z.record(z.string(), address, { error: 'must be an object of name -> address' })

/** A block number: decimal text (as the writers keep it, a bigint being no JSON number) or a whole number. */
const BLOCK_RULE = 'must be a whole number >= 0 (a number or decimal text)'
const blockNumber = z.pipe(
  z.union([z.string().check(z.regex(/^\d+$/, BLOCK_RULE)), z.number().check(z.int(BLOCK_RULE), z.nonnegative(BLOCK_RULE))], {
    error: BLOCK_RULE,
  }),
  z.transform((v: string | number) => BigInt(v)),
)

/** An object's error: a key it does not declare is named as such, anything else gets `rule`. */
const objectError = (rule: string, unknownKey: string) => (issue: { code: string; input?: unknown }) =>
  issue.code === 'unrecognized_keys' ? unknownKey : issue.input === undefined ? `is required and ${rule}` : rule

const CHAIN_RULE = 'must be a chain id (a whole number > 0)'
const NOT_A_FIELD = 'is not a deployment field (the framework goes under environment)'
const NOT_AN_ENFORCER = "is not one of the nine Bardo enforcers (the framework's go under environment.caveatEnforcers)"
const environmentError = objectError('must be an object of the framework contracts (DelegationManager, …)', 'is not a framework contract')
const enforcersError = objectError('must be an object of the nine Bardo enforcers', NOT_AN_ENFORCER)
const assetsError = objectError('must be an object of the local test assets', 'is not a local test asset')
const deploymentError = objectError('must be a deployment', NOT_A_FIELD)

/** The MetaMask Delegation Framework's contracts, as getSmartAccountsEnvironment names them. */
const environmentFields = {
  DelegationManager: address,
  EntryPoint: address,
  SimpleFactory: address,
  implementations: addressRecord,
  caveatEnforcers: addressRecord,
}

const assetsSchema = z.strictObject(
  { usdc: address, weth: address, ethUsdFeed: address, usdcUsdFeed: address, vault: address, router: address },
  { error: assetsError },
)

const priceSchema = z.strictObject({
  decimals: z
    .number({ error: 'must be a whole number from 0 to 36' })
    .check(
      z.int('must be a whole number from 0 to 36'),
      z.gte(0, 'must be a whole number from 0 to 36'),
      z.lte(36, 'must be a whole number from 0 to 36'),
    ),
  feed: z.optional(address),
})

const tokenKey = z.string().check(z.refine((v) => isAddress(v, { strict: false }), ADDRESS_RULE))

const enforcerFields = {
  ...(Object.fromEntries(bardoEnforcerNames.map((name) => [name, address])) as Record<BardoEnforcerName, typeof address>),
  /** The PolicyCageEnforcer; optional, so deployments made before it still parse. */
  policyCage: z.optional(address),
}

/**
 * The fields, declared once. The oracles, the nine enforcers and (when given) the whole framework are
 * required; chainId and startBlock may be left to the reader (BARDO_CHAIN_ID, block 0); the framework may
 * be left to the MetaMask kit on a chain it knows.
 */
const fields = {
  chainId: z.optional(z.number({ error: CHAIN_RULE }).check(z.int(CHAIN_RULE), z.positive(CHAIN_RULE))),
  startBlock: z.optional(blockNumber),
  environment: z.optional(z.strictObject(environmentFields, { error: environmentError })),
  vitalityOracle: address,
  dreamOracle: address,
  daimonOracle: address,
  /** Each Golem's constitution hash; optional, so deployments made before it still parse. */
  policyCage: z.optional(address),
  enforcers: z.strictObject(enforcerFields, { error: enforcersError }),
  /** The local test assets, on a devnet only. */
  assets: z.optional(assetsSchema),
  /** `bardo deploy` has given the local router its feeds and liquidity. */
  routerReady: z.optional(z.boolean({ error: 'must be true or false' })),
  /** How the indexer values spend in USD, by token address (`0x000…0` is native ETH); added to its defaults. */
  prices: z.optional(
    z.record(tokenKey, priceSchema, {
      error: (issue) => (issue.code === 'invalid_key' ? ADDRESS_RULE : 'must be an object of token address -> { decimals, feed? }'),
    }),
  ),
  /** The Coordination Councils whose executions the indexer follows. */
  councils: z.optional(z.array(address, { error: 'must be a list of council addresses' })),
}

/** A whole deployment: what acts on the chain (the local runner, the CLI, the functions, the stack) reads. */
export const deploymentSchema = z.strictObject(fields, { error: deploymentError })

/**
 * A deployment with any address left out: the indexer pins a contract with no address to one that never
 * emits, so it runs against a partial deployment (and the framework's addresses from the kit); `bardo
 * deploy` resumes from one. Built when first asked for, so a bundle that reads whole deployments only (the
 * tick's) leaves it out.
 */
export function partialDeploymentSchema() {
  return z.partial(
    z.strictObject(
      {
        ...fields,
        environment: z.optional(z.partial(z.strictObject(environmentFields, { error: environmentError }))),
        enforcers: z.optional(z.partial(z.strictObject(enforcerFields, { error: enforcersError }))),
        assets: z.optional(z.partial(assetsSchema)),
      },
      { error: deploymentError },
    ),
  )
}

export type DeploymentFile = z.output<typeof deploymentSchema>
export type PartialDeploymentFile = z.output<ReturnType<typeof partialDeploymentSchema>>
/** A deployment as JSON keeps it: startBlock as decimal text. */
export type DeploymentJson = Omit<PartialDeploymentFile, 'startBlock'> & { startBlock?: string }

/** A deployment refused by the schema: `field` is the path from the reader's root (`BARDO_DEPLOYMENT.enforcers.vaultNav`). */
export class DeploymentError extends BardoError {
  readonly field: string
  readonly rule: string
  constructor(field: string, rule: string) {
    super('DEPLOYMENT_INVALID', `${field}: ${rule}`, { details: { field } })
    this.field = field
    this.rule = rule
  }
}

function refusal(root: string, issues: readonly z.core.$ZodIssue[]): DeploymentError {
  const issue = issues[0]
  if (issue === undefined) return new DeploymentError(root, 'must be a deployment')
  const path = issue.path.map(String)
  // An unknown key is reported on its object; name the key itself.
  if (issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined) path.push(issue.keys[0])
  return new DeploymentError([root, ...path].join('.'), issue.message)
}

function checked<S extends z.ZodMiniType>(schema: S, json: unknown, root: string): z.output<S> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new DeploymentError(root, 'must be a JSON object')
  const parsed = z.safeParse(schema, json)
  if (!parsed.success) throw refusal(root, parsed.error.issues)
  return parsed.data
}

/** Parses a whole deployment as its file holds it, for the chain `chainId`: a file naming another chain is refused. */
export function parseDeploymentFile(json: unknown, o: { root: string; chainId: number }): DeploymentFile {
  const d = checked(deploymentSchema, json, o.root)
  if (d.chainId !== undefined && d.chainId !== o.chainId)
    throw new DeploymentError(`${o.root}.chainId`, `the deployment is for chain ${d.chainId}, the chain is ${o.chainId}`)
  return d
}

/**
 * Parses a whole deployment for the chain `chainId` (parseDeploymentFile). A file without the framework
 * gets `framework(chainId)` (the kit's table, or what a tick is handed); a chain the kit does not know
 * must carry its own.
 */
export function parseDeployment<Framework>(
  json: unknown,
  o: { root: string; chainId: number; framework: (chainId: number) => Framework },
): Omit<BardoDeployment, 'environment'> & { environment: SmartAccountsEnvironment | Framework } {
  const d = parseDeploymentFile(json, o)
  let environment: SmartAccountsEnvironment | Framework | undefined = d.environment
  if (environment === undefined) {
    try {
      environment = o.framework(o.chainId)
    } catch (error) {
      // The reader's own refusal (a tick's missing BARDO_FRAMEWORK) stands; the kit's is a chain it does not know.
      if (error instanceof BardoError) throw error
      throw new DeploymentError(`${o.root}.environment`, `is required: chain ${o.chainId} is not one the MetaMask kit knows`)
    }
  }
  const { routerReady: _ready, prices: _prices, councils: _councils, assets, ...rest } = d
  return {
    ...rest,
    chainId: o.chainId,
    startBlock: d.startBlock ?? 0n,
    environment,
    ...(assets === undefined ? {} : { assets }),
  }
}

/** Parses a deployment any address may be missing from (the indexer's). */
export function parsePartialDeployment(json: unknown, root: string): PartialDeploymentFile {
  return checked(partialDeploymentSchema(), json, root)
}

/** A deployment as the file (and BARDO_DEPLOYMENT) holds it: what parseDeployment reads back. */
export function deploymentJson(d: PartialDeploymentFile): DeploymentJson {
  const { startBlock, ...rest } = d
  return { ...rest, ...(startBlock === undefined ? {} : { startBlock: startBlock.toString() }) }
}
