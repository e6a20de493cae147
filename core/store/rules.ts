// The state machines, as pure decisions over what is stored. InMemoryStore applies them directly;
// DynamoStore states the same rules as condition expressions and uses these to explain a refusal
// (and to plan read-modify-write budget updates). Keep the two in step: the conformance suite runs both.
import { StoreConflictError, StoreInputError } from './errors.ts'
import type {
  BudgetRecord,
  GolemRecord,
  GolemStatus,
  PaymentIdRecord,
  PaymentRecord,
  Reservation,
  SlotStatus,
  TickSlot,
} from './records.ts'
import type {
  BindPaymentIdInput,
  ClaimPaymentInput,
  ClaimSlotInput,
  ClaimSlotWithTxInput,
  CommitReservationInput,
  CommitReservationResult,
  CompleteSlotInput,
  CreateGolemInput,
  CreditPaymentInput,
  GolemPatch,
  RecordSlotTxInput,
  ReleaseReservationResult,
  ReservationRef,
  ReserveBudgetInput,
  ReserveBudgetResult,
} from './store.ts'

const TERMINAL: ReadonlySet<SlotStatus> = new Set(['confirmed', 'failed', 'reconciled'])
export const isTerminal = (s: TickSlot) => TERMINAL.has(s.status)

/**
 * A slot that settled without landing: `reconciled` (its nonce went to another transaction of the key, so
 * it can never be mined) or `failed` (reverted). A completed slot is never claimed again, so a step that
 * must still happen goes on under a fresh slot of its own: its next attempt's.
 */
export const isSpent = (status: string | undefined): boolean => status === 'reconciled' || status === 'failed'

// ---- Tick slots ------------------------------------------------------------------------------

/** null: the caller may claim. A slot with a recorded tx is never claimable again. */
export function slotClaimRefusal(s: TickSlot | null, owner: string, now: number): null | 'leased' | 'sent' | 'completed' {
  if (s === null) return null
  if (isTerminal(s)) return 'completed'
  if (s.status === 'sent' || s.txHash !== null) return 'sent'
  if (s.owner === owner || s.leaseUntil <= now) return null
  return 'leased'
}

export function claimedSlot(existing: TickSlot | null, i: ClaimSlotInput): TickSlot {
  return {
    golemId: i.golemId,
    period: i.period,
    step: i.step,
    status: 'claimed',
    owner: i.owner,
    claimedAt: i.now,
    leaseUntil: i.now + i.leaseMs,
    claims: (existing?.claims ?? 0) + 1,
    txHash: null,
    txNonce: null,
    txSender: null,
    rawTx: null,
    sentAt: null,
    completedAt: null,
    completedBy: null,
    detail: null,
    version: (existing?.version ?? 0) + 1,
  }
}

/** A claim with its transaction: refused on the claim's rule, except the holder's retry of the same transaction. */
export function claimWithTxRefusal(s: TickSlot | null, i: ClaimSlotWithTxInput): null | 'idempotent' | 'leased' | 'sent' | 'completed' {
  if (s?.status === 'sent' && s.owner === i.owner && s.txHash === i.txHash) return 'idempotent'
  return slotClaimRefusal(s, i.owner, i.now)
}

/** What recording a signed transaction sets on a slot: it is `sent`, with the bytes to re-broadcast. */
export const sentFields = (i: RecordSlotTxInput) =>
  ({
    status: 'sent',
    txHash: i.txHash,
    txNonce: i.nonce,
    txSender: i.sender ?? null,
    rawTx: i.rawTx ?? null,
    sentAt: i.now,
  }) satisfies Partial<TickSlot>

/** The slot a claim with its transaction writes: claimed and sent at once. */
export function claimedSlotWithTx(existing: TickSlot | null, i: ClaimSlotWithTxInput): TickSlot {
  return { ...claimedSlot(existing, i), ...sentFields(i) }
}

export type Decision<R extends string> = 'write' | 'idempotent' | R

