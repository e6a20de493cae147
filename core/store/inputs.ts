// One parser per Store method: both implementations call these first, so a bad input is refused the
// same way everywhere and before anything is read or written.
import { phaseNames } from '../lifecycle/phase.ts'
import { StoreInputError } from './errors.ts'
import {
  CUSTODY_MODES,
  DEATH_SETTLEMENT_KINDS,
  GOLEM_STATUSES,
  PAYMENT_KINDS,
  SLOT_OUTCOMES,
  type JsonObject,
  type LastTick,
  type SlotRef,
} from './records.ts'
import type {
  AnswerPaymentIdInput,
  BindPaymentIdInput,
  PaymentIdRef,
  ReleasePaymentIdInput,
  AppendEventInput,
  ClaimPoolKeyInput,
  ClaimPaymentInput,
  ClaimSlotInput,
  ClaimSlotWithTxInput,
  CommitReservationInput,
  CompleteSlotInput,
  CounterInput,
  CreateGolemInput,
  CreditPaymentInput,
  GolemPatch,
  IssueNonceInput,
  ListDueInput,
  RecordShardWalksInput,
  ListEventsInput,
  PaymentRef,
  RecordDeathInput,
  RecordSlotTxInput,
  ReleasePaymentInput,
  ReleaseSlotInput,
  ReservationRef,
  ReserveBudgetInput,
  AppendLogInput,
  FindGolemsInput,
  ReadLogInput,
  RotateSnapTokenInput,
  UpdateGolemInput,
} from './store.ts'
import * as v from './validate.ts'

const MAX_LEASE_MS = 24 * 3600 * 1000
const MAX_WINDOW_SECONDS = 31 * 24 * 3600
export const DEFAULT_PAGE_LIMIT = 100
const MAX_PAGE_LIMIT = 1000

export function parseCreateGolem(raw: CreateGolemInput): Required<CreateGolemInput> {
  const i = v.object(raw, 'input')
  return {
    golemId: v.golemId(i.golemId),
    owner: v.address(i.owner, 'owner'),
    sessionKeyAddress: v.address(i.sessionKeyAddress, 'sessionKeyAddress'),
    custodyMode: v.oneOf(i.custodyMode, CUSTODY_MODES, 'custodyMode'),
    profile: i.profile === undefined || i.profile === null ? null : v.jsonText(i.profile, 'profile'),
    phase: i.phase === undefined ? 'Thriving' : v.oneOf(i.phase, phaseNames, 'phase'),
    nextTickAt: v.time(i.nextTickAt, 'nextTickAt'),
    now: v.time(i.now, 'now'),
  }
}

function parseLastTick(raw: unknown): LastTick | null {
  if (raw === null) return null
  const t = v.object(raw, 'patch.lastTick')
  return {
    at: v.time(t.at, 'patch.lastTick.at'),
    period: v.period(t.period, 'patch.lastTick.period'),
    outcome: v.shortText(t.outcome, 'patch.lastTick.outcome', 64),
    txHash: t.txHash === undefined || t.txHash === null ? null : v.hex32(t.txHash, 'patch.lastTick.txHash'),
    ...(t.survivalScoreBps === undefined ? {} : { survivalScoreBps: v.basisPoints(t.survivalScoreBps, 'patch.lastTick.survivalScoreBps') }),
    ...(t.failures === undefined ? {} : { failures: v.positiveInt(t.failures, 'patch.lastTick.failures') }),
  }
}

