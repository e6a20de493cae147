// Records <-> table items. bigints travel as decimal strings, absent values as absent attributes (so
// conditions can say attribute_not_exists), and every item names its `entity`. Both stores encode
// through here, so the key guard judges the same attributes in both.
import type { Address, Hex } from 'viem'
import * as k from './keys.ts'
import type {
  BudgetRecord,
  CounterValue,
  DeathSettlementRecord,
  DueGolem,
  GolemEvent,
  GolemRecord,
  JsonObject,
  LogRecord,
  NonceRecord,
  PaymentIdRecord,
  PaymentRecord,
  Reservation,
  SnapTokenRecord,
  TickSlot,
} from '../../core/store/records.ts'
import type { GolemPatch } from '../../core/store/store.ts'

export type Item = Record<string, unknown>

/** Drops undefined and null attributes. */
export function compact(item: Item): Item {
  const out: Item = {}
  for (const [key, value] of Object.entries(item)) if (value !== undefined && value !== null) out[key] = value
  return out
}

const big = (value: unknown): bigint => BigInt(value as string)
const num = (value: unknown): number => Number(value)
const orNull = <T>(value: unknown, map: (v: unknown) => T): T | null => (value === undefined || value === null ? null : map(value))
const str = (value: unknown) => value as string
/** Seconds, for a DynamoDB TTL setting that production may enable as garbage collection only. */
export const ttlSeconds = (ms: number) => Math.ceil(ms / 1000)

export function golemToItem(g: GolemRecord): Item {
  return compact({
    pk: k.golemPk(g.golemId),
    sk: k.SK.golem,
    entity: 'golem',
    golemId: g.golemId,
    owner: g.owner,
    sessionKeyAddress: g.sessionKeyAddress,
    custodyMode: g.custodyMode,
    profile: g.profile,
    status: g.status,
    phase: g.phase,
    nextTickAt: g.nextTickAt,
    lastTick: g.lastTick === null ? null : lastTickToItem(g.lastTick),
    createdAt: g.createdAt,
    updatedAt: g.updatedAt,
    version: g.version,
  })
}

function lastTickToItem(t: NonNullable<GolemRecord['lastTick']>): Item {
  return compact({
    at: t.at,
    period: t.period.toString(),
    outcome: t.outcome,
    txHash: t.txHash,
    survivalScoreBps: t.survivalScoreBps,
    failures: t.failures,
  })
}

/**
 * A Golem patch as the attributes it sets and the ones it removes, encoded as golemToItem encodes them
 * (a field patched to null is absent from the item, as it is from a whole record written with null).
 */
export function golemPatchToUpdate(patch: GolemPatch): { set: Item; remove: string[] } {
  const set: Item = {}
  const remove: string[] = []
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue
    if (value === null) remove.push(field)
    else set[field] = field === 'lastTick' ? lastTickToItem(value as NonNullable<GolemPatch['lastTick']>) : value
  }
  return { set, remove }
}

export function golemFromItem(i: Item): GolemRecord {
  const t = i.lastTick as Item | undefined
  return {
    golemId: str(i.golemId),
    owner: i.owner as Address,
    sessionKeyAddress: i.sessionKeyAddress as Address,
    custodyMode: i.custodyMode as GolemRecord['custodyMode'],
    profile: orNull(i.profile, str),
    status: i.status as GolemRecord['status'],
    phase: i.phase as GolemRecord['phase'],
    nextTickAt: num(i.nextTickAt),
    lastTick:
      t === undefined
        ? null
        : {
            at: num(t.at),
            period: big(t.period),
            outcome: str(t.outcome),
            txHash: orNull(t.txHash, (h) => h as Hex),
            ...(t.survivalScoreBps === undefined ? {} : { survivalScoreBps: num(t.survivalScoreBps) }),
            ...(t.failures === undefined ? {} : { failures: num(t.failures) }),
          },
    createdAt: num(i.createdAt),
    updatedAt: num(i.updatedAt),
    version: num(i.version),
  }
}

export function dueToItem(g: GolemRecord, shards: number): Item {
  return {
    pk: k.duePk(k.dueShard(g.golemId, shards)),
    sk: k.dueSk(g.golemId),
    entity: 'due',
    golemId: g.golemId,
    dueAt: g.nextTickAt,
    status: g.status,
    version: g.version,
  }
}

/** A lookup entry (OWNER#<owner> or KEY#<sessionKey>) pointing at a Golem; the Golem record is the truth. */
export function lookupToItem(pk: string, golemId: string, createdAt: number): Item {
  return { pk, sk: k.dueSk(golemId), entity: 'lookup', golemId, createdAt }
}