export function recordTxDecision(s: TickSlot | null, i: RecordSlotTxInput): Decision<'missing' | 'notOwner' | 'alreadySent' | 'completed'> {
  if (s === null) return 'missing'
  if (isTerminal(s)) return 'completed'
  if (s.status === 'sent') return s.owner === i.owner && s.txHash === i.txHash ? 'idempotent' : 'alreadySent'
  return s.owner === i.owner ? 'write' : 'notOwner'
}

/** Whether the 'claimed' branch of completion applies: only failed/reconciled, and no tx claimed. */
export const completesFromClaimed = (i: Pick<CompleteSlotInput, 'outcome' | 'txHash'>) =>
  i.outcome !== 'confirmed' && i.txHash === undefined

export function completeDecision(
  s: TickSlot | null,
  i: Pick<CompleteSlotInput, 'owner' | 'outcome' | 'txHash'>,
): Decision<'missing' | 'notOwner' | 'notSent' | 'txMismatch' | 'completed'> {
  if (s === null) return 'missing'
  if (isTerminal(s)) return s.status === i.outcome && (i.txHash === undefined || i.txHash === s.txHash) ? 'idempotent' : 'completed'
  if (s.status === 'sent') return i.txHash !== undefined && i.txHash !== s.txHash ? 'txMismatch' : 'write'
  if (s.owner !== i.owner) return 'notOwner'
  return completesFromClaimed(i) ? 'write' : 'notSent'
}

export function releaseSlotDecision(s: TickSlot | null, owner: string): Decision<'missing' | 'notOwner' | 'sent' | 'completed'> {
  if (s === null) return 'missing'
  if (isTerminal(s)) return 'completed'
  if (s.status === 'sent') return 'sent'
  return s.owner === owner ? 'write' : 'notOwner'
}

// ---- Golems ----------------------------------------------------------------------------------

const STATUS_ORDER: Record<GolemStatus, number> = { alive: 0, dying: 1, dead: 2 }

/** Throws if the patch may not apply to `g`: a dead Golem's record is final; status never goes back. */
/** A new Golem's record: alive, at version 1, never ticked. */
export function newGolemRecord(i: Required<CreateGolemInput>): GolemRecord {
  return {
    golemId: i.golemId,
    owner: i.owner,
    sessionKeyAddress: i.sessionKeyAddress,
    custodyMode: i.custodyMode,
    profile: i.profile,
    status: 'alive',
    phase: i.phase,
    nextTickAt: i.nextTickAt,
    lastTick: null,
    createdAt: i.now,
    updatedAt: i.now,
    version: 1,
  }
}

export function checkGolemPatch(g: GolemRecord, patch: GolemPatch): void {
  if (g.status === 'dead') throw new StoreConflictError('status', 'the Golem is dead; its record is final')
  if (patch.status !== undefined && STATUS_ORDER[patch.status] < STATUS_ORDER[g.status]) {
    throw new StoreConflictError('patch.status', `cannot go from ${g.status} back to ${patch.status}: the death protocol is irreversible`)
  }
}

/** The statuses a record may be in for a patch to move it to `status` (the death protocol never goes back). */
export function statusesThatMayBecome(status: GolemStatus): GolemStatus[] {
  return (Object.keys(STATUS_ORDER) as GolemStatus[]).filter((s) => s !== 'dead' && STATUS_ORDER[s] <= STATUS_ORDER[status])
}

export function applyGolemPatch(g: GolemRecord, patch: GolemPatch, now: number): GolemRecord {
  return { ...g, ...patch, updatedAt: now, version: g.version + 1 }
}

// ---- Budget reservations ---------------------------------------------------------------------

export type BudgetPlan<R> = { next?: BudgetRecord; result: R }