export function parseUpdateGolem(raw: UpdateGolemInput): UpdateGolemInput {
  const i = v.object(raw, 'input')
  const p = v.object(i.patch, 'patch')
  const patch: GolemPatch = {}
  if (p.status !== undefined) patch.status = v.oneOf(p.status, GOLEM_STATUSES, 'patch.status')
  if (p.phase !== undefined) patch.phase = v.oneOf(p.phase, phaseNames, 'patch.phase')
  if (p.nextTickAt !== undefined) patch.nextTickAt = v.time(p.nextTickAt, 'patch.nextTickAt')
  if (p.lastTick !== undefined) patch.lastTick = parseLastTick(p.lastTick)
  if (p.sessionKeyAddress !== undefined) patch.sessionKeyAddress = v.address(p.sessionKeyAddress, 'patch.sessionKeyAddress')
  if (p.profile !== undefined) patch.profile = p.profile === null ? null : v.jsonText(p.profile, 'patch.profile')
  const known = new Set(['status', 'phase', 'nextTickAt', 'lastTick', 'sessionKeyAddress', 'profile'])
  for (const k of Object.keys(p)) if (!known.has(k)) throw new StoreInputError(`patch.${k}`, 'is not a field a Golem update may change')
  if (Object.keys(patch).length === 0) throw new StoreInputError('patch', 'must change at least one field')
  return {
    golemId: v.golemId(i.golemId),
    expectedVersion: v.positiveInt(i.expectedVersion, 'expectedVersion'),
    patch,
    now: v.time(i.now, 'now'),
  }
}

export function parseListDue(
  raw: ListDueInput,
  shards: number,
): { now: number; limit: number; cursor: string | null; shard: number | null } {
  const i = v.object(raw, 'input')
  let shard: number | null = null
  if (i.shard !== undefined) {
    if (typeof i.shard !== 'number' || !Number.isInteger(i.shard) || i.shard < 0 || i.shard >= shards)
      throw new StoreInputError('shard', `must be an integer from 0 to ${shards - 1} (the store's due shards)`)
    shard = i.shard
  }
  return {
    now: v.time(i.now, 'now'),
    limit: i.limit === undefined ? DEFAULT_PAGE_LIMIT : v.positiveInt(i.limit, 'limit', MAX_PAGE_LIMIT),
    cursor: i.cursor === undefined || i.cursor === null ? null : v.shortText(i.cursor, 'cursor', 1024),
    shard,
  }
}

export function parseRecordShardWalks(raw: RecordShardWalksInput, shards: number): { shards: number[]; at: number } {
  const i = v.object(raw, 'input')
  if (!Array.isArray(i.shards)) throw new StoreInputError('shards', 'must be an array of due shards')
  const walked = i.shards.map((shard: unknown, n: number) => {
    if (typeof shard !== 'number' || !Number.isInteger(shard) || shard < 0 || shard >= shards)
      throw new StoreInputError(`shards[${n}]`, `must be an integer from 0 to ${shards - 1} (the store's due shards)`)
    return shard
  })
  return { shards: [...new Set(walked)], at: v.time(i.at, 'at') }
}

export function parseSlotRef(raw: SlotRef): SlotRef {
  const i = v.object(raw, 'input')
  return { golemId: v.golemId(i.golemId), period: v.period(i.period), step: v.step(i.step) }
}

export function parseClaimSlot(raw: ClaimSlotInput): ClaimSlotInput {
  const i = v.object(raw, 'input')
  return {
    ...parseSlotRef(raw),
    owner: v.owner(i.owner),
    now: v.time(i.now, 'now'),
    leaseMs: v.positiveInt(i.leaseMs, 'leaseMs', MAX_LEASE_MS),
  }
}

export function parseClaimSlotWithTx(raw: ClaimSlotWithTxInput): ClaimSlotWithTxInput {
  return { ...parseRecordSlotTx(raw), leaseMs: v.positiveInt(v.object(raw, 'input').leaseMs, 'leaseMs', MAX_LEASE_MS) }
}

export function parseRecordSlotTx(raw: RecordSlotTxInput): RecordSlotTxInput {
  const i = v.object(raw, 'input')
  const out: RecordSlotTxInput = {
    ...parseSlotRef(raw),
    owner: v.owner(i.owner),
    txHash: v.hex32(i.txHash, 'txHash'),
    nonce: v.nonNegativeInt(i.nonce, 'nonce'),
    now: v.time(i.now, 'now'),
  }
  if (i.rawTx !== undefined) out.rawTx = v.hexData(i.rawTx, 'rawTx')
  if (i.sender !== undefined) out.sender = v.address(i.sender, 'sender')
  return out
}

