// The persistence interface the rest of Bardo depends on. Two implementations: DynamoStore (one
// DynamoDB table, conditional writes only) and InMemoryStore (same semantics, for unit tests).
// Expected races (a slot already claimed, a payment already credited) are results; broken rules and
// bad input are thrown (StoreInputError, StoreConflictError, KeyMaterialError). Times: unix ms.
import type { Address, Hex } from 'viem'
import type { PhaseName } from '../lifecycle/phase.ts'
import type {
  BudgetRecord,
  CounterValue,
  CustodyModeName,
  DeathSettlementKind,
  DeathSettlementRecord,
  DueGolem,
  GolemEvent,
  GolemRecord,
  GolemStatus,
  JsonInputObject,
  LastTick,
  LogRecord,
  NonceRecord,
  PaymentIdRecord,
  PaymentKind,
  PaymentRecord,
  Reservation,
  SlotOutcome,
  SlotRef,
  SnapTokenRecord,
  TickSlot,
} from './records.ts'

// ---- Golems ----------------------------------------------------------------------------------

export type CreateGolemInput = {
  golemId: string
  owner: Address
  sessionKeyAddress: Address
  custodyMode: CustodyModeName
  profile?: string | null
  phase?: PhaseName
  nextTickAt: number
  now: number
}
export type GolemPatch = {
  status?: GolemStatus
  phase?: PhaseName
  nextTickAt?: number
  lastTick?: LastTick | null
  sessionKeyAddress?: Address
  profile?: string | null
}
export type UpdateGolemInput = { golemId: string; expectedVersion: number; patch: GolemPatch; now: number }
export type CreateGolemResult = { created: true; golem: GolemRecord } | { created: false; existing: GolemRecord }
export type UpdateGolemResult =
  | { updated: true; golem: GolemRecord }
  | { updated: false; reason: 'missing' | 'version'; current: GolemRecord | null }
export type ListDueInput = {
  now: number
  limit?: number
  cursor?: string | null
  /** One partition of the due list (0 .. dueShards - 1), for a walker of that shard; every shard when left out. */
  shard?: number
}
/** Whose Golems: the owner's smart account, or the Golem's current session key. */
export type FindGolemsInput = { owner: Address } | { sessionKey: Address }
export type ListDueResult = { golems: DueGolem[]; cursor: string | null }

export interface GolemStore {
  createGolem(input: CreateGolemInput): Promise<CreateGolemResult>
  getGolem(golemId: string): Promise<GolemRecord | null>
  /**
   * Many records in few requests (a heartbeat page): unknown ids are left out, the rest in the order asked.
   * Eventually consistent where the backend offers the choice (DynamoDB: half the read units of a
   * consistent read), so a write of about the last second may not show yet: a copy read here is for
   * deciding what to hand over, and anything written from it is conditional on its version (the tick's
   * lease), which takes the current record. getGolem reads one record consistently.
   */
  getGolems(golemIds: readonly string[]): Promise<GolemRecord[]>
  /** Optimistic: applies `patch` only if the record is still at `expectedVersion`. */
  updateGolem(input: UpdateGolemInput): Promise<UpdateGolemResult>
  /**
   * Every Golem with nextTickAt <= now that is not dead, paged (pass `cursor` back until it is null); it
   * may also list a Golem whose next tick moved up to one cadence ahead since its entry was written (the
   * entry is a lower bound: read the record to decide).
   */
  listDueGolems(input: ListDueInput): Promise<ListDueResult>
  /** How many partitions the due list has: the shards a heartbeat fans out to. */
  readonly dueShards: number
  /**
   * Every Golem of an owner, or the Golem whose current session key is this address, dead ones
   * included, oldest first (at most MAX_GOLEMS_PER_LOOKUP). A rotated-away key finds nothing.
   */
  findGolems(input: FindGolemsInput): Promise<GolemRecord[]>
  /**
   * The heartbeat walked these due shards at `at` (store time): every Golem due in them was observed and
   * handed over when it had work. One write a walk, for the whole fleet; a Golem with nothing to do writes
   * nothing of its own, so this is what says its heartbeat is alive.
   */
  recordShardWalks(input: RecordShardWalksInput): Promise<void>
  /** When the heartbeat last walked this Golem's due shard (store time), or null before its first walk. */
  lastWalkOf(golemId: string): Promise<number | null>
}
export type RecordShardWalksInput = { shards: readonly number[]; at: number }

// ---- Tick slots (exactly-once) ---------------------------------------------------------------