const find = (b: BudgetRecord | null, id: string) => b?.reservations.find((r) => r.reservationId === id)
const replace = (b: BudgetRecord, r: Reservation): Reservation[] => b.reservations.map((x) => (x.reservationId === r.reservationId ? r : x))
const headroom = (b: BudgetRecord | null, cap: bigint) => {
  const used = (b?.reserved ?? 0n) + (b?.spent ?? 0n)
  return cap > used ? cap - used : 0n
}

export function planReserve(b: BudgetRecord | null, i: ReserveBudgetInput): BudgetPlan<ReserveBudgetResult> {
  const existing = find(b, i.reservationId)
  if (existing !== undefined && b !== null) {
    if (existing.amount !== i.amount)
      throw new StoreConflictError('amount', `reservation ${i.reservationId} already exists with a different amount`)
    if (existing.state === 'released') return { result: { reserved: false, reason: 'released', available: headroom(b, i.cap), budget: b } }
    return { result: { reserved: true, reservation: existing, budget: b } }
  }
  const available = headroom(b, i.cap)
  if (i.amount > available) return { result: { reserved: false, reason: 'cap', available, budget: b } }
  const reservation: Reservation = { reservationId: i.reservationId, amount: i.amount, state: 'reserved', spent: null, at: i.now }
  const next: BudgetRecord = {
    golemId: i.golemId,
    period: i.period,
    reserved: (b?.reserved ?? 0n) + i.amount,
    spent: b?.spent ?? 0n,
    cap: i.cap,
    reservations: [...(b?.reservations ?? []), reservation],
    version: (b?.version ?? 0) + 1,
  }
  return { next, result: { reserved: true, reservation, budget: next } }
}

export function planCommit(b: BudgetRecord | null, i: CommitReservationInput): BudgetPlan<CommitReservationResult> {
  const r = find(b, i.reservationId)
  if (b === null || r === undefined) return { result: { committed: false, reason: 'unknown', budget: b } }
  if (r.state === 'released') return { result: { committed: false, reason: 'released', budget: b } }
  const spent = i.spent ?? r.amount
  if (spent > r.amount) throw new StoreInputError('spent', 'must not exceed the reserved amount')
  if (r.state === 'committed') {
    if (i.spent !== undefined && r.spent !== i.spent)
      throw new StoreConflictError('spent', `reservation ${i.reservationId} was already committed with another amount`)
    return { result: { committed: true, reservation: r, budget: b } }
  }
  const updated: Reservation = { ...r, state: 'committed', spent }
  const next: BudgetRecord = {
    ...b,
    reserved: b.reserved - r.amount,
    spent: b.spent + spent,
    reservations: replace(b, updated),
    version: b.version + 1,
  }
  return { next, result: { committed: true, reservation: updated, budget: next } }
}

export function planRelease(b: BudgetRecord | null, i: ReservationRef): BudgetPlan<ReleaseReservationResult> {
  const r = find(b, i.reservationId)
  if (b === null || r === undefined) return { result: { released: false, reason: 'unknown', budget: b } }
  if (r.state === 'committed') return { result: { released: false, reason: 'committed', budget: b } }
  if (r.state === 'released') return { result: { released: true, reservation: r, budget: b } }
  const updated: Reservation = { ...r, state: 'released' }
  const next: BudgetRecord = { ...b, reserved: b.reserved - r.amount, reservations: replace(b, updated), version: b.version + 1 }
  return { next, result: { released: true, reservation: updated, budget: next } }
}

// ---- Payments --------------------------------------------------------------------------------

const lapsed = (p: PaymentRecord, now: number) => p.status === 'pending' && (p.leaseUntil ?? 0) <= now
const sameTerms = (p: PaymentRecord, i: { golemId: string; amount: bigint; kind: string }) =>
  p.golemId === i.golemId && p.amount === i.amount && p.kind === i.kind

/**
 * A lapsed pending claim may be taken over and the caller's own pending claim renewed, but only for
 * the terms it was first made for: its settlement may already be on-chain, so it never rebinds.
 */
