// Per-Golem history on DynamoDB (custody events, the write-once DeathSettlement) and the Snap bearer
// token's hash with its compare-and-swap rotation.
import * as codec from '../codec.ts'
import { StoreConflictError } from '../../../core/store/errors.ts'
import * as parse from '../../../core/store/inputs.ts'
import * as k from '../keys.ts'
import type { DeathSettlementRecord, GolemEvent, SnapTokenRecord } from '../../../core/store/records.ts'
import type * as S from '../../../core/store/store.ts'
import * as v from '../../../core/store/validate.ts'
import type { DynamoTable } from './table.ts'

export async function appendEvent(table: DynamoTable, raw: S.AppendEventInput): Promise<S.AppendEventResult> {
  const i = parse.parseAppendEvent(raw)
  const event: GolemEvent = { golemId: i.golemId, eventId: i.eventId ?? k.randomEventId(), type: i.type, at: i.at, data: i.data }
  const item = codec.eventToItem(event)
  if (await table.put(item, { expression: 'attribute_not_exists(pk)' })) return { appended: true, event }
  const existing = await table.get({ pk: item.pk as string, sk: item.sk as string })
  return { appended: false, event: existing ? codec.eventFromItem(existing) : event }
}

export async function listEvents(table: DynamoTable, raw: S.ListEventsInput): Promise<S.ListEventsResult> {
  const i = parse.parseListEvents(raw)
  const after = k.decodeSkCursor(i.cursor)
  const range = i.since === null ? { skBeginsWith: k.EVENT_PREFIX } : { skFrom: k.eventSkFrom(i.since), skTo: `${k.EVENT_PREFIX}~` }
  const page = await table.query({ pk: k.golemPk(i.golemId), ...range, limit: i.limit, after, forward: i.order === 'asc' })
  const events = page.items.map(codec.eventFromItem)
  const last = page.items.at(-1)
  return { events, cursor: events.length === i.limit && last ? k.encodeCursor({ after: last.sk as string }) : null }
}

export async function recordDeathSettlement(table: DynamoTable, raw: S.RecordDeathInput): Promise<S.RecordDeathResult> {
  const record = parse.parseRecordDeath(raw)
  if (await table.put(codec.deathToItem(record), { expression: 'attribute_not_exists(pk)' })) return { written: true, record }
  const existing = await getDeathSettlement(table, record.golemId)
  if (!existing) throw new StoreConflictError('golemId', 'the death settlement vanished after a refused write (it is never deleted)')
  return { written: false, existing }
}

export async function getDeathSettlement(table: DynamoTable, golemId: string): Promise<DeathSettlementRecord | null> {
  const item = await table.get({ pk: k.golemPk(v.golemId(golemId)), sk: k.SK.death })
  return item ? codec.deathFromItem(item) : null
}

export async function getSnapToken(table: DynamoTable, raw: { scope?: string; now: number }): Promise<SnapTokenRecord | null> {
  const i = v.object(raw, 'input')
  const scope = parse.parseScope(i.scope)
  const now = v.time(i.now, 'now')
  const item = await table.get({ pk: k.snapPk(scope), sk: k.SK.snap })
  return item ? codec.snapFromItem(item, now) : null
}

export async function rotateSnapToken(table: DynamoTable, raw: S.RotateSnapTokenInput): Promise<S.RotateSnapTokenResult> {
  const i = parse.parseRotateSnap(raw)
  const key = { pk: k.snapPk(i.scope), sk: k.SK.snap }
  const set = codec.compact({
    entity: 'snap',
    scope: i.scope,
    tokenHash: i.tokenHash,
    rotatedAt: i.now,
    previousHash: i.expectedHash,
    previousValidUntil: i.expectedHash === null ? null : i.now + i.graceMs,
  })
  const condition =
    i.expectedHash === null
      ? { expression: 'attribute_not_exists(pk)' }
      : { expression: '#tokenHash = :expected', names: { '#tokenHash': 'tokenHash' }, values: { ':expected': i.expectedHash } }
  const item = await table.update(key, { set, add: { version: 1 } }, condition)
  if (item) return { rotated: true, token: codec.snapFromItem(item, i.now) }
  const current = await table.get(key)
  return { rotated: false, current: current ? codec.snapFromItem(current, i.now) : null }
}