export type ClaimSlotInput = SlotRef & { owner: string; now: number; leaseMs: number }
export type RecordSlotTxInput = SlotRef & {
  owner: string
  txHash: Hex
  nonce: number
  now: number
  rawTx?: Hex
  /** The account that signed rawTx. */
  sender?: Address
}
/** A claim that records its signed transaction in the same write: the slot is created `sent`. */
export type ClaimSlotWithTxInput = ClaimSlotInput & Omit<RecordSlotTxInput, keyof SlotRef | 'owner' | 'now'>
export type CompleteSlotInput = SlotRef & {
  /** Who completes: the holder, or (for a slot in 'sent') any reconciler. */
  owner: string
  outcome: SlotOutcome
  now: number
  /** When given, the recorded transaction must be this one. */
  txHash?: Hex
  detail?: JsonInputObject
}
export type ReleaseSlotInput = SlotRef & { owner: string; now: number }

export type ClaimSlotResult =
  | { claimed: true; slot: TickSlot }
  /** leased: another invocation holds a live lease. sent: a tx is recorded, reconcile from the chain. */
  | { claimed: false; reason: 'leased' | 'sent' | 'completed'; slot: TickSlot }
export type RecordSlotTxResult =
  | { recorded: true; slot: TickSlot }
  | { recorded: false; reason: 'missing' | 'notOwner' | 'alreadySent' | 'completed'; slot: TickSlot | null }
export type CompleteSlotResult =
  | { completed: true; slot: TickSlot }
  | { completed: false; reason: 'missing' | 'notOwner' | 'notSent' | 'txMismatch' | 'completed'; slot: TickSlot | null }
export type ReleaseSlotResult =
  | { released: true; slot: TickSlot }
  | { released: false; reason: 'missing' | 'notOwner' | 'sent' | 'completed'; slot: TickSlot | null }

export interface SlotStore {
  claimSlot(input: ClaimSlotInput): Promise<ClaimSlotResult>
  /**
   * Claim and record the signed transaction in one write, BEFORE broadcasting it: refused on the same
   * rule as a claim (a live lease of another, a recorded transaction, a completed slot); broadcast only
   * if claimed. The caller's own retry of the same transaction is answered as claimed.
   */
  claimSlotWithTx(input: ClaimSlotWithTxInput): Promise<ClaimSlotResult>
  /** Record the signed transaction BEFORE broadcasting it; broadcast only if recorded. */
  recordSlotTx(input: RecordSlotTxInput): Promise<RecordSlotTxResult>
  completeSlot(input: CompleteSlotInput): Promise<CompleteSlotResult>
  /** Give a claim without a transaction back (lease ends now) so a later retry may claim it. */
  releaseSlot(input: ReleaseSlotInput): Promise<ReleaseSlotResult>
  getSlot(ref: SlotRef): Promise<TickSlot | null>
}

// ---- Budget reservations ---------------------------------------------------------------------

export type ReserveBudgetInput = { golemId: string; period: bigint; amount: bigint; cap: bigint; reservationId: string; now: number }
export type ReservationRef = { golemId: string; period: bigint; reservationId: string; now: number }
/** `spent` defaults to the reserved amount; less releases the difference. */
export type CommitReservationInput = ReservationRef & { spent?: bigint }

export type ReserveBudgetResult =
  | { reserved: true; reservation: Reservation; budget: BudgetRecord }
  | { reserved: false; reason: 'cap' | 'released'; available: bigint; budget: BudgetRecord | null }
export type CommitReservationResult =
  | { committed: true; reservation: Reservation; budget: BudgetRecord }
  | { committed: false; reason: 'unknown' | 'released'; budget: BudgetRecord | null }
export type ReleaseReservationResult =
  | { released: true; reservation: Reservation; budget: BudgetRecord }
  | { released: false; reason: 'unknown' | 'committed'; budget: BudgetRecord | null }

export interface BudgetStore {
  /** Keeps reserved + spent <= cap. Idempotent by reservationId. */
  reserveBudget(input: ReserveBudgetInput): Promise<ReserveBudgetResult>
  commitReservation(input: CommitReservationInput): Promise<CommitReservationResult>
  releaseReservation(input: ReservationRef): Promise<ReleaseReservationResult>
  getBudget(golemId: string, period: bigint): Promise<BudgetRecord | null>
}

// ---- Payments (x402 extend / feed) -----------------------------------------------------------

export type PaymentRef = { payer: Address; nonce: Hex }
export type PaymentInput = PaymentRef & { golemId: string; amount: bigint; kind: PaymentKind }
export type ClaimPaymentInput = PaymentInput & { owner: string; now: number; leaseMs: number }
export type CreditPaymentInput = PaymentInput & { now: number; txHash?: Hex; owner?: string; signedTx?: Hex; validBefore?: bigint }
export type ReleasePaymentInput = PaymentRef & { owner: string }

