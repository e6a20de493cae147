// The Store in process memory, with DynamoStore's conditional semantics: each method decides and
// writes without awaiting in between, so it is atomic the way a conditional write is. For unit tests
// and the bench; the conformance suite runs against both implementations.
import * as codec from './codec.ts'
import { StoreConflictError, StoreInputError } from '../../core/store/errors.ts'
import * as parse from '../../core/store/inputs.ts'
import { assertNoKeyMaterial } from '../../core/store/keyGuard.ts'
import * as k from './keys.ts'
import type {
  BudgetRecord,
  CounterValue,
  DeathSettlementRecord,
  DueGolem,
  GolemEvent,
  GolemRecord,
  LogRecord,
  NonceRecord,
  PaymentIdRecord,
  PaymentRecord,
  SlotRef,
  SnapTokenRecord,
  TickSlot,
} from '../../core/store/records.ts'
import * as rules from '../../core/store/rules.ts'
import { DEFAULT_DUE_CADENCE_MS, dueEntryChange } from '../../core/store/dueEntry.ts'
import type * as S from '../../core/store/store.ts'
import type * as C from '../../core/council/store.ts'
import { councilAddressKey, councilListKey, councilPageLimit, councilRecordKey, MAX_COUNCILS_PER_LOOKUP } from '../../core/council/store.ts'
import type { Address, Hex } from 'viem'
import * as v from '../../core/store/validate.ts'

const clone = <T>(value: T): T => structuredClone(value)
const slotKey = (r: SlotRef) => `${r.golemId}|${k.slotSk(r.period, r.step)}`
const budgetKey = (golemId: string, period: bigint) => `${golemId}|${k.budgetSk(period)}`

export type InMemoryStoreOptions = { dueShards?: number; dueCadenceMs?: number }

export class InMemoryStore implements S.Store, C.CouncilStore {
  readonly #councilProposals = new Map<string, C.CouncilProposalRecord>()
  readonly #councilSignatures = new Map<string, C.CouncilSignatureRecord[]>()
  readonly #councils = new Map<string, C.CouncilRecord>()
  readonly #golems = new Map<string, GolemRecord>()
  readonly #slots = new Map<string, TickSlot>()
  readonly #budgets = new Map<string, BudgetRecord>()
  readonly #payments = new Map<string, PaymentRecord>()
  readonly #paymentIds = new Map<string, PaymentIdRecord>()
  readonly #nonces = new Map<string, NonceRecord>()
  readonly #counters = new Map<string, CounterValue>()
  readonly #events = new Map<string, GolemEvent>()
  readonly #deaths = new Map<string, DeathSettlementRecord>()
  readonly #snap = new Map<string, SnapTokenRecord>()
  readonly #logs = new Map<string, LogRecord[]>()
  readonly #poolKeys = new Map<string, S.PoolKeyClaim>()
  /** The due entries, kept apart from the records and written by DynamoStore's rule, so both list alike. */
  readonly #due = new Map<string, DueGolem>()
  /** When each due shard was last walked. */
  readonly #walks = new Map<number, number>()
  readonly #shards: number
  readonly #cadenceMs: number

  constructor(options: InMemoryStoreOptions = {}) {
    this.#shards = options.dueShards ?? k.DEFAULT_DUE_SHARDS
    this.#cadenceMs = options.dueCadenceMs ?? DEFAULT_DUE_CADENCE_MS
  }

  get dueShards(): number {
    return this.#shards
  }