export function mayClaimPayment(p: PaymentRecord | null, i: ClaimPaymentInput): boolean {
  return p === null || (p.status === 'pending' && sameTerms(p, i) && (lapsed(p, i.now) || p.owner === i.owner))
}

/** 'write' or 'refuse'; throws when the caller's own pending claim was for other terms. */
export function creditDecision(p: PaymentRecord | null, i: CreditPaymentInput): 'write' | 'refuse' {
  if (p === null) return 'write'
  if (p.status === 'settled') return 'refuse'
  const mine = i.owner !== undefined && p.owner === i.owner
  if (mine && sameTerms(p, i)) return 'write'
  if (lapsed(p, i.now)) return 'write'
  if (mine) {
    const field = p.golemId !== i.golemId ? 'golemId' : p.amount !== i.amount ? 'amount' : 'kind'
    throw new StoreConflictError(field, 'differs from the pending claim this owner made for the same payment')
  }
  return 'refuse'
}

export function claimedPayment(existing: PaymentRecord | null, i: ClaimPaymentInput): PaymentRecord {
  return {
    payer: i.payer,
    nonce: i.nonce,
    golemId: i.golemId,
    amount: i.amount,
    kind: i.kind,
    status: 'pending',
    owner: i.owner,
    leaseUntil: i.now + i.leaseMs,
    txHash: null,
    claimedAt: i.now,
    creditedAt: null,
    version: (existing?.version ?? 0) + 1,
  }
}

export function creditedPayment(existing: PaymentRecord | null, i: CreditPaymentInput): PaymentRecord {
  return {
    payer: i.payer,
    nonce: i.nonce,
    golemId: i.golemId,
    amount: i.amount,
    kind: i.kind,
    status: 'settled',
    owner: i.owner ?? null,
    leaseUntil: null,
    txHash: i.txHash ?? null,
    claimedAt: existing?.claimedAt ?? null,
    creditedAt: i.now,
    ...(i.signedTx === undefined ? {} : { signedTx: i.signedTx }),
    ...(i.validBefore === undefined ? {} : { validBefore: i.validBefore }),
    version: (existing?.version ?? 0) + 1,
  }
}

// ---- Payment identifiers -------------------------------------------------------------------------

const idExpired = (p: PaymentIdRecord, now: number) => p.expiresAt <= now

/** Absent or expired: bind afresh. */
export function freshPaymentId(p: PaymentIdRecord | null, now: number): boolean {
  return p === null || idExpired(p, now)
}

/** A pending binding for the same terms whose holder is the caller or whose lease lapsed may be taken over. */
export function mayTakeOverPaymentId(p: PaymentIdRecord, i: BindPaymentIdInput): boolean {
  return (
    !idExpired(p, i.now) &&
    p.status === 'pending' &&
    p.golemId === i.golemId &&
    p.kind === i.kind &&
    p.amount === i.amount &&
    (p.owner === i.owner || (p.leaseUntil ?? 0) <= i.now)
  )
}

export function boundPaymentId(existing: PaymentIdRecord | null, i: BindPaymentIdInput): PaymentIdRecord {
  if (existing !== null && !freshPaymentId(existing, i.now)) {
    return { ...existing, owner: i.owner, leaseUntil: i.now + i.leaseMs, version: existing.version + 1 }
  }
  return {
    payer: i.payer,
    paymentId: i.paymentId,
    golemId: i.golemId,
    kind: i.kind,
    amount: i.amount,
    header: i.header,
    status: 'pending',
    owner: i.owner,
    leaseUntil: i.now + i.leaseMs,
    answer: null,
    boundAt: i.now,
    expiresAt: i.now + i.ttlMs,
    version: (existing?.version ?? 0) + 1,
  }
}

/** The owner's pending binding may be answered (while it has not expired) or released. */
export function holdsPaymentId(p: PaymentIdRecord | null, owner: string, now?: number): p is PaymentIdRecord {
  return p !== null && (now === undefined || !idExpired(p, now)) && p.status === 'pending' && p.owner === owner
}