export function dueFromItem(i: Item): DueGolem {
  return { golemId: str(i.golemId), dueAt: num(i.dueAt), status: i.status as DueGolem['status'], version: num(i.version) }
}

export function slotToItem(s: TickSlot): Item {
  return compact({
    pk: k.golemPk(s.golemId),
    sk: k.slotSk(s.period, s.step),
    entity: 'slot',
    golemId: s.golemId,
    period: s.period.toString(),
    step: s.step,
    status: s.status,
    owner: s.owner,
    claimedAt: s.claimedAt,
    leaseUntil: s.leaseUntil,
    claims: s.claims,
    txHash: s.txHash,
    txNonce: s.txNonce,
    txSender: s.txSender,
    rawTx: s.rawTx,
    sentAt: s.sentAt,
    completedAt: s.completedAt,
    completedBy: s.completedBy,
    detail: s.detail,
    version: s.version,
  })
}

export function slotFromItem(i: Item): TickSlot {
  return {
    golemId: str(i.golemId),
    period: big(i.period),
    step: str(i.step),
    status: i.status as TickSlot['status'],
    owner: str(i.owner),
    claimedAt: num(i.claimedAt),
    leaseUntil: num(i.leaseUntil),
    claims: num(i.claims),
    txHash: orNull(i.txHash, (h) => h as Hex),
    txNonce: orNull(i.txNonce, num),
    txSender: orNull(i.txSender, (a) => a as Address),
    rawTx: orNull(i.rawTx, (h) => h as Hex),
    sentAt: orNull(i.sentAt, num),
    completedAt: orNull(i.completedAt, num),
    completedBy: orNull(i.completedBy, str),
    detail: orNull(i.detail, (d) => d as JsonObject),
    version: num(i.version),
  }
}

export function budgetToItem(b: BudgetRecord, now: number): Item {
  const reservations: Item = {}
  for (const r of b.reservations)
    reservations[r.reservationId] = compact({ amount: r.amount.toString(), state: r.state, spent: r.spent?.toString(), at: r.at })
  return {
    pk: k.golemPk(b.golemId),
    sk: k.budgetSk(b.period),
    entity: 'budget',
    golemId: b.golemId,
    period: b.period.toString(),
    reserved: b.reserved.toString(),
    spent: b.spent.toString(),
    cap: b.cap.toString(),
    reservations,
    version: b.version,
    updatedAt: now,
  }
}

export function budgetFromItem(i: Item): BudgetRecord {
  const reservations: Reservation[] = Object.entries((i.reservations ?? {}) as Record<string, Item>).map(([reservationId, r]) => ({
    reservationId,
    amount: big(r.amount),
    state: r.state as Reservation['state'],
    spent: orNull(r.spent, big),
    at: num(r.at),
  }))
  reservations.sort((a, b) => a.at - b.at || (a.reservationId < b.reservationId ? -1 : 1))
  return {
    golemId: str(i.golemId),
    period: big(i.period),
    reserved: big(i.reserved),
    spent: big(i.spent),
    cap: big(i.cap),
    reservations,
    version: num(i.version),
  }
}

export function paymentToItem(p: PaymentRecord): Item {
  return compact({
    pk: k.paymentPk(p.payer, p.nonce),
    sk: k.SK.payment,
    entity: 'payment',
    payer: p.payer,
    nonce: p.nonce,
    golemId: p.golemId,
    amount: p.amount.toString(),
    kind: p.kind,
    status: p.status,
    owner: p.owner,
    leaseUntil: p.leaseUntil,
    txHash: p.txHash,
    claimedAt: p.claimedAt,
    creditedAt: p.creditedAt,
    signedTx: p.signedTx,
    validBefore: p.validBefore?.toString(),
    version: p.version,
  })
}

export function paymentFromItem(i: Item): PaymentRecord {
  return {
    payer: i.payer as Address,
    nonce: i.nonce as Hex,
    golemId: str(i.golemId),
    amount: big(i.amount),
    kind: i.kind as PaymentRecord['kind'],
    status: i.status as PaymentRecord['status'],
    owner: orNull(i.owner, str),
    leaseUntil: orNull(i.leaseUntil, num),
    txHash: orNull(i.txHash, (h) => h as Hex),
    claimedAt: orNull(i.claimedAt, num),
    creditedAt: orNull(i.creditedAt, num),
    ...(i.signedTx === undefined ? {} : { signedTx: i.signedTx as Hex }),
    ...(i.validBefore === undefined ? {} : { validBefore: big(i.validBefore) }),
    version: num(i.version),
  }
}