export function parseCompleteSlot(raw: CompleteSlotInput): Omit<CompleteSlotInput, 'detail'> & { detail: JsonObject | null } {
  const i = v.object(raw, 'input')
  const out = {
    ...parseSlotRef(raw),
    owner: v.owner(i.owner),
    outcome: v.oneOf(i.outcome, SLOT_OUTCOMES, 'outcome'),
    now: v.time(i.now, 'now'),
    detail: i.detail === undefined ? null : v.jsonObject(i.detail, 'detail'),
  }
  return i.txHash === undefined ? out : { ...out, txHash: v.hex32(i.txHash, 'txHash') }
}

export function parseReleaseSlot(raw: ReleaseSlotInput): ReleaseSlotInput {
  const i = v.object(raw, 'input')
  return { ...parseSlotRef(raw), owner: v.owner(i.owner), now: v.time(i.now, 'now') }
}

export function parseReserve(raw: ReserveBudgetInput): ReserveBudgetInput {
  const i = v.object(raw, 'input')
  return {
    golemId: v.golemId(i.golemId),
    period: v.period(i.period),
    amount: v.amount(i.amount, 'amount'),
    cap: v.amount(i.cap, 'cap', 0n),
    reservationId: v.id(i.reservationId, 'reservationId'),
    now: v.time(i.now, 'now'),
  }
}

export function parseReservationRef(raw: ReservationRef): ReservationRef {
  const i = v.object(raw, 'input')
  return {
    golemId: v.golemId(i.golemId),
    period: v.period(i.period),
    reservationId: v.id(i.reservationId, 'reservationId'),
    now: v.time(i.now, 'now'),
  }
}

export function parseCommit(raw: CommitReservationInput): CommitReservationInput {
  const ref = parseReservationRef(raw)
  return raw.spent === undefined ? ref : { ...ref, spent: v.amount(raw.spent, 'spent', 0n) }
}

export function parsePaymentRef(raw: PaymentRef): PaymentRef {
  const i = v.object(raw, 'input')
  return { payer: v.address(i.payer, 'payer'), nonce: v.hex32(i.nonce, 'nonce') }
}

function parsePayment(raw: CreditPaymentInput | ClaimPaymentInput) {
  const i = v.object(raw, 'input')
  return {
    ...parsePaymentRef(raw),
    golemId: v.golemId(i.golemId),
    amount: v.amount(i.amount, 'amount'),
    kind: v.oneOf(i.kind, PAYMENT_KINDS, 'kind'),
  }
}

export function parseClaimPayment(raw: ClaimPaymentInput): ClaimPaymentInput {
  const i = v.object(raw, 'input')
  return {
    ...parsePayment(raw),
    owner: v.owner(i.owner),
    now: v.time(i.now, 'now'),
    leaseMs: v.positiveInt(i.leaseMs, 'leaseMs', MAX_LEASE_MS),
  }
}

export function parseCreditPayment(raw: CreditPaymentInput): CreditPaymentInput {
  const i = v.object(raw, 'input')
  const out: CreditPaymentInput = { ...parsePayment(raw), now: v.time(i.now, 'now') }
  if (i.txHash !== undefined) out.txHash = v.hex32(i.txHash, 'txHash')
  if (i.owner !== undefined) out.owner = v.owner(i.owner)
  if (i.signedTx !== undefined) out.signedTx = v.hexData(i.signedTx, 'signedTx')
  if (i.validBefore !== undefined) out.validBefore = v.amount(i.validBefore, 'validBefore', 0n)
  return out
}

export function parseReleasePayment(raw: ReleasePaymentInput): ReleasePaymentInput {
  return { ...parsePaymentRef(raw), owner: v.owner(v.object(raw, 'input').owner) }
}

/** A payment header is at most 16 KiB (the API's cap). */
const MAX_HEADER_CHARS = 16_384
/** An identifier is remembered at most a week. */
const MAX_PAYMENT_ID_TTL_MS = 7 * 24 * 3600 * 1000

export function parsePaymentIdRef(raw: PaymentIdRef): PaymentIdRef {
  const i = v.object(raw, 'input')
  return { payer: v.address(i.payer, 'payer'), paymentId: v.paymentId(i.paymentId) }
}