export type ClaimPaymentResult = { claimed: true; payment: PaymentRecord } | { claimed: false; existing: PaymentRecord }
export type CreditPaymentResult = { credited: true; payment: PaymentRecord } | { credited: false; existing: PaymentRecord }
export type ReleasePaymentResult = { released: true } | { released: false; existing: PaymentRecord | null }

export interface PaymentStore {
  /** Mark the payment pending before settling it, so a concurrent duplicate does not settle too. */
  claimPayment(input: ClaimPaymentInput): Promise<ClaimPaymentResult>
  /** Credit once per (payer, nonce): completes the caller's pending claim, or creates the record. */
  creditPaymentOnce(input: CreditPaymentInput): Promise<CreditPaymentResult>
  /** The settle failed: drop the caller's pending claim so the payment can be retried. */
  releasePayment(input: ReleasePaymentInput): Promise<ReleasePaymentResult>
  getPayment(ref: PaymentRef): Promise<PaymentRecord | null>
}

// ---- Payment identifiers (x402 idempotency) ------------------------------------------------------

export type PaymentIdRef = { payer: Address; paymentId: string }
export type BindPaymentIdInput = PaymentIdRef & {
  golemId: string
  kind: PaymentKind
  amount: bigint
  header: string
  owner: string
  now: number
  leaseMs: number
  /** How long the identifier is remembered from its first binding. */
  ttlMs: number
}
export type AnswerPaymentIdInput = PaymentIdRef & { owner: string; answer: JsonInputObject; now: number }
export type ReleasePaymentIdInput = PaymentIdRef & { owner: string }

export type BindPaymentIdResult = { bound: true; record: PaymentIdRecord } | { bound: false; existing: PaymentIdRecord }
export type AnswerPaymentIdResult = { answered: true; record: PaymentIdRecord } | { answered: false; existing: PaymentIdRecord | null }
export type ReleasePaymentIdResult = { released: true } | { released: false; existing: PaymentIdRecord | null }

export interface PaymentIdStore {
  /**
   * Binds the identifier to this payment for `owner`, or hands a lapsed pending binding for the same
   * golemId, kind and amount to `owner` (keeping its header). Absent or expired: bound afresh. Otherwise
   * the existing record (answered, held by a live request, or bound to other terms).
   */
  bindPaymentId(input: BindPaymentIdInput): Promise<BindPaymentIdResult>
  /** Records the answer on the owner's pending binding; final. */
  answerPaymentId(input: AnswerPaymentIdInput): Promise<AnswerPaymentIdResult>
  /** The payment was refused without taking anything: drop the owner's pending binding. */
  releasePaymentId(input: ReleasePaymentIdInput): Promise<ReleasePaymentIdResult>
  /** The record, or null when absent or expired at `now`. */
  getPaymentId(input: PaymentIdRef & { now: number }): Promise<PaymentIdRecord | null>
}

// ---- Single-use nonces (Clade challenges) ----------------------------------------------------

export type IssueNonceInput = { nonce: string; issuedAt: number; expiresAt: number; meta?: JsonInputObject }
export type ConsumeNonceResult = { consumed: true; record: NonceRecord } | { consumed: false; reason: 'unknown' | 'used' | 'expired' }

export interface NonceStore {
  /** Throws StoreConflictError if the nonce was ever issued. */
  issueNonce(input: IssueNonceInput): Promise<NonceRecord>
  /** Succeeds once: the nonce exists, is unused and `now < expiresAt`. */
  consumeNonce(input: { nonce: string; now: number }): Promise<ConsumeNonceResult>
}

// ---- Rate-limit counters ---------------------------------------------------------------------

export type CounterInput = { key: string; windowStart: number; windowSeconds: number; now: number }

export interface CounterStore {
  /** Atomic +1 in the fixed window opened at `windowStart`; `now` must fall inside the window. */
  incrementCounter(input: CounterInput): Promise<CounterValue>
  /** The window's count, 0 once `now` has passed its reset. */
  getCounter(input: CounterInput): Promise<CounterValue>
}

// ---- Events, death settlement, Snap token -----------------------------------------------------