  #writeDue(g: GolemRecord): void {
    this.#due.set(g.golemId, { golemId: g.golemId, dueAt: g.nextTickAt, status: g.status, version: g.version })
  }

  // ---- Golems --------------------------------------------------------------------------------

  async createGolem(raw: S.CreateGolemInput): Promise<S.CreateGolemResult> {
    const i = parse.parseCreateGolem(raw)
    const existing = this.#golems.get(i.golemId)
    if (existing) return { created: false, existing: clone(existing) }
    const golem = rules.newGolemRecord(i)
    assertNoKeyMaterial(codec.golemToItem(golem))
    this.#golems.set(golem.golemId, golem)
    this.#writeDue(golem)
    return { created: true, golem: clone(golem) }
  }

  async getGolem(golemId: string): Promise<GolemRecord | null> {
    return clone(this.#golems.get(v.golemId(golemId)) ?? null)
  }

  async getGolems(golemIds: readonly string[]): Promise<GolemRecord[]> {
    return golemIds.flatMap((id) => {
      const golem = this.#golems.get(v.golemId(id))
      return golem ? [clone(golem)] : []
    })
  }

  async updateGolem(raw: S.UpdateGolemInput): Promise<S.UpdateGolemResult> {
    const i = parse.parseUpdateGolem(raw)
    const current = this.#golems.get(i.golemId)
    if (!current) return { updated: false, reason: 'missing', current: null }
    if (current.version !== i.expectedVersion) return { updated: false, reason: 'version', current: clone(current) }
    rules.checkGolemPatch(current, i.patch)
    const next = rules.applyGolemPatch(current, i.patch, i.now)
    assertNoKeyMaterial(codec.golemToItem(next))
    this.#golems.set(next.golemId, next)
    if (dueEntryChange(current, next, i.now, this.#cadenceMs) !== 'none') this.#writeDue(next)
    return { updated: true, golem: clone(next) }
  }

  async listDueGolems(raw: S.ListDueInput): Promise<S.ListDueResult> {
    const i = parse.parseListDue(raw, this.#shards)
    const from = k.decodeDueCursor(i.cursor, this.#shards, i.shard)
    const rows = [...this.#due.values()]
      .map((g) => ({ shard: k.dueShard(g.golemId, this.#shards), sk: k.dueSk(g.golemId), g }))
      .filter((r) => i.shard === null || r.shard === i.shard)
      .filter((r) => r.shard > from.shard || (r.shard === from.shard && (from.after === null || r.sk > from.after)))
      .filter((r) => r.g.dueAt <= i.now && r.g.status !== 'dead')
      .sort((a, b) => a.shard - b.shard || (a.sk < b.sk ? -1 : 1))
    const page = rows.slice(0, i.limit)
    const golems: DueGolem[] = page.map(({ g }) => ({ ...g }))
    const last = page.at(-1)
    return { golems, cursor: page.length === i.limit && last ? k.encodeCursor({ shard: last.shard, after: last.sk }) : null }
  }

  async recordShardWalks(raw: S.RecordShardWalksInput): Promise<void> {
    const i = parse.parseRecordShardWalks(raw, this.#shards)
    for (const shard of i.shards) this.#walks.set(shard, i.at)
  }

  async lastWalkOf(golemId: string): Promise<number | null> {
    return this.#walks.get(k.dueShard(v.golemId(golemId), this.#shards)) ?? null
  }

  async findGolems(raw: S.FindGolemsInput): Promise<GolemRecord[]> {
    const i = parse.parseFindGolems(raw)
    return [...this.#golems.values()]
      .filter((g) => (i.by === 'owner' ? g.owner : g.sessionKeyAddress).toLowerCase() === i.address)
      .sort((a, b) => a.createdAt - b.createdAt || (a.golemId < b.golemId ? -1 : 1))
      .slice(0, k.MAX_GOLEMS_PER_LOOKUP)
      .map(clone)
  }

  // ---- Tick slots ----------------------------------------------------------------------------

  async claimSlot(raw: S.ClaimSlotInput): Promise<S.ClaimSlotResult> {
    const i = parse.parseClaimSlot(raw)
    const existing = this.#slots.get(slotKey(i)) ?? null
    const refusal = rules.slotClaimRefusal(existing, i.owner, i.now)
    if (refusal !== null && existing) return { claimed: false, reason: refusal, slot: clone(existing) }
    return { claimed: true, slot: this.#putSlot(rules.claimedSlot(existing, i)) }
  }

  async claimSlotWithTx(raw: S.ClaimSlotWithTxInput): Promise<S.ClaimSlotResult> {
    const i = parse.parseClaimSlotWithTx(raw)
    const existing = this.#slots.get(slotKey(i)) ?? null
    const refusal = rules.claimWithTxRefusal(existing, i)
    if (refusal !== null && existing)
      return refusal === 'idempotent'
        ? { claimed: true, slot: clone(existing) }
        : { claimed: false, reason: refusal, slot: clone(existing) }
    return { claimed: true, slot: this.#putSlot(rules.claimedSlotWithTx(existing, i)) }
  }

  async recordSlotTx(raw: S.RecordSlotTxInput): Promise<S.RecordSlotTxResult> {
    const i = parse.parseRecordSlotTx(raw)
    const s = this.#slots.get(slotKey(i)) ?? null
    if (s === null) return { recorded: false, reason: 'missing', slot: null }
    const d = rules.recordTxDecision(s, i)
    if (d === 'idempotent') return { recorded: true, slot: clone(s) }
    if (d !== 'write') return { recorded: false, reason: d, slot: clone(s) }
    return {
      recorded: true,
      slot: this.#putSlot({ ...s, ...rules.sentFields(i), version: s.version + 1 }),
    }
  }

  async completeSlot(raw: S.CompleteSlotInput): Promise<S.CompleteSlotResult> {
    const i = parse.parseCompleteSlot(raw)
    const s = this.#slots.get(slotKey(i)) ?? null
    if (s === null) return { completed: false, reason: 'missing', slot: null }
    const d = rules.completeDecision(s, i)
    if (d === 'idempotent') return { completed: true, slot: clone(s) }
    if (d !== 'write') return { completed: false, reason: d, slot: clone(s) }
    const next: TickSlot = { ...s, status: i.outcome, completedAt: i.now, completedBy: i.owner, detail: i.detail, version: s.version + 1 }
    return { completed: true, slot: this.#putSlot(next) }
  }

  async releaseSlot(raw: S.ReleaseSlotInput): Promise<S.ReleaseSlotResult> {
    const i = parse.parseReleaseSlot(raw)
    const s = this.#slots.get(slotKey(i)) ?? null
    if (s === null) return { released: false, reason: 'missing', slot: null }
    const d = rules.releaseSlotDecision(s, i.owner)
    if (d === 'idempotent') return { released: true, slot: clone(s) }
    if (d !== 'write') return { released: false, reason: d, slot: clone(s) }
    return { released: true, slot: this.#putSlot({ ...s, leaseUntil: i.now, version: s.version + 1 }) }
  }

  async getSlot(ref: SlotRef): Promise<TickSlot | null> {
    return clone(this.#slots.get(slotKey(parse.parseSlotRef(ref))) ?? null)
  }

  #putSlot(slot: TickSlot): TickSlot {
    assertNoKeyMaterial(codec.slotToItem(slot))
    this.#slots.set(slotKey(slot), slot)
    return clone(slot)
  }

  // ---- Budget --------------------------------------------------------------------------------

  async reserveBudget(raw: S.ReserveBudgetInput): Promise<S.ReserveBudgetResult> {
    const i = parse.parseReserve(raw)
    return this.#applyBudget(i.golemId, i.period, i.now, (b) => rules.planReserve(b, i))
  }

  async commitReservation(raw: S.CommitReservationInput): Promise<S.CommitReservationResult> {
    const i = parse.parseCommit(raw)
    return this.#applyBudget(i.golemId, i.period, i.now, (b) => rules.planCommit(b, i))
  }

  async releaseReservation(raw: S.ReservationRef): Promise<S.ReleaseReservationResult> {
    const i = parse.parseReservationRef(raw)
    return this.#applyBudget(i.golemId, i.period, i.now, (b) => rules.planRelease(b, i))
  }

  async getBudget(golemId: string, period: bigint): Promise<BudgetRecord | null> {
    return clone(this.#budgets.get(budgetKey(v.golemId(golemId), v.period(period))) ?? null)
  }

  #applyBudget<R>(golemId: string, period: bigint, now: number, plan: (b: BudgetRecord | null) => rules.BudgetPlan<R>): R {
    const key = budgetKey(golemId, period)
    const { next, result } = plan(clone(this.#budgets.get(key) ?? null))
    if (next) {
      assertNoKeyMaterial(codec.budgetToItem(next, now))
      this.#budgets.set(key, clone(next))
    }
    return clone(result)
  }

  // ---- Payments ------------------------------------------------------------------------------

  async claimPayment(raw: S.ClaimPaymentInput): Promise<S.ClaimPaymentResult> {
    const i = parse.parseClaimPayment(raw)
    const key = k.paymentPk(i.payer, i.nonce)
    const existing = this.#payments.get(key) ?? null
    if (!rules.mayClaimPayment(existing, i) && existing) return { claimed: false, existing: clone(existing) }
    return { claimed: true, payment: this.#putPayment(key, rules.claimedPayment(existing, i)) }
  }

  async creditPaymentOnce(raw: S.CreditPaymentInput): Promise<S.CreditPaymentResult> {
    const i = parse.parseCreditPayment(raw)
    const key = k.paymentPk(i.payer, i.nonce)
    const existing = this.#payments.get(key) ?? null
    if (rules.creditDecision(existing, i) === 'refuse' && existing) return { credited: false, existing: clone(existing) }
    return { credited: true, payment: this.#putPayment(key, rules.creditedPayment(existing, i)) }
  }

  async releasePayment(raw: S.ReleasePaymentInput): Promise<S.ReleasePaymentResult> {
    const i = parse.parseReleasePayment(raw)
    const key = k.paymentPk(i.payer, i.nonce)
    const existing = this.#payments.get(key) ?? null
    if (existing?.status !== 'pending' || existing.owner !== i.owner) return { released: false, existing: clone(existing) }
    this.#payments.delete(key)
    return { released: true }
  }

  async getPayment(ref: S.PaymentRef): Promise<PaymentRecord | null> {
    const i = parse.parsePaymentRef(ref)
    return clone(this.#payments.get(k.paymentPk(i.payer, i.nonce)) ?? null)
  }

  #putPayment(key: string, p: PaymentRecord): PaymentRecord {
    assertNoKeyMaterial(codec.paymentToItem(p))
    this.#payments.set(key, p)
    return clone(p)
  }

  // ---- KMS pool keys -------------------------------------------------------------------------

  async claimPoolKey(raw: S.ClaimPoolKeyInput): Promise<S.ClaimPoolKeyResult> {
    const i = parse.parseClaimPoolKey(raw)
    const held = this.#poolKeys.get(i.keyId)
    if (held) return held.claimant === i.claimant ? { claimed: true, claim: { ...held } } : { claimed: false, claim: { ...held } }
    const claim: S.PoolKeyClaim = { keyId: i.keyId, address: i.address, claimant: i.claimant, claimedAt: i.now }
    assertNoKeyMaterial(claim)
    this.#poolKeys.set(i.keyId, claim)
    return { claimed: true, claim: { ...claim } }
  }

  async getPoolKeyClaim(keyId: string): Promise<S.PoolKeyClaim | null> {
    const claim = this.#poolKeys.get(parse.parsePoolKeyId(keyId))
    return claim ? { ...claim } : null
  }

  async findPoolKeyClaim(claimant: string): Promise<S.PoolKeyClaim | null> {
    const who = parse.parsePoolKeyClaimant(claimant)
    const claim = [...this.#poolKeys.values()].find((c) => c.claimant === who)
    return claim ? { ...claim } : null
  }

  // ---- Payment identifiers ---------------------------------------------------------------------

  async bindPaymentId(raw: S.BindPaymentIdInput): Promise<S.BindPaymentIdResult> {
    const i = parse.parseBindPaymentId(raw)
    const key = k.paymentIdPk(i.payer, i.paymentId)
    const existing = this.#paymentIds.get(key) ?? null
    if (existing && !rules.freshPaymentId(existing, i.now) && !rules.mayTakeOverPaymentId(existing, i)) {
      return { bound: false, existing: clone(existing) }
    }
    return { bound: true, record: this.#putPaymentId(key, rules.boundPaymentId(existing, i)) }
  }

  async answerPaymentId(raw: S.AnswerPaymentIdInput): Promise<S.AnswerPaymentIdResult> {
    const i = parse.parseAnswerPaymentId(raw)
    const key = k.paymentIdPk(i.payer, i.paymentId)
    const existing = this.#paymentIds.get(key) ?? null
    if (!rules.holdsPaymentId(existing, i.owner, i.now)) return { answered: false, existing: clone(existing) }
    const record: PaymentIdRecord = {
      ...existing,
      status: 'answered',
      answer: i.answer,
      owner: null,
      leaseUntil: null,
      version: existing.version + 1,
    }
    return { answered: true, record: this.#putPaymentId(key, record) }
  }

  async releasePaymentId(raw: S.ReleasePaymentIdInput): Promise<S.ReleasePaymentIdResult> {
    const i = parse.parseReleasePaymentId(raw)
    const key = k.paymentIdPk(i.payer, i.paymentId)
    const existing = this.#paymentIds.get(key) ?? null
    if (!rules.holdsPaymentId(existing, i.owner)) return { released: false, existing: clone(existing) }
    this.#paymentIds.delete(key)
    return { released: true }
  }

  async getPaymentId(raw: S.PaymentIdRef & { now: number }): Promise<PaymentIdRecord | null> {
    const i = parse.parseGetPaymentId(raw)
    const existing = this.#paymentIds.get(k.paymentIdPk(i.payer, i.paymentId)) ?? null
    return existing === null || rules.freshPaymentId(existing, i.now) ? null : clone(existing)
  }

  #putPaymentId(key: string, p: PaymentIdRecord): PaymentIdRecord {
    assertNoKeyMaterial(codec.paymentIdToItem(p))
    this.#paymentIds.set(key, p)
    return clone(p)
  }

  // ---- Nonces, counters ----------------------------------------------------------------------

  async issueNonce(raw: S.IssueNonceInput): Promise<NonceRecord> {
    const i = parse.parseIssueNonce(raw)
    if (this.#nonces.has(i.nonce)) throw new StoreConflictError('nonce', 'was already issued; nonces are single-use')
    const record: NonceRecord = { ...i, usedAt: null }
    assertNoKeyMaterial(codec.nonceToItem(record))
    this.#nonces.set(i.nonce, record)
    return clone(record)
  }

  async consumeNonce(raw: { nonce: string; now: number }): Promise<S.ConsumeNonceResult> {
    const i = parse.parseConsumeNonce(raw)
    const n = this.#nonces.get(i.nonce)
    if (!n) return { consumed: false, reason: 'unknown' }
    if (n.usedAt !== null) return { consumed: false, reason: 'used' }
    if (i.now >= n.expiresAt) return { consumed: false, reason: 'expired' }
    n.usedAt = i.now
    return { consumed: true, record: clone(n) }
  }

  async incrementCounter(raw: S.CounterInput): Promise<CounterValue> {
    const i = parse.parseCounter(raw)
    const key = k.counterPk(i.key, i.windowStart)
    const value = { count: (this.#counters.get(key)?.count ?? 0) + 1, resetAt: i.resetAt }
    assertNoKeyMaterial(codec.counterToItem(i.key, i.windowStart, value))
    this.#counters.set(key, value)
    return { ...value }
  }

  async getCounter(raw: S.CounterInput): Promise<CounterValue> {
    const i = parse.parseCounter(raw)
    const value = this.#counters.get(k.counterPk(i.key, i.windowStart))
    if (!value || i.now >= value.resetAt) return { count: 0, resetAt: i.resetAt }
    return { ...value }
  }

  // ---- Events, death, Snap -------------------------------------------------------------------

  async appendEvent(raw: S.AppendEventInput): Promise<S.AppendEventResult> {
    const i = parse.parseAppendEvent(raw)
    const event: GolemEvent = { golemId: i.golemId, eventId: i.eventId ?? k.randomEventId(), type: i.type, at: i.at, data: i.data }
    const key = `${i.golemId}|${k.eventSk(event.at, event.eventId)}`
    const existing = this.#events.get(key)
    if (existing) return { appended: false, event: clone(existing) }
    assertNoKeyMaterial(codec.eventToItem(event))
    this.#events.set(key, event)
    return { appended: true, event: clone(event) }
  }

  async listEvents(raw: S.ListEventsInput): Promise<S.ListEventsResult> {
    const i = parse.parseListEvents(raw)
    const after = k.decodeSkCursor(i.cursor)
    const from = i.since === null ? null : k.eventSkFrom(i.since)
    const asc = i.order === 'asc'
    const rows = [...this.#events.values()]
      .filter((e) => e.golemId === i.golemId)
      .map((e) => ({ sk: k.eventSk(e.at, e.eventId), e }))
      .filter((r) => (from === null || r.sk >= from) && (after === null || (asc ? r.sk > after : r.sk < after)))
      .sort((a, b) => (a.sk < b.sk ? -1 : 1) * (asc ? 1 : -1))
    const page = rows.slice(0, i.limit)
    const last = page.at(-1)
    return { events: page.map((r) => clone(r.e)), cursor: page.length === i.limit && last ? k.encodeCursor({ after: last.sk }) : null }
  }

  async recordDeathSettlement(raw: S.RecordDeathInput): Promise<S.RecordDeathResult> {
    const record = parse.parseRecordDeath(raw)
    const existing = this.#deaths.get(record.golemId)
    if (existing) return { written: false, existing: clone(existing) }
    assertNoKeyMaterial(codec.deathToItem(record))
    this.#deaths.set(record.golemId, record)
    return { written: true, record: clone(record) }
  }

  async getDeathSettlement(golemId: string): Promise<DeathSettlementRecord | null> {
    return clone(this.#deaths.get(v.golemId(golemId)) ?? null)
  }

  async getSnapToken(raw: { scope?: string; now: number }): Promise<SnapTokenRecord | null> {
    const i = v.object(raw, 'input')
    const scope = parse.parseScope(i.scope)
    const now = v.time(i.now, 'now')
    const record = this.#snap.get(scope)
    return record ? codec.snapFromItem(codec.snapToItem(record), now) : null
  }

  async rotateSnapToken(raw: S.RotateSnapTokenInput): Promise<S.RotateSnapTokenResult> {
    const i = parse.parseRotateSnap(raw)
    const current = this.#snap.get(i.scope) ?? null
    const matches = i.expectedHash === null ? current === null : current?.tokenHash === i.expectedHash
    if (!matches) return { rotated: false, current: current ? codec.snapFromItem(codec.snapToItem(current), i.now) : null }
    const next: SnapTokenRecord = {
      scope: i.scope,
      tokenHash: i.tokenHash,
      rotatedAt: i.now,
      previousHash: i.expectedHash,
      previousValidUntil: i.expectedHash === null ? null : i.now + i.graceMs,
      version: (current?.version ?? 0) + 1,
    }
    assertNoKeyMaterial(codec.snapToItem(next))
    this.#snap.set(i.scope, next)
    return { rotated: true, token: codec.snapFromItem(codec.snapToItem(next), i.now) }
  }

  // ---- Append-only logs ----------------------------------------------------------------------

  async appendLog(raw: S.AppendLogInput): Promise<S.AppendLogResult> {
    const i = parse.parseAppendLog(raw)
    const log = this.#logs.get(i.log) ?? []
    if (log.length + i.records.length > k.MAX_LOG_SEQ)
      throw new StoreConflictError('log', `is full: it holds at most ${k.MAX_LOG_SEQ} records`)
    const records = i.records.map((data, n): LogRecord => ({ log: i.log, seq: log.length + n + 1, at: i.now, data }))
    for (const r of records) assertNoKeyMaterial(codec.logRecordToItem(r))
    this.#logs.set(i.log, [...log, ...records])
    return { records: clone(records) }
  }

  async readLog(raw: S.ReadLogInput): Promise<LogRecord[]> {
    const i = parse.parseReadLog(raw)
    const inRange = (this.#logs.get(i.log) ?? []).filter((r) => r.seq > i.after && r.seq < i.before)
    return clone((i.order === 'asc' ? inRange : inRange.reverse()).slice(0, i.limit))
  }

  async lastLogRecord(log: string): Promise<LogRecord | null> {
    return clone(this.#logs.get(v.id(log, 'log'))?.at(-1) ?? null)
  }

  // ---- Councils -----------------------------------------------------------------------------

  async createCouncil(record: C.CouncilRecord): Promise<C.CreateCouncilResult> {
    const key = councilAddressKey(record.council)
    const existing = this.#councils.get(key)
    if (existing) return { created: false, existing: clone(existing) }
    assertNoKeyMaterial(record)
    this.#councils.set(key, clone(record))
    return { created: true, record: clone(record) }
  }

  async getCouncil(council: Address): Promise<C.CouncilRecord | null> {
    return clone(this.#councils.get(councilAddressKey(council)) ?? null)
  }

  async listCouncilsByOwner(owner: Address): Promise<C.CouncilRecord[]> {
    return this.#newestCouncils((r) => r.owner.toLowerCase() === owner.toLowerCase())
  }

  async listCouncilsOfGolem(golemId: string): Promise<C.CouncilRecord[]> {
    v.id(golemId, 'golemId')
    return this.#newestCouncils((r) => r.members.some((m) => m.golemId === golemId))
  }

  #newestCouncils(match: (r: C.CouncilRecord) => boolean): C.CouncilRecord[] {
    const found = [...this.#councils.values()].filter(match)
    found.sort((a, b) => (councilRecordKey(a) < councilRecordKey(b) ? 1 : -1))
    return clone(found.slice(0, MAX_COUNCILS_PER_LOOKUP))
  }

  // ---- Council proposals ---------------------------------------------------------------------

  async createCouncilProposal(record: C.CouncilProposalRecord): Promise<C.CreateCouncilProposalResult> {
    const id = councilId(record.id)
    const existing = this.#councilProposals.get(id)
    if (existing) return { created: false, existing: clone(existing) }
    assertNoKeyMaterial(record)
    this.#councilProposals.set(id, clone(record))
    return { created: true, record: clone(record) }
  }

  async getCouncilProposal(id: Hex): Promise<C.CouncilProposalRecord | null> {
    return clone(this.#councilProposals.get(councilId(id)) ?? null)
  }

  async addCouncilSignature(record: C.CouncilSignatureRecord): Promise<C.AddCouncilSignatureResult> {
    const list = this.#councilSignatures.get(councilId(record.proposalId, 'proposalId')) ?? []
    const existing = list.find((s) => s.signer.toLowerCase() === record.signer.toLowerCase())
    if (existing) return { added: false, existing: clone(existing) }
    assertNoKeyMaterial(record)
    this.#councilSignatures.set(record.proposalId, [...list, clone(record)])
    return { added: true, record: clone(record) }
  }

  async listCouncilSignatures(proposalId: Hex): Promise<C.CouncilSignatureRecord[]> {
    return clone([...(this.#councilSignatures.get(councilId(proposalId)) ?? [])].sort((a, b) => a.at - b.at))
  }

  async claimCouncilExecution(input: C.ClaimCouncilExecutionInput): Promise<C.ClaimCouncilExecutionResult> {
    const current = this.#councilProposals.get(councilId(input.id))
    if (!current || (current.status !== 'open' && current.status !== 'rejected')) return { claimed: false, current: clone(current ?? null) }
    const execution = {
      claimant: input.claimant,
      claimedAt: input.now,
      ...(input.fromBlock === undefined ? {} : { fromBlock: input.fromBlock }),
    }
    const next: C.CouncilProposalRecord = { ...current, status: 'executing', execution }
    this.#councilProposals.set(input.id, next)
    return { claimed: true, record: clone(next) }
  }

  async reclaimCouncilExecution(input: C.ReclaimCouncilExecutionInput): Promise<C.ClaimCouncilExecutionResult> {
    const current = this.#councilProposals.get(councilId(input.id))
    if (current?.status !== 'executing' || current.execution?.claimant !== input.from)
      return { claimed: false, current: clone(current ?? null) }
    const next: C.CouncilProposalRecord = {
      ...current,
      execution: { ...current.execution, claimant: input.claimant, claimedAt: input.now },
    }
    this.#councilProposals.set(input.id, next)
    return { claimed: true, record: clone(next) }
  }

  async listCouncilProposals(input: C.ListCouncilProposalsInput): Promise<C.CouncilProposalPage> {
    const limit = councilPageLimit(input.limit)
    const council = councilAddressKey(input.council)
    const sorted = [...this.#councilProposals.values()]
      .filter((r) => r.council.toLowerCase() === council)
      .map((r) => ({ key: councilListKey(r), r }))
      .filter(({ key }) => !input.after || key < input.after)
      .sort((a, b) => (a.key < b.key ? 1 : -1))
    const page = sorted.slice(0, limit)
    return { items: clone(page.map(({ r }) => r)), next: sorted.length > limit ? page.at(-1)!.key : null }
  }

  async noteCouncilExecution(input: C.NoteCouncilExecutionInput): Promise<C.CouncilProposalRecord | null> {
    const current = this.#councilProposals.get(councilId(input.id))
    if (current?.status !== 'executing' || current.execution?.claimant !== input.claimant) return null
    const next: C.CouncilProposalRecord = { ...current, execution: { ...current.execution, ...input.execution } }
    assertNoKeyMaterial(next)
    this.#councilProposals.set(input.id, next)
    return clone(next)
  }

  async finishCouncilExecution(input: C.FinishCouncilExecutionInput & { now: number }): Promise<C.CouncilProposalRecord | null> {
    const current = this.#councilProposals.get(councilId(input.id))
    if (current?.status !== 'executing' || current.execution?.claimant !== input.claimant) return null
    const next: C.CouncilProposalRecord = {
      ...current,
      status: input.status,
      execution: { ...current.execution, ...input.execution, finishedAt: input.now },
    }
    assertNoKeyMaterial(next)
    this.#councilProposals.set(input.id, next)
    return clone(next)
  }
}

function councilId(value: string, field = 'id'): string {
  if (!/^0x[0-9a-f]{32}$/.test(value)) throw new StoreInputError(field, 'must be a council proposal id: 0x and 16 bytes of lowercase hex')
  return value
}
