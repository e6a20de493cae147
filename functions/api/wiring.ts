// The real services behind ApiDeps, built from a store, a chain client, the deployment and (for x402)
// a settlement wallet. The Lambda handler and the local runner both call createApiDeps; only where the
// pieces come from differs (SST secrets and env vs the devnet in memory).
import { custodyContractsOfDeployment } from '../../core/webhooks/index.ts'
import {
  createWalletClient,
  custom,
  getAddress,
  type Account,
  type Address,
  type Chain,
  type LocalAccount,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem'
import type { OperatorRegistry } from '../../core/clade/operators.ts'
import type { BardoDeployment } from '../../core/deployment.ts'
import { knownTokens, ownerFleet } from '../../app/fleet.ts'
import type { Store } from '../../core/store/index.ts'
import { createInProcessFacilitator } from '../../adapters/x402/settlement.ts'
import { createX402Payments, paymentLedgerFromStore, type GolemPricing } from '../../core/x402/index.ts'
import type { SignerResolver } from '../../core/custody/signerResolver.ts'
import { executeAction } from '../../app/actions/executeAction.ts'
import type { ReplicantSpawning } from '../../app/actions/spawnReplicant.ts'
import { Councils } from '../../app/council/councils.ts'
import { CouncilFormation, type CouncilFormationDeps } from '../../app/council/formation.ts'
import { serialSender } from '../../adapters/chain/serialSender.ts'
import { BardoError } from '../../core/errors.ts'
import type { CouncilStore } from '../../core/council/store.ts'
import { StoreCladeService, type CladeService } from './cladeService.ts'
import type { ApiConfig, ApiDeps, BearerVerifier, Clock, GolemRegistry, SnapDeploymentInfo } from './deps.ts'
import { IndexerClient } from './indexerClient.ts'
import { createPaymentExtensions, receiptSignerInfo } from './paymentExtensions.ts'
import { createPaymentIdentifiers } from './paymentIdentifier.ts'
import { createPaymentOffers } from './paymentOffers.ts'
import { createX402PaymentRoutes } from './payments.ts'
import type { ActionRouteDeps } from './deps.ts'
import { ChainGolemState } from './services/chainState.ts'
import { StoreRenewalService } from '../../app/renewal.ts'
import { StoreRotationGrantService } from '../../app/rotationGrant.ts'
import { StoreAdjustmentService } from '../../app/adjustment.ts'
import { OwnerDrafts } from '../../app/ownerDrafts.ts'
import { ObserverGrants } from '../../app/observers.ts'
import { revocationService } from '../../app/revocation.ts'
import { indexerHistory, noIndexerHistory } from './services/indexerHistory.ts'
import { StoreGolemJournal } from './services/journal.ts'
import { StoreMetabolism } from './services/metabolism.ts'
import { StoreGolemRegistry } from './services/storeRegistry.ts'
import type { AlchemySigningKey } from '../../core/webhooks/index.ts'
import type { TickInvoker } from '../../app/heartbeat/handOver.ts'
import { confirmationDepth, type ConfirmationDepths } from '../../core/finality.ts'
import { chainCreditStanding } from '../../adapters/x402/creditStanding.ts'
import { storeCustodyWebhook } from './services/custodyWebhook.ts'
import { cladeNoncesFromStore, deviceAuthFromStore, rateLimitCountersFromStore, snapTokensFromStore } from './storeAdapters.ts'

export type ApiPaymentWiring = {
  /** Submits transferWithAuthorization and pays its gas (deployed: the SettlementKey account). */
  settlement: WalletClient<Transport, Chain, Account>
  /** Who is paid: the operator. */
  payTo: Address
  /** The chain's USDC (locally TestUSDC) and its EIP-712 domain. */
  asset: Address
  tokenName?: string
  tokenVersion?: string
  pricing: GolemPricing
  /** Keep it under the function's deadline: a slow chain then answers 503 pending instead of being killed. */
  confirmationTimeoutMs?: number
  /**
   * Confirmation depths per chain id over core/finality.ts's defaults. Above one block a credit is
   * applied only once its settlement is that deep; until then it is confirming (adapters/x402/creditStanding.ts).
   */
  confirmations?: ConfirmationDepths
  /** Names this deployment's payment ledger in settlement tags; distinct per stage (see core/x402/settlementTag.ts). */
  ledgerId?: string
  /** How long a payment identifier (x402 idempotency) is remembered; default 24 h. */
  paymentIdTtlMs?: number
  /** Signs x402 offers and receipts: the API's own key, never the settlement or operator key. Absent: none are signed. */
  receiptSigner?: LocalAccount
  /**
   * Offer and accept payment by ERC-7710 delegation, redeemed by the settlement account through the
   * deployment's DelegationManager. Default: on when the deployment has the framework's RedeemerEnforcer.
   */
  erc7710?: boolean
}

export type ApiWiring = {
  config: ApiConfig
  store: Store
  publicClient: PublicClient<Transport, Chain>
  deployment: BardoDeployment
  /** The indexer's base URL; without it history routes answer 503 INDEXER_UNAVAILABLE. */
  indexerUrl?: string | undefined
  /** How long a read of the indexer may take before it answers 503 INDEXER_UNAVAILABLE (default 5 s). */
  indexerTimeoutMs?: number
  /** Without it /extend and /feed answer 501 NOT_IMPLEMENTED. */
  payments?: ApiPaymentWiring | undefined
  /** The platform operator for Clade's same-operator check (every Golem in the store has it). */
  cladeOperator?: Address | undefined
  clock?: Clock
  clade?: CladeService
  /**
   * The Golems' signers, for the action path (POST /api/v1/golems/:id/actions); without them the route
   * is not served. `invocationId` names this process as the holder of an action's send slot. With
   * `replicants` (a key issuer, the operator's sender, the USD feeds) the route spawns Replicants too;
   * without it a `spawnReplicant` request is refused naming `actions[<i>].kind`.
   */
  actions?: { signers: SignerResolver; invocationId: string; replicants?: ReplicantSpawning | undefined } | undefined
  bearer?: BearerVerifier
  /**
   * The Alchemy Notify webhook: its signing key, and the invoker that runs the ticks it asks for (the
   * heartbeat's). Without it POST /api/v1/webhooks/alchemy answers 501 NOT_IMPLEMENTED.
   */
  alchemyWebhook?: { signingKey: AlchemySigningKey; invoker: TickInvoker } | undefined
  /**
   * The councils owners form here: the store that keeps them (the same table), and the API's own account
   * that deploys each council and submits its k-signed user operations. Without it neither the owner's
   * council routes nor /council/v1/* are served.
   */
  councils?:
    | {
        store: CouncilStore
        submitter: WalletClient<Transport, Chain, Account>
        /** Price feeds for a scope that names none (the local assets'); without them the owner names them. */
        defaultFeeds?: CouncilFormationDeps['defaultFeeds']
        /** ETH the submitter sends a council it deployed, for its first user operations; default 0. */
        gasBootstrap?: bigint
      }
    | undefined
  /**
   * How long a head read answers later requests (ms). Default: half the chain's block interval when the
   * chain states one (Base: 1,000 ms), so no answer is staler than one block; 0 when it does not
   * (an automining devnet), so every request reads a head sent after it arrived.
   */
  headMaxAgeMs?: number
  onUnexpectedError?: (error: unknown) => void
}

/** Half the chain's block interval, or 0 when the chain states none. */
export function defaultHeadMaxAgeMs(chain: Pick<Chain, 'blockTime'> | undefined): number {
  const blockTime = chain?.blockTime
  return blockTime !== undefined && blockTime > 0 ? Math.floor(blockTime / 2) : 0
}

/**
 * One operator runs every Golem of this deployment: a Golem is a Clade member while the store knows
 * it by its current key and it is not dead. (Multi-operator Clades need another OperatorRegistry, such
 * as one over an ERC-8004 identity registry.)
 */
export function storeOperatorRegistry(golems: GolemRegistry, operator: Address): OperatorRegistry {
  const op = getAddress(operator)
  return {
    async operatorOf(agent) {
      const golem = await golems.getGolem(agent)
      return golem && golem.lifecycle !== 'dead' && golem.address.toLowerCase() === agent.toLowerCase() ? op : undefined
    },
  }
}

/** A wallet that sends through the given public client's transport (one RPC configuration). */
export function walletOver(publicClient: PublicClient<Transport, Chain>, account: Account): WalletClient<Transport, Chain, Account> {
  const transport = custom({ request: (args) => publicClient.request(args as never) })
  return createWalletClient({
    chain: publicClient.chain,
    transport,
    account,
    pollingInterval: publicClient.pollingInterval,
  }) as WalletClient<Transport, Chain, Account>
}

/** What the Snap is told at pairing: addresses only (the deployment block and local assets stay here). */
export function snapDeploymentInfo(d: BardoDeployment, usdc: Address | undefined): SnapDeploymentInfo {
  const token = usdc ?? d.assets?.usdc
  return {
    chainId: d.chainId,
    environment: d.environment,
    vitalityOracle: d.vitalityOracle,
    dreamOracle: d.dreamOracle,
    daimonOracle: d.daimonOracle,
    enforcers: d.enforcers,
    // The payment and runway token is the chain's USDC (6 decimals).
    tokens: token ? { [token.toLowerCase()]: { symbol: 'USDC', decimals: 6 } } : {},
  }
}

/** The dashboard's reads, where the runway token is known (the payment asset, else the deployment's USDC). */
function fleetService(w: ApiWiring): Pick<ApiDeps, 'fleet'> {
  const usdc = w.payments?.asset ?? w.deployment.assets?.usdc
  if (!usdc) return {}
  const chain = { publicClient: w.publicClient as PublicClient, deployment: w.deployment, usdc }
  const config = {
    chainId: w.deployment.chainId,
    network: `eip155:${w.deployment.chainId}`,
    usdc,
    tokens: knownTokens(chain),
    indexer: w.indexerUrl !== undefined,
  }
  return { fleet: { config: () => config, golems: (owner) => ownerFleet(w.store, chain, owner) } }
}

export function createApiDeps(w: ApiWiring): ApiDeps {
  const clock: Clock = w.clock ?? { now: () => Date.now() }
  const golems = new StoreGolemRegistry({ store: w.store })
  const indexer = w.indexerUrl ? new IndexerClient({ baseUrl: w.indexerUrl, timeoutMs: w.indexerTimeoutMs }) : undefined
  const state = new ChainGolemState({
    client: w.publicClient as PublicClient,
    deployment: w.deployment,
    store: w.store,
    headMaxAgeMs: w.headMaxAgeMs ?? defaultHeadMaxAgeMs(w.publicClient.chain),
    ...(indexer ? { lastRedemptionAt: (g) => indexer.latestRedemptionAt(g.address) } : {}),
    ...(w.onUnexpectedError ? { onUnexpectedError: w.onUnexpectedError } : {}),
  })
  const chainNow = async () => (await w.publicClient.getBlock({ blockTag: 'latest' })).timestamp
  let payments: ApiDeps['payments']
  if (w.payments) {
    const p = w.payments
    const redeemerEnforcer = w.deployment.environment.caveatEnforcers.RedeemerEnforcer
    const erc7710 =
      p.erc7710 !== false && redeemerEnforcer !== undefined
        ? { delegationManager: w.deployment.environment.DelegationManager, redeemerEnforcer }
        : undefined
    const facilitator = createInProcessFacilitator({
      publicClient: w.publicClient,
      walletClient: p.settlement,
      networks: [`eip155:${w.config.chainId}`],
      confirmationTimeoutMs: p.confirmationTimeoutMs ?? 20_000,
      ...(erc7710 === undefined ? {} : { erc7710: { delegationManager: erc7710.delegationManager } }),
    })
    // At one block a settlement is final at its receipt; deeper, a credit waits for its settlement's depth.
    const depth = confirmationDepth(w.config.chainId, p.confirmations)
    const standing =
      depth > 1
        ? chainCreditStanding({
            client: w.publicClient,
            asset: p.asset,
            depth,
            findSettlement: (query) => facilitator.findSettlement(query),
            ...(w.onUnexpectedError ? { onUnexpectedError: w.onUnexpectedError } : {}),
          })
        : undefined
    const x402 = createX402Payments({
      config: {
        chainId: w.config.chainId,
        asset: p.asset,
        payTo: p.payTo,
        pricing: p.pricing,
        ...(p.tokenName === undefined ? {} : { tokenName: p.tokenName }),
        ...(p.tokenVersion === undefined ? {} : { tokenVersion: p.tokenVersion }),
        ...(p.ledgerId === undefined ? {} : { ledgerId: p.ledgerId }),
        ...(erc7710 === undefined ? {} : { erc7710 }),
      },
      ledger: paymentLedgerFromStore(w.store),
      facilitator,
      now: () => clock.now(),
      ...(w.onUnexpectedError ? { onUnexpectedError: w.onUnexpectedError } : {}),
    })
    payments = createX402PaymentRoutes({
      payments: x402,
      credit: { store: w.store, chainNow, ...(standing === undefined ? {} : { standing }) },
      offers: createPaymentOffers(erc7710 === undefined ? {} : { erc7710: { facilitator: p.settlement.account.address } }),
      extensions: createPaymentExtensions(p.receiptSigner === undefined ? {} : { receiptSigner: p.receiptSigner }),
      ...(p.receiptSigner === undefined ? {} : { signer: receiptSignerInfo(p.receiptSigner) }),
      identifiers: createPaymentIdentifiers({
        store: w.store,
        now: () => clock.now(),
        ...(p.paymentIdTtlMs === undefined ? {} : { ttlMs: p.paymentIdTtlMs }),
        ...(w.onUnexpectedError ? { onUnexpectedError: w.onUnexpectedError } : {}),
      }),
      ...(w.onUnexpectedError ? { onUnexpectedError: w.onUnexpectedError } : {}),
    })
  }
  const cladeOperator = w.cladeOperator ?? w.payments?.payTo
  return {
    config: w.config,
    clock,
    stores: {
      rateLimits: rateLimitCountersFromStore(w.store),
      nonces: cladeNoncesFromStore(w.store),
      snapTokens: snapTokensFromStore(w.store, clock),
      deviceAuth: deviceAuthFromStore(w.store),
    },
    golems,
    health: state,
    history: indexer ? indexerHistory(indexer) : noIndexerHistory,
    journal: new StoreGolemJournal(w.store),
    chain: state,
    operators: cladeOperator ? storeOperatorRegistry(golems, cladeOperator) : { operatorOf: async () => undefined },
    clade: w.clade ?? new StoreCladeService(w.store),
    ...(payments ? { payments } : {}),
    ...(w.payments
      ? { metabolism: new StoreMetabolism({ store: w.store, runtimeCostPerHour: w.payments.pricing.runtimeCostPerHour, now: chainNow }) }
      : {}),
    ownerSignatures: { verifyMessage: (p) => w.publicClient.verifyMessage(p) },
    snapDeployment: snapDeploymentInfo(w.deployment, w.payments?.asset),
    ...fleetService(w),
    renewals: new StoreRenewalService({ store: w.store, client: w.publicClient as PublicClient, deployment: w.deployment }),
    rotationGrants: new StoreRotationGrantService({
      store: w.store,
      keys: w.store,
      client: w.publicClient as PublicClient,
      deployment: w.deployment,
    }),
    adjustments: new StoreAdjustmentService({ store: w.store, client: w.publicClient as PublicClient, deployment: w.deployment }),
    ownerDrafts: new OwnerDrafts({ store: w.store, client: w.publicClient as PublicClient, deployment: w.deployment }),
    observers: new ObserverGrants({ store: w.store, client: w.publicClient as PublicClient, deployment: w.deployment }),
    revocations: revocationService({
      store: w.store,
      client: w.publicClient as PublicClient,
      delegationManager: w.deployment.environment.DelegationManager,
      now: () => clock.now(),
    }),
    ...(w.bearer ? { bearer: w.bearer } : {}),
    ...(w.actions ? { actions: actionRoute(w, w.actions) } : {}),
    ...(w.councils ? councilServices(w, w.councils, clock) : {}),
    ...(w.alchemyWebhook
      ? {
          alchemyWebhook: storeCustodyWebhook({
            store: w.store,
            invoker: w.alchemyWebhook.invoker,
            signingKey: w.alchemyWebhook.signingKey,
            contracts: custodyContractsOfDeployment(w.deployment),
          }),
        }
      : {}),
    ...(w.onUnexpectedError ? { onUnexpectedError: w.onUnexpectedError } : {}),
  }
}

function councilServices(
  w: ApiWiring,
  c: NonNullable<ApiWiring['councils']>,
  clock: Clock,
): Pick<ApiDeps, 'councils' | 'councilFormation'> {
  const client = w.publicClient as PublicClient
  return {
    councils: new Councils({
      store: c.store,
      golems: w.store,
      publicClient: client,
      deployment: w.deployment,
      submitter: c.submitter,
      clockMs: () => clock.now(),
    }),
    councilFormation: new CouncilFormation({
      store: c.store,
      golems: w.store,
      client,
      deployment: w.deployment,
      sender: serialSender(
        client,
        c.submitter,
        (hash, call) => new BardoError('COUNCIL_TX_REVERTED', `council: the transaction ${hash} to ${call.to} reverted`),
      ),
      ...(c.defaultFeeds ? { defaultFeeds: c.defaultFeeds } : {}),
      ...(c.gasBootstrap === undefined ? {} : { gasBootstrap: c.gasBootstrap }),
      clockMs: () => clock.now(),
    }),
  }
}

function actionRoute(w: ApiWiring, a: NonNullable<ApiWiring['actions']>): ActionRouteDeps {
  const deps = {
    store: w.store,
    client: w.publicClient as PublicClient,
    deployment: w.deployment,
    signers: a.signers,
    invocationId: a.invocationId,
    ...(a.replicants ? { replicants: a.replicants } : {}),
  }
  return { store: w.store, chainId: w.config.chainId, execute: (input) => executeAction(deps, input) }
}