export type AppendEventInput = { golemId: string; type: string; at: number; data?: JsonInputObject; eventId?: string }
export type ListEventsInput = { golemId: string; limit?: number; cursor?: string | null; since?: number; order?: 'asc' | 'desc' }
export type RecordDeathInput = { golemId: string; kind: DeathSettlementKind; settlement: JsonInputObject; settledAt: number }
export type RotateSnapTokenInput = {
  scope?: string
  tokenHash: Hex
  /** The hash this rotation replaces; null for the first token. The rotation is conditional on it. */
  expectedHash: Hex | null
  now: number
  /** How long the replaced token stays valid (requests in flight). Default 0. */
  graceMs?: number
}

export type AppendEventResult = { appended: boolean; event: GolemEvent }
export type ListEventsResult = { events: GolemEvent[]; cursor: string | null }
export type RecordDeathResult = { written: true; record: DeathSettlementRecord } | { written: false; existing: DeathSettlementRecord }
export type RotateSnapTokenResult = { rotated: true; token: SnapTokenRecord } | { rotated: false; current: SnapTokenRecord | null }

export interface EventStore {
  /** Idempotent by (at, eventId): a retry with the same pair does not append twice. */
  appendEvent(input: AppendEventInput): Promise<AppendEventResult>
  listEvents(input: ListEventsInput): Promise<ListEventsResult>
  /** Write-once per Golem. */
  recordDeathSettlement(input: RecordDeathInput): Promise<RecordDeathResult>
  getDeathSettlement(golemId: string): Promise<DeathSettlementRecord | null>
}

export interface SnapTokenStore {
  /** `previousHash` is returned only while its grace period lasts at `now`. */
  getSnapToken(input: { scope?: string; now: number }): Promise<SnapTokenRecord | null>
  rotateSnapToken(input: RotateSnapTokenInput): Promise<RotateSnapTokenResult>
}

// ---- KMS key claims -----------------------------------------------------------------------------
// (named "pool keys" from when the stack created a pool of keys at deploy time; keys are now created per
// Golem, and the same write-once claims record who holds a key and a rotation's intent to create one)

/**
 * Who took a key: `rotation:<old key>` for a rotation (each key belongs to one Golem and is rotated
 * away once), `session-account:<golemId>`, `onboard:<golemId>`, or a creating tick's own id on a key
 * creation intent. Letters, digits, ':', '_', '-', '.'.
 */
export type ClaimPoolKeyInput = { keyId: string; address: Address; claimant: string; now: number }
export type PoolKeyClaim = { keyId: string; address: Address; claimant: string; claimedAt: number }
export type ClaimPoolKeyResult = { claimed: true; claim: PoolKeyClaim } | { claimed: false; claim: PoolKeyClaim }

export interface PoolKeyStore {
  /**
   * Takes a KMS key (or a key creation intent) for `claimant` with a conditional write, so two ticks
   * never take the same one. The same claimant asking again gets its own claim back (a retried rotation). A claim is never
   * released: a rotated-away or dead Golem's key stays retired.
   */
  claimPoolKey(input: ClaimPoolKeyInput): Promise<ClaimPoolKeyResult>
  getPoolKeyClaim(keyId: string): Promise<PoolKeyClaim | null>
  /** The key a claimant took, if any (a rotation's retry finds its key in one read). */
  findPoolKeyClaim(claimant: string): Promise<PoolKeyClaim | null>
}

// ---- Append-only logs (Clade entries and alerts) ------------------------------------------------

export type AppendLogInput = { log: string; records: readonly JsonInputObject[]; now: number }
export type AppendLogResult = { records: LogRecord[] }
/** Records with after < seq < before, oldest first (`asc`) or newest first (`desc`), at most `limit`. */
export type ReadLogInput = { log: string; after?: number; before?: number; limit?: number; order?: 'asc' | 'desc' }

export interface LogStore {
  /**
   * Appends each record at the next sequence number (1, 2, 3, ...). Concurrent appenders never share
   * a number and never leave a gap: a record is written at `seq` only after `seq - 1` exists, so a
   * reader that has seen `seq` has seen everything before it. One appender's records keep their order;
   * concurrent appenders' records may interleave.
   */
  appendLog(input: AppendLogInput): Promise<AppendLogResult>
  readLog(input: ReadLogInput): Promise<LogRecord[]>
  /** The newest record, or null for an empty log. */
  lastLogRecord(log: string): Promise<LogRecord | null>
}

/**
 * What a tick reads and writes: a Golem, its slots and budgets, its payments' credits, its events and
 * logs, and its pool key. Apart from the rest of the Store so that the tick's Lambda bundles only these.
 */
export interface TickStore extends GolemStore, SlotStore, BudgetStore, PaymentStore, EventStore, LogStore, PoolKeyStore {}

export interface Store extends TickStore, PaymentIdStore, NonceStore, CounterStore, SnapTokenStore {}
