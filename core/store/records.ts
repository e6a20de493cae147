// What the store holds, as the rest of Bardo sees it. Amounts are bigint, addresses lowercased, times
// unix milliseconds (number). On the table, bigints are decimal strings (see docs/store.md).
import type { Address, Hex } from 'viem'
import type { PhaseName } from '../lifecycle/phase.ts'

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }
export type JsonObject = { [key: string]: JsonValue }
/** JSON that may also carry bigints; the store writes them as decimal strings (and reads back strings). */
export type JsonInputValue = string | number | boolean | null | bigint | JsonInputValue[] | { [key: string]: JsonInputValue }
export type JsonInputObject = { [key: string]: JsonInputValue }

export const CUSTODY_MODES = ['Delegation', 'LocalKey', 'Embedded'] as const
export type CustodyModeName = (typeof CUSTODY_MODES)[number]

/** alive -> dying -> dead, never backwards: the death protocol is irreversible. */
export const GOLEM_STATUSES = ['alive', 'dying', 'dead'] as const
export type GolemStatus = (typeof GOLEM_STATUSES)[number]

export type LastTick = {
  at: number
  period: bigint
  /** Short word for what the tick did: 'redeemed', 'skipped', 'failed', ... */
  outcome: string
  txHash: Hex | null
  /** The tick's vitality in basis points, the one every surface shows; absent on records written before it was kept. */
  survivalScoreBps?: number
  /**
   * Ticks that failed in a row since the last one that finished (core/lifecycle/heartbeatAnomaly.ts);
   * absent after a tick that finished.
   */
  failures?: number
}

export type GolemRecord = {
  golemId: string
  /** The owner's smart account. */
  owner: Address
  sessionKeyAddress: Address
  custodyMode: CustodyModeName
  /**
   * The Golem's custody profile as JSON text: its signed delegations, runway and the reference to its
   * signer (a KMS key id or keystore path). Public data; never key material (the store refuses it).
   */
  profile: string | null
  status: GolemStatus
  phase: PhaseName
  /** When the heartbeat should tick this Golem next. */
  nextTickAt: number
  lastTick: LastTick | null
  createdAt: number
  updatedAt: number
  /** Bumped by every write; updates are conditional on it. */
  version: number
}

/** One row of the heartbeat's due list. The Golem record is the truth; this is its index entry. */
export type DueGolem = { golemId: string; dueAt: number; status: GolemStatus; version: number }

/** claimed -> sent -> confirmed | failed | reconciled; claimed -> failed | reconciled (no tx). */
export const SLOT_STATUSES = ['claimed', 'sent', 'confirmed', 'failed', 'reconciled'] as const
export type SlotStatus = (typeof SLOT_STATUSES)[number]
export const SLOT_OUTCOMES = ['confirmed', 'failed', 'reconciled'] as const
export type SlotOutcome = (typeof SLOT_OUTCOMES)[number]

export type SlotRef = { golemId: string; period: bigint; step: string }

export type TickSlot = SlotRef & {
  status: SlotStatus
  /** Invocation id of the current holder (Lambda request id, or a local runner id). */
  owner: string
  claimedAt: number
  /** The claim lapses at this time if no transaction was recorded. */
  leaseUntil: number
  /** How many times the slot was claimed (1 + re-claims after a lapsed lease). */
  claims: number
  txHash: Hex | null
  /** The sender's account nonce of the recorded transaction, for reconciliation. */
  txNonce: number | null
  /**
   * The account that signed the recorded transaction, for reconciliation: whether its nonce moved past
   * txNonce. Null for a slot whose record is not a transaction (a payment header) or was recorded without.
   */
  txSender: Address | null
  /**
   * The signed transaction (public data, never the key). Lets a reconciler re-broadcast exactly the
   * same transaction after a crash between record and broadcast: one hash, one nonce, mined once.
   */
  rawTx: Hex | null
  sentAt: number | null
  completedAt: number | null
  completedBy: string | null
  detail: JsonObject | null
  version: number
}

/**
 * When the slot's transaction was recorded (store time, ms): its send, or its claim for a slot recorded
 * before the send time was kept. Events of the transaction are timed by it, whichever tick writes them.
 */
