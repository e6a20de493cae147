// The API for the local runner: the same app and services as on Lambda, wired from what the runner
// holds in memory (the devnet's clients and deployment, the dynalite store, the indexer's URL).
// Serve it with serveApi(createLocalApi(...)) from ./server.ts.
import type { ConfirmationDepths } from '../../core/finality.ts'
import { randomBytes } from 'node:crypto'
import {
  erc20Abi,
  keccak256,
  parseEther,
  stringToHex,
  type Account,
  type Address,
  type Chain,
  type LocalAccount,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { BardoDeployment } from '../../core/deployment.ts'
import type { Store } from '../../core/store/index.ts'
import type { CouncilStore } from '../../core/council/store.ts'
import type { GolemPricing } from '../../core/x402/index.ts'
import { createApp, type ApiApp } from './app.ts'
import type { ApiConfig, ApiDeps, Clock } from './deps.ts'
import { createApiDeps, walletOver, type ApiWiring } from './wiring.ts'
import type { SignerResolver } from '../../core/custody/signerResolver.ts'
import type { ReplicantSpawning } from '../../app/actions/spawnReplicant.ts'
import { FunctionConfigError } from '../shared/configError.ts'

/**
 * How long the local API waits for the local indexer before a history read answers 503. Locally Ponder
 * on PGlite shares the machine with the chain, the store, the ticks and the page, and while it catches up
 * on a burst of blocks one read can take several seconds; a deployment keeps the API's 5 s.
 */
export const LOCAL_INDEXER_TIMEOUT_MS = 20_000

/** $0.50 per runtime hour; the death reserve buys 24 hours of runtime (docs/api.md, "Payments"). */
export const DEFAULT_PRICING: GolemPricing = { runtimeCostPerHour: 500_000n, deathReserve: 12_000_000n }

export type LocalApiOptions = {
  store: Store
  publicClient: PublicClient<Transport, Chain>
  deployment: BardoDeployment
  /** The x402 payment asset: the chain's USDC (TestUSDC on the devnet); defaults to `deployment.assets.usdc`. */
  asset?: Address
  /** The operator: x402 payments go to it, and it is every local Golem's Clade operator. */
  operator: Address | Account
  /** Submits transferWithAuthorization and pays the gas: an account (sent through publicClient) or a wallet. */
  settlement: Account | WalletClient<Transport, Chain, Account>
  indexerUrl?: string | undefined
  pricing?: GolemPricing
  /** Overrides of the local defaults (origins of a local Portal, a fixed Clade secret, limits). */
  config?: Partial<ApiConfig>
  clock?: Clock
  /** The Golems' signers: with them the API serves the action path for the Golems' runtimes. */
  signers?: SignerResolver
  /** What spawning a Replicant needs (local/replicants.ts): with it and `signers` the action path spawns them. */
  replicants?: ReplicantSpawning
  /** Onboarding through the owner's wallet (the runner wires it with the operator and the Golems' keys). */
  onboarding?: ApiDeps['onboarding']
  /** The Alchemy Notify webhook's signing key and the invoker its ticks run on (the local heartbeat's). */
  alchemyWebhook?: ApiWiring['alchemyWebhook']
  /** How long a head read answers later requests (ms); default from the chain's block interval (ApiWiring). */
  headMaxAgeMs?: number
  /**
   * Where councils are kept; default the store itself when it keeps them (the local stack's and the tests'
   * stores do), null: no councils are served.
   */
  councilStore?: CouncilStore | null
  /** ETH the settlement account sends each council it deploys, for its first proposals; default 0.05 ETH. */
  councilGasBootstrap?: bigint
  /** Signs x402 offers and receipts; default the local stack's (localReceiptSigner), null: none are signed. */
  receiptSigner?: LocalAccount | null
  /** Confirmation depths per chain id (the devnet's default is one block: a credit is final at its receipt). */
  confirmations?: ConfirmationDepths
  onUnexpectedError?: (error: unknown) => void
}

/**
 * The local stack's receipt-signing key: derived from the deployment, so every API instance on one
 * devnet signs with the same key. Anyone can derive it, like the devnet's own keys: local only.
 */
export function localReceiptSigner(deployment: BardoDeployment): LocalAccount {
  return privateKeyToAccount(keccak256(stringToHex(`bardo local receipt signer:${deployment.chainId}:${deployment.vitalityOracle}`)))
}

function paymentAsset(o: LocalApiOptions): Address {
  const asset = o.asset ?? o.deployment.assets?.usdc
  if (!asset)
    throw new FunctionConfigError("asset: the x402 payment asset (the chain's USDC) must be given for a chain without local assets")
  return asset
}

/** The store's council items, when it keeps them. */
const councilStoreOf = (store: Store): CouncilStore | undefined =>
  'createCouncil' in store && 'createCouncilProposal' in store ? (store as Store & CouncilStore) : undefined

/** The local assets' price feeds, with each token's decimals as the token reports them. */
function localFeeds(o: LocalApiOptions) {
  const assets = o.deployment.assets
  if (!assets) return undefined
  return async () => {
    const priced = [
      { token: assets.usdc, feed: assets.usdcUsdFeed },
      { token: assets.weth, feed: assets.ethUsdFeed },
    ]
    const feeds = await Promise.all(
      priced.map(async (f) => ({
        ...f,
        decimals: await o.publicClient.readContract({ address: f.token, abi: erc20Abi, functionName: 'decimals' }),
      })),
    )
    return { feeds, maxPriceAge: 86_400 }
  }
}

export function createLocalApi(o: LocalApiOptions): ApiApp {
  const operator = typeof o.operator === 'string' ? o.operator : o.operator.address
  const settlement =
    'account' in o.settlement && o.settlement.account !== undefined && 'sendTransaction' in o.settlement
      ? o.settlement
      : walletOver(o.publicClient, o.settlement as Account)
  const councilStore = o.councilStore === null ? undefined : (o.councilStore ?? councilStoreOf(o.store))
  const feeds = localFeeds(o)
  const config: ApiConfig = {
    chainId: o.deployment.chainId,
    // 'null' is the Snap: MetaMask runs it in a sandboxed iframe whose requests carry Origin: null.
    allowedOrigins: ['http://localhost:3003', 'http://127.0.0.1:3003', 'null'],
    trustedProxyHops: 0,
    readApiKeyHashes: [],
    // A fresh secret per run: Clade tokens of a previous local run are not valid in this one.
    clade: { hmacSecret: new Uint8Array(randomBytes(32)) },
    ...o.config,
  }
  const deps = createApiDeps({
    config,
    store: o.store,
    publicClient: o.publicClient,
    deployment: o.deployment,
    indexerUrl: o.indexerUrl,
    indexerTimeoutMs: LOCAL_INDEXER_TIMEOUT_MS,
    payments: {
      settlement,
      payTo: operator,
      asset: paymentAsset(o),
      pricing: o.pricing ?? DEFAULT_PRICING,
      confirmationTimeoutMs: 20_000,
      ...(o.confirmations === undefined ? {} : { confirmations: o.confirmations }),
      ...(o.receiptSigner === null ? {} : { receiptSigner: o.receiptSigner ?? localReceiptSigner(o.deployment) }),
    },
    ...(o.clock ? { clock: o.clock } : {}),
    ...(o.signers
      ? { actions: { signers: o.signers, invocationId: 'local-api', ...(o.replicants ? { replicants: o.replicants } : {}) } }
      : {}),
    ...(o.alchemyWebhook ? { alchemyWebhook: o.alchemyWebhook } : {}),
    ...(councilStore
      ? {
          councils: {
            store: councilStore,
            submitter: settlement,
            ...(feeds ? { defaultFeeds: feeds } : {}),
            gasBootstrap: o.councilGasBootstrap ?? parseEther('0.05'),
          },
        }
      : {}),
    ...(o.headMaxAgeMs === undefined ? {} : { headMaxAgeMs: o.headMaxAgeMs }),
    onUnexpectedError:
      o.onUnexpectedError ??
      ((error) => process.stderr.write(`api: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}\n`)),
  })
  return createApp(o.onboarding ? { ...deps, onboarding: o.onboarding } : deps)
}