export function parseBindPaymentId(raw: BindPaymentIdInput): BindPaymentIdInput {
  const i = v.object(raw, 'input')
  return {
    ...parsePaymentIdRef(raw),
    golemId: v.golemId(i.golemId),
    kind: v.oneOf(i.kind, PAYMENT_KINDS, 'kind'),
    amount: v.amount(i.amount, 'amount'),
    header: v.shortText(i.header, 'header', MAX_HEADER_CHARS),
    owner: v.owner(i.owner),
    now: v.time(i.now, 'now'),
    leaseMs: v.positiveInt(i.leaseMs, 'leaseMs', MAX_LEASE_MS),
    ttlMs: v.positiveInt(i.ttlMs, 'ttlMs', MAX_PAYMENT_ID_TTL_MS),
  }
}

export function parseAnswerPaymentId(raw: AnswerPaymentIdInput): AnswerPaymentIdInput & { answer: JsonObject } {
  const i = v.object(raw, 'input')
  return { ...parsePaymentIdRef(raw), owner: v.owner(i.owner), answer: v.jsonObject(i.answer, 'answer'), now: v.time(i.now, 'now') }
}

export function parseReleasePaymentId(raw: ReleasePaymentIdInput): ReleasePaymentIdInput {
  const i = v.object(raw, 'input')
  return { ...parsePaymentIdRef(raw), owner: v.owner(i.owner) }
}

export function parseGetPaymentId(raw: PaymentIdRef & { now: number }): PaymentIdRef & { now: number } {
  const i = v.object(raw, 'input')
  return { ...parsePaymentIdRef(raw), now: v.time(i.now, 'now') }
}

export function parseIssueNonce(raw: IssueNonceInput): { nonce: string; issuedAt: number; expiresAt: number; meta: JsonObject | null } {
  const i = v.object(raw, 'input')
  const issuedAt = v.time(i.issuedAt, 'issuedAt')
  const expiresAt = v.time(i.expiresAt, 'expiresAt')
  if (expiresAt <= issuedAt) throw new StoreInputError('expiresAt', 'must be later than issuedAt')
  return { nonce: v.nonceText(i.nonce), issuedAt, expiresAt, meta: i.meta === undefined ? null : v.jsonObject(i.meta, 'meta') }
}

export function parseConsumeNonce(raw: { nonce: string; now: number }): { nonce: string; now: number } {
  const i = v.object(raw, 'input')
  return { nonce: v.nonceText(i.nonce), now: v.time(i.now, 'now') }
}

export function parseCounter(raw: CounterInput): CounterInput & { resetAt: number } {
  const i = v.object(raw, 'input')
  const windowStart = v.time(i.windowStart, 'windowStart')
  const windowSeconds = v.positiveInt(i.windowSeconds, 'windowSeconds', MAX_WINDOW_SECONDS)
  const now = v.time(i.now, 'now')
  if (now < windowStart) throw new StoreInputError('windowStart', 'must not be later than now')
  return { key: v.counterKey(i.key), windowStart, windowSeconds, now, resetAt: windowStart + windowSeconds * 1000 }
}

export function parseAppendEvent(raw: AppendEventInput): {
  golemId: string
  type: string
  at: number
  data: JsonObject
  eventId: string | undefined
} {
  const i = v.object(raw, 'input')
  return {
    golemId: v.golemId(i.golemId),
    type: v.eventType(i.type),
    at: v.time(i.at, 'at'),
    data: i.data === undefined ? {} : v.jsonObject(i.data, 'data'),
    eventId: i.eventId === undefined ? undefined : v.id(i.eventId, 'eventId'),
  }
}

export function parseListEvents(raw: ListEventsInput) {
  const i = v.object(raw, 'input')
  return {
    golemId: v.golemId(i.golemId),
    limit: i.limit === undefined ? DEFAULT_PAGE_LIMIT : v.positiveInt(i.limit, 'limit', MAX_PAGE_LIMIT),
    cursor: i.cursor === undefined || i.cursor === null ? null : v.shortText(i.cursor, 'cursor', 1024),
    since: i.since === undefined ? null : v.time(i.since, 'since'),
    order: i.order === undefined ? ('asc' as const) : v.oneOf(i.order, ['asc', 'desc'] as const, 'order'),
  }
}

export function parseRecordDeath(raw: RecordDeathInput) {
  const i = v.object(raw, 'input')
  return {
    golemId: v.golemId(i.golemId),
    kind: v.oneOf(i.kind, DEATH_SETTLEMENT_KINDS, 'kind'),
    settlement: v.jsonObject(i.settlement, 'settlement'),
    settledAt: v.time(i.settledAt, 'settledAt'),
  }
}