export function paymentIdToItem(p: PaymentIdRecord): Item {
  return compact({
    pk: k.paymentIdPk(p.payer, p.paymentId),
    sk: k.SK.paymentId,
    entity: 'paymentId',
    payer: p.payer,
    paymentId: p.paymentId,
    golemId: p.golemId,
    kind: p.kind,
    amount: p.amount.toString(),
    header: p.header,
    status: p.status,
    owner: p.owner,
    leaseUntil: p.leaseUntil,
    answer: p.answer === null ? null : JSON.stringify(p.answer),
    boundAt: p.boundAt,
    expiresAt: p.expiresAt,
    version: p.version,
    ttl: ttlSeconds(p.expiresAt),
  })
}

export function paymentIdFromItem(i: Item): PaymentIdRecord {
  return {
    payer: i.payer as Address,
    paymentId: str(i.paymentId),
    golemId: str(i.golemId),
    kind: i.kind as PaymentIdRecord['kind'],
    amount: big(i.amount),
    header: str(i.header),
    status: i.status as PaymentIdRecord['status'],
    owner: orNull(i.owner, str),
    leaseUntil: orNull(i.leaseUntil, num),
    answer: orNull(i.answer, (a) => JSON.parse(a as string) as JsonObject),
    boundAt: num(i.boundAt),
    expiresAt: num(i.expiresAt),
    version: num(i.version),
  }
}

export function nonceToItem(n: NonceRecord): Item {
  return compact({
    pk: k.noncePk(n.nonce),
    sk: k.SK.nonce,
    entity: 'nonce',
    nonce: n.nonce,
    issuedAt: n.issuedAt,
    expiresAt: n.expiresAt,
    usedAt: n.usedAt,
    meta: n.meta,
    ttl: ttlSeconds(n.expiresAt),
  })
}

export function nonceFromItem(i: Item): NonceRecord {
  return {
    nonce: str(i.nonce),
    issuedAt: num(i.issuedAt),
    expiresAt: num(i.expiresAt),
    usedAt: orNull(i.usedAt, num),
    meta: orNull(i.meta, (m) => m as JsonObject),
  }
}

export function counterToItem(key: string, windowStart: number, value: CounterValue): Item {
  return {
    pk: k.counterPk(key, windowStart),
    sk: k.SK.counter,
    entity: 'counter',
    bucket: key,
    windowStart,
    count: value.count,
    resetAt: value.resetAt,
    ttl: ttlSeconds(value.resetAt),
  }
}

export function eventToItem(e: GolemEvent): Item {
  return {
    pk: k.golemPk(e.golemId),
    sk: k.eventSk(e.at, e.eventId),
    entity: 'event',
    golemId: e.golemId,
    eventId: e.eventId,
    type: e.type,
    at: e.at,
    data: e.data,
  }
}

export function eventFromItem(i: Item): GolemEvent {
  return { golemId: str(i.golemId), eventId: str(i.eventId), type: str(i.type), at: num(i.at), data: (i.data ?? {}) as JsonObject }
}

export function logRecordToItem(r: LogRecord): Item {
  return { pk: k.logPk(r.log), sk: k.logSk(r.seq), entity: 'log', log: r.log, seq: r.seq, at: r.at, data: r.data }
}

export function logRecordFromItem(i: Item): LogRecord {
  return { log: str(i.log), seq: num(i.seq), at: num(i.at), data: (i.data ?? {}) as JsonObject }
}

export function deathToItem(d: DeathSettlementRecord): Item {
  return {
    pk: k.golemPk(d.golemId),
    sk: k.SK.death,
    entity: 'death',
    golemId: d.golemId,
    kind: d.kind,
    settlement: d.settlement,
    settledAt: d.settledAt,
  }
}

export function deathFromItem(i: Item): DeathSettlementRecord {
  return {
    golemId: str(i.golemId),
    kind: i.kind as DeathSettlementRecord['kind'],
    settlement: i.settlement as JsonObject,
    settledAt: num(i.settledAt),
  }
}

export function snapToItem(s: SnapTokenRecord): Item {
  return compact({
    pk: k.snapPk(s.scope),
    sk: k.SK.snap,
    entity: 'snap',
    scope: s.scope,
    tokenHash: s.tokenHash,
    rotatedAt: s.rotatedAt,
    previousHash: s.previousHash,
    previousValidUntil: s.previousValidUntil,
    version: s.version,
  })
}

/** Expiry is checked on read: the previous hash disappears once its grace period is over. */
export function snapFromItem(i: Item, now: number): SnapTokenRecord {
  const until = orNull(i.previousValidUntil, num)
  const live = until !== null && now < until
  return {
    scope: str(i.scope),
    tokenHash: i.tokenHash as Hex,
    rotatedAt: num(i.rotatedAt),
    previousHash: live ? orNull(i.previousHash, (h) => h as Hex) : null,
    previousValidUntil: live ? until : null,
    version: num(i.version),
  }
}