export const slotSentAt = (slot: Pick<TickSlot, 'sentAt' | 'claimedAt'>): number => slot.sentAt ?? slot.claimedAt

export const RESERVATION_STATES = ['reserved', 'committed', 'released'] as const
export type ReservationState = (typeof RESERVATION_STATES)[number]

export type Reservation = {
  reservationId: string
  amount: bigint
  state: ReservationState
  /** What was actually spent on commit (at most `amount`); null until committed. */
  spent: bigint | null
  at: number
}

export type BudgetRecord = {
  golemId: string
  period: bigint
  /** Sum of amounts in state 'reserved'. */
  reserved: bigint
  /** Sum of `spent` of committed reservations. */
  spent: bigint
  /** The cap given by the latest reservation. */
  cap: bigint
  reservations: Reservation[]
  version: number
}

export const PAYMENT_KINDS = ['extend', 'feed'] as const
export type PaymentKind = (typeof PAYMENT_KINDS)[number]
export type PaymentStatus = 'pending' | 'settled'

export type PaymentRecord = {
  /** EIP-3009 authorization nonce. With `payer` it identifies the payment (nonces are per authorizer). */
  nonce: Hex
  payer: Address
  golemId: string
  amount: bigint
  kind: PaymentKind
  status: PaymentStatus
  /** Who holds (or held) the pending claim. */
  owner: string | null
  /** A pending claim lapses at this time; a lapsed pending payment counts as absent. */
  leaseUntil: number | null
  txHash: Hex | null
  claimedAt: number | null
  creditedAt: number | null
  /**
   * The settlement's signed transaction, recorded so the same bytes can be broadcast again if a reorg
   * drops it (a signed transfer is public once sent; it carries no key). Absent for records made without it.
   */
  signedTx?: Hex
  /** The payer's authorization is void from this unix second: a settlement still unmined then can never land. */
  validBefore?: bigint
  version: number
}

/**
 * A client's payment identifier (x402's idempotency extension), scoped to its payer: the payment it
 * first named and, once that payment is credited, the answer every retry under it receives. It lapses
 * at `expiresAt` and then counts as absent.
 */
export type PaymentIdRecord = {
  payer: Address
  paymentId: string
  golemId: string
  kind: PaymentKind
  amount: bigint
  /** The PAYMENT-SIGNATURE header first presented under this identifier: a retry is answered as this payment. */
  header: string
  /** 'pending' while a request holds it, 'answered' once the answer is recorded. */
  status: 'pending' | 'answered'
  owner: string | null
  leaseUntil: number | null
  /** The recorded HTTP answer (status, headers, body). */
  answer: JsonObject | null
  boundAt: number
  expiresAt: number
  version: number
}

/** A settled payment as the request that recorded it knows it: what applying its credit needs, without a read-back. */
export type SettledPaymentRecord = Pick<PaymentRecord, 'payer' | 'nonce' | 'golemId' | 'kind' | 'amount' | 'txHash' | 'creditedAt'> &
  Pick<PaymentRecord, 'signedTx' | 'validBefore'> & {
    status: 'settled'
  }

export type NonceRecord = {
  nonce: string
  issuedAt: number
  expiresAt: number
  usedAt: number | null
  meta: JsonObject | null
}

export type CounterValue = { count: number; resetAt: number }

export type GolemEvent = {
  golemId: string
  eventId: string
  type: string
  at: number
  data: JsonObject
}

/** One record of an append-only log (docs/store.md): its place in the log, when it was written, its data. */
export type LogRecord = {
  log: string
  seq: number
  at: number
  data: JsonObject
}

/** how the Golem's financial state resolved at death. */
export const DEATH_SETTLEMENT_KINDS = ['DelegationExpiry', 'PrivySweep', 'EconomicExhaustion'] as const
export type DeathSettlementKind = (typeof DEATH_SETTLEMENT_KINDS)[number]

export type DeathSettlementRecord = {
  golemId: string
  kind: DeathSettlementKind
  settlement: JsonObject
  settledAt: number
}

export type SnapTokenRecord = {
  scope: string
  /** Hash of the current bearer token; the token itself is never stored. */
  tokenHash: Hex
  rotatedAt: number
  /** The token before the last rotation, still accepted until `previousValidUntil`. */
  previousHash: Hex | null
  previousValidUntil: number | null
  version: number
}