export function parseScope(raw: unknown): string {
  return raw === undefined ? 'default' : v.id(raw, 'scope')
}

export function parseRotateSnap(raw: RotateSnapTokenInput) {
  const i = v.object(raw, 'input')
  const tokenHash = v.hex32(i.tokenHash, 'tokenHash')
  const expectedHash = i.expectedHash === null ? null : v.hex32(i.expectedHash, 'expectedHash')
  if (expectedHash === tokenHash) throw new StoreInputError('tokenHash', 'must differ from expectedHash (a rotation changes the token)')
  return {
    scope: parseScope(i.scope),
    tokenHash,
    expectedHash,
    now: v.time(i.now, 'now'),
    graceMs: i.graceMs === undefined ? 0 : v.nonNegativeInt(i.graceMs, 'graceMs'),
  }
}

/** At most this many records per append (one ingest request). */
export const MAX_LOG_APPEND = 100

export function parseAppendLog(raw: AppendLogInput): { log: string; records: JsonObject[]; now: number } {
  const i = v.object(raw, 'input')
  if (!Array.isArray(i.records) || i.records.length === 0) throw new StoreInputError('records', 'must be a non-empty array')
  if (i.records.length > MAX_LOG_APPEND) throw new StoreInputError('records', `must hold at most ${MAX_LOG_APPEND} records`)
  return {
    log: v.id(i.log, 'log'),
    records: i.records.map((r: unknown, n: number) => v.jsonObject(r, `records[${n}]`)),
    now: v.time(i.now, 'now'),
  }
}

export function parseReadLog(raw: ReadLogInput): { log: string; after: number; before: number; limit: number; order: 'asc' | 'desc' } {
  const i = v.object(raw, 'input')
  const after = i.after === undefined ? 0 : v.nonNegativeInt(i.after, 'after')
  const before = i.before === undefined ? Number.MAX_SAFE_INTEGER : v.positiveInt(i.before, 'before')
  return {
    log: v.id(i.log, 'log'),
    after,
    before,
    limit: i.limit === undefined ? DEFAULT_PAGE_LIMIT : v.positiveInt(i.limit, 'limit', MAX_PAGE_LIMIT),
    order: i.order === undefined ? 'asc' : v.oneOf(i.order, ['asc', 'desc'] as const, 'order'),
  }
}

export function parseFindGolems(raw: FindGolemsInput): { by: 'owner' | 'sessionKey'; address: string } {
  const i = v.object(raw, 'input')
  const hasOwner = i.owner !== undefined
  const hasKey = i.sessionKey !== undefined
  if (hasOwner === hasKey) throw new StoreInputError('input', 'must name exactly one of owner or sessionKey')
  return hasOwner
    ? { by: 'owner', address: v.address(i.owner, 'owner').toLowerCase() }
    : { by: 'sessionKey', address: v.address(i.sessionKey, 'sessionKey').toLowerCase() }
}

const POOL_KEY_ID = /^[A-Za-z0-9:/_.+=,@-]{1,2048}$/
const CLAIMANT = /^[A-Za-z0-9:_.-]{1,256}$/

/** A KMS key id or ARN, as the pool lists it. */
export function parsePoolKeyId(value: unknown): string {
  if (typeof value !== 'string' || !POOL_KEY_ID.test(value))
    throw new StoreInputError('keyId', 'must be a KMS key id or ARN (1-2048 characters)')
  return value
}

export function parsePoolKeyClaimant(value: unknown): string {
  if (typeof value !== 'string' || !CLAIMANT.test(value))
    throw new StoreInputError('claimant', "must be 1-256 letters, digits, ':', '_', '.' or '-'")
  return value
}

export function parseClaimPoolKey(raw: ClaimPoolKeyInput): ClaimPoolKeyInput {
  const i = v.object(raw, 'input')
  return {
    keyId: parsePoolKeyId(i.keyId),
    address: v.address(i.address, 'address'),
    claimant: parsePoolKeyClaimant(i.claimant),
    now: v.time(i.now, 'now'),
  }
}
