// What the API needs from the world, as small interfaces: tests build the app with fakes, the local
// runner and the Lambda handler with the real store, indexer and chain readers.
import type { StatedVitalSigns } from '../../core/lifecycle/vitalSigns.ts'
import type { Context, MiddlewareHandler } from 'hono'
import type { SmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import type { Address, Hex } from 'viem'
import type { BardoEnforcerName } from '../../core/deployment.ts'
import type { NonceStore, OperatorRegistry } from '../../core/clade/index.ts'
import type { GolemHealth } from '../../core/health/golemHealth.ts'
import type { Metabolism } from '../../core/lifecycle/metabolism.ts'
import type { RenewalService } from '../../app/renewal.ts'
import type { RotationGrantService } from '../../app/rotationGrant.ts'
import type { AdjustmentService } from '../../app/adjustment.ts'
import type { OwnerDrafts } from '../../app/ownerDrafts.ts'
import type { ObserverGrants } from '../../app/observers.ts'
import type { OnboardingService } from '../../app/onboarding/onboarding.ts'
import type { RevocationPlan } from '../../core/custody/revocationPlan.ts'
import type { PaymentCredit } from '../../core/lifecycle/paymentHistory.ts'
import type { PhaseName } from '../../core/lifecycle/phase.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'
import type { RateLimitCounterStore } from '../../core/ratelimit/index.ts'
import type { GolemEvent, Store } from '../../core/store/index.ts'
import type { CladeService } from './cladeService.ts'
import type { ExtendRequest, FeedRequest } from './schemas.ts'
import type { SnapTokenStore } from '../../core/snap/snapToken.ts'
import type { ActionOutcome, ExecuteActionInput } from '../../app/actions/executeAction.ts'
import type { Councils } from '../../app/council/councils.ts'
import type { CouncilFormation } from '../../app/council/formation.ts'
import type { OwnerFleet } from '../../app/fleet.ts'
import type { DeviceAuthStore } from '../../core/auth/deviceStore.ts'
import type { CustodyWebhook } from './services/custodyWebhook.ts'
import type { ReceiptSignerInfo } from './paymentExtensions.ts'

/** Milliseconds since the epoch, like Date.now; injected so tests move time instead of waiting. */
export interface Clock {
  now(): number
}

/** Where a Golem is in its life as far as the API cares; `dying` = the death protocol has begun. */
export type GolemLifecycle = 'alive' | 'dying' | 'dead'

export type GolemView = {
  /** Stable id used in URLs (survives key rotation). */
  id: string
  name: string
  /** The Golem's current key, the VitalityOracle's index. */
  address: Address
  owner: Address
  phase: PhaseName
  /** Vitality in [0, 1] from the last tick. */
  vitality: number
  lifecycle: GolemLifecycle
  /** Unix seconds of the last completed heartbeat tick, null before the first. */
  lastHeartbeatAt: number | null
  /** The custody profile when the registry read it from the store (saves the health check a read). */
  profile?: GolemProfile
  /** The stored record's version this view was read at: a write that follows the read compares-and-swaps against it. */
  version?: number
  /** Unix seconds of the last redemption the store knows of (the last tick's, when it redeemed). */
  lastRedeemedAt?: number
}

export interface GolemRegistry {
  /** By id or by (current) address; undefined when unknown. */
  getGolem(idOrAddress: string): Promise<GolemView | undefined>
  listGolemsByOwner(owner: Address): Promise<GolemView[]>
}

/** The owner's one act of revocation (app/revocation.ts): the calls it takes, and the wake once it landed. */
export interface RevocationService {
  plan(golemId: string): Promise<RevocationPlan>
  /** Refuses (GOLEM_NOT_REVOKED) unless the chain reports the Golem's runway disabled. */
  wake(golemId: string): Promise<{ woken: boolean }>
}

/** What the Golem's life costs, from its journal (GET /api/v1/golems/:id/metabolism). */
export interface MetabolismService {
  metabolism(golem: GolemView): Promise<Metabolism>
}

/** The action route's dependencies: the store for the Golem and nonces, and the action path bound to its own. */
export type ActionRouteDeps = {
  store: Pick<Store, 'getGolem' | 'issueNonce'>
  /** Carries a verified request out (executeAction bound to its dependencies). */
  execute(input: ExecuteActionInput): Promise<ActionOutcome>
  chainId: number
  /** Milliseconds since the epoch; default Date.now. */
  now?: () => number
}

/** Permission health as the wallet's check shows it, classified by core/health from on-chain facts. */
export interface PermissionHealthService {
  check(golem: GolemView): Promise<GolemHealth>
}

export type PageRequest = { limit: number; cursor?: string | undefined }
export type Page<T> = { items: T[]; nextCursor: string | null }

export type PhaseTransitionRecord = {
  from: PhaseName
  to: PhaseName
  /** Basis points; null for a reset (the oracle keeps the last reported score). */
  survivalScore: number | null
  /** `reset` is the oracle owner's audited resetPhase. */
  kind: 'transition' | 'reset'
  /** The reset's stated reason; null for the Golem's own transitions. */
  reason: string | null
  blockNumber: bigint
  txHash: Hex
  timestamp: number
}

/** One redemption transaction (a [child, parent] chain is one redemption). */
export type RedemptionRecord = {
  /** The leaf delegation. */
  delegationHash: Hex
  /** The root delegator: the owner's smart account. */
  delegator: Address
  redeemer: Address
  /** Token amounts the period enforcers recorded; `token` null for native value. */
  transfers: { token: Address | null; amount: bigint }[]
  /** USD with 6 decimals when a Bardo USD enforcer valued it. */
  usd6: bigint | null
  blockNumber: bigint
  txHash: Hex
  timestamp: number
}

/** Spend per enforcer period (indexer `golem_spend`): `asset` is a token address or `usd` (USD6). */
export type SpendPeriodRecord = {
  source: string
  asset: Address | 'usd'
  periodStart: number
  periodEnd: number | null
  amount: bigint
  eventCount: number
}

/** History comes from the indexer (Ponder). */
export interface GolemHistoryService {
  phaseTransitions(golem: GolemView, page: PageRequest): Promise<Page<PhaseTransitionRecord>>
  redemptions(golem: GolemView, page: PageRequest): Promise<Page<RedemptionRecord>>
  spendByPeriod(golem: GolemView, page: PageRequest): Promise<Page<SpendPeriodRecord>>
}

export type ChainPhaseState = {
  registered: boolean
  /** The vital signs' phase: the oracle's, Terminal once dead. */
  phase: PhaseName
  /** The score the oracle last recorded (basis points). */
  survivalScore: number
  blockNumber: bigint
  vitals: StatedVitalSigns
}
/** The runway's ERC20PeriodTransfer period as the enforcer sees it now, in the token's units. */
export type ChainSpendState = {
  token: Address
  periodStart: number
  periodSeconds: number
  spent: bigint
  limit: bigint
  remaining: bigint
  blockNumber: bigint
}

/** Current state comes from the chain (the indexer may lag by a few blocks). */
export interface GolemChainService {
  currentPhase(golem: GolemView): Promise<ChainPhaseState>
  currentSpend(golem: GolemView): Promise<ChainSpendState>
}

/**
 * Checks an owner's signature of a text on the chain: an EOA, an ERC-1271 smart account or an
 * ERC-6492 counterfactual one (viem's verifyMessage), so the owner's smart account itself can pair.
 */
export interface OwnerSignatureVerifier {
  verifyMessage(p: { address: Address; message: string; signature: Hex }): Promise<boolean>
}

/** Public addresses the Snap needs to recognise Bardo in transactions and signatures; handed over at pairing. */
export type SnapDeploymentInfo = {
  chainId: number
  environment: SmartAccountsEnvironment
  vitalityOracle: Address
  dreamOracle: Address
  daimonOracle: Address
  enforcers: Record<BardoEnforcerName, Address>
  /** Token labels for amounts in descriptions (the chain's USDC). */
  tokens: Record<string, { symbol: string; decimals: number }>
}

/** The Golem's own journal in the store: what the chain and the indexer cannot say (x402 credits). */
export interface GolemJournal {
  /** x402 credits (payer, kind, amount, runway seconds), newest first. */
  payments(golem: GolemView, req: PageRequest): Promise<Page<PaymentCredit>>
  /** The custody events the tick, the API and the owner's acts recorded, newest first. */
  events(golem: GolemView, req: PageRequest): Promise<Page<GolemEvent>>
  /** The custody events at or after `since` (ms), oldest first, at most `limit`: what a live stream reads. */
  eventsSince(golem: GolemView, since: number, limit: number): Promise<GolemEvent[]>
}

/** Where a live stream of custody events stands: the newest event it sent. */
export type { EventPosition } from '../../core/lifecycle/liveStreamWindow.ts'

/**
 * Bearer tokens other than the API's own: the CLI's signed access tokens are verified by the app itself
 * (subject `owner:<address>`); this verifier sees the rest (e.g. a Portal user's Privy JWT).
 */
export interface BearerVerifier {
  verifyBearer(token: string): Promise<{ subject: string } | undefined>
}

/**
 * One x402-paid route, supplied by the payments module. `middleware` runs after validation and the
 * death rules (no payment is taken for a dying Golem) and before `handle`.
 */
export type PaidRoute<B> = {
  middleware?: MiddlewareHandler[]
  handle(input: { body: B; golem: GolemView; c: Context }): Promise<Response>
}

export type PaymentRoutes = {
  extend: PaidRoute<ExtendRequest>
  feed: PaidRoute<FeedRequest>
  /** Who signs the offers and receipts (published at GET /.well-known/x402-receipt-signer); absent: none are signed. */
  signer?: ReceiptSignerInfo
}

export type ApiConfig = {
  chainId: number
  /** Browser origins allowed to call /api/snap/status (the Portal). */
  allowedOrigins: readonly string[]
  /**
   * How many proxies in front of the API append to X-Forwarded-For. 0 (the default, right for Lambda
   * function URLs and API Gateway, whose source IP is read from the event) ignores the header.
   */
  trustedProxyHops: number
  /** SHA-256 (hashApiKey) of each valid `bardo_read_*` key; the keys themselves are never configured. */
  readApiKeyHashes: readonly Hex[]
  clade: {
    /** At least 32 bytes; signs nonces and session tokens. */
    hmacSecret: Uint8Array
    /** The Golem this API answers for when a challenge request names no target. */
    self?: Address | undefined
    challengeTtlSeconds?: number
    sessionTtlSeconds?: number
  }
  /**
   * The page where the owner confirms a CLI's user code (RFC 8628 verification_uri); default `/device`
   * on the API's own origin.
   */
  deviceVerificationUri?: string
  /** Overrides of the tier limits (the bench raises them to measure the route, not the 429). */
  rateLimits?: Partial<{ public: number; read: number; authenticated: number; cladeChallenge: number; clade: number }>
}

/** The dashboard's chain settings. */
export type DashboardConfig = {
  chainId: number
  network: string
  usdc: string
  tokens: Record<string, { symbol: string; decimals: number }>
  indexer: boolean
}

export interface FleetService {
  config(): DashboardConfig
  /** The owner's fleet; an owner that is no address is refused with FleetError naming `owner`. */
  golems(owner: string): Promise<OwnerFleet>
}

export type ApiDeps = {
  config: ApiConfig
  clock: Clock
  stores: {
    rateLimits: RateLimitCounterStore
    nonces: NonceStore
    snapTokens: SnapTokenStore
    /** Absent: the device-code sign-in routes answer 501 NOT_IMPLEMENTED. */
    deviceAuth?: DeviceAuthStore
  }
  golems: GolemRegistry
  health: PermissionHealthService
  history: GolemHistoryService
  journal: GolemJournal
  chain: GolemChainService
  operators: OperatorRegistry
  clade: CladeService
  /** Absent until the x402 module is wired: /extend and /feed answer 501 NOT_IMPLEMENTED. */
  payments?: PaymentRoutes
  /** Absent: Snap pairing answers 501 NOT_IMPLEMENTED (both are wired from the chain client). */
  ownerSignatures?: OwnerSignatureVerifier
  snapDeployment?: SnapDeploymentInfo
  /** Absent: /api/v1/golems/:id/revocation answers 501 NOT_IMPLEMENTED. */
  revocations?: RevocationService
  /** Absent: POST /api/v1/golems/:id/renewal answers 501 NOT_IMPLEMENTED. */
  renewals?: RenewalService
  /** Absent: POST /api/v1/golems/:id/rotation-grant answers 501 NOT_IMPLEMENTED. */
  rotationGrants?: RotationGrantService
  /** How the custody event stream polls and how long a connection lasts (defaults: routes/events.ts). */
  eventStream?: { pollMs: number; maxSeconds: number; batch: number }
  /** Absent: POST /api/v1/golems/:id/adjustment answers 501 NOT_IMPLEMENTED. */
  adjustments?: AdjustmentService
  /** Drafts of the owner's acts for the wallet to sign; without them the draft routes answer 501. */
  ownerDrafts?: Pick<OwnerDrafts, 'revocation' | 'renewal' | 'adjustment' | 'rotationGrant'>
  /** The owner's read-only observers (drafts, grants, the list, revocation drafts); absent: those routes answer 501. */
  observers?: Pick<ObserverGrants, 'draft' | 'grant' | 'list' | 'revocationDraft'>
  /** Absent: /api/v1/onboarding answers 501 NOT_IMPLEMENTED. */
  onboarding?: Pick<OnboardingService, 'draft' | 'get' | 'grant'>
  /** Absent (no runtime price): GET /api/v1/golems/:id/metabolism answers 501 NOT_IMPLEMENTED. */
  metabolism?: MetabolismService
  /** Absent: every `Authorization: Bearer` other than a Snap token or a CLI access token is refused (401 INVALID_TOKEN). */
  bearer?: BearerVerifier
  /** Absent (no signer for Golem keys here): POST /api/v1/golems/:id/actions is not served. */
  actions?: ActionRouteDeps
  /** Absent (no Alchemy webhook signing key): POST /api/v1/webhooks/alchemy answers 501 NOT_IMPLEMENTED. */
  alchemyWebhook?: CustodyWebhook
  /** The councils owners formed here (their stores and chain edge); absent: /council/v1/* is not served. */
  councils?: Pick<Councils, 'service' | 'ofProposal' | 'forMember' | 'ofOwner' | 'record'>
  /** The owner's formation of a council; absent: POST /api/v1/councils(/draft) answers 501 NOT_IMPLEMENTED. */
  councilFormation?: Pick<CouncilFormation, 'draft' | 'form'>
  /** The dashboard's reads (its chain settings, an owner's fleet); absent: both answer 501 NOT_IMPLEMENTED. */
  fleet?: FleetService
  /** Told about unexpected errors (5xx); the response itself never carries their text. */
  onUnexpectedError?: (err: unknown) => void
}
