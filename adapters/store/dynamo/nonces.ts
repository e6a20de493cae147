// Single-use Clade nonces and fixed-window rate-limit counters on DynamoDB. Neither relies on TTL:
// a nonce's expiry is part of the consume condition, and a counter window is its own key.
import * as codec from '../codec.ts'
import { StoreConflictError } from '../../../core/store/errors.ts'
import * as parse from '../../../core/store/inputs.ts'
import * as k from '../keys.ts'
import type { CounterValue, NonceRecord } from '../../../core/store/records.ts'
import type * as S from '../../../core/store/store.ts'
import type { DynamoTable } from './table.ts'

export async function issueNonce(table: DynamoTable, raw: S.IssueNonceInput): Promise<NonceRecord> {
  const i = parse.parseIssueNonce(raw)
  const record: NonceRecord = { ...i, usedAt: null }
  const written = await table.put(codec.nonceToItem(record), { expression: 'attribute_not_exists(pk)' })
  if (!written) throw new StoreConflictError('nonce', 'was already issued; nonces are single-use')
  return record
}

export async function consumeNonce(table: DynamoTable, raw: { nonce: string; now: number }): Promise<S.ConsumeNonceResult> {
  const i = parse.parseConsumeNonce(raw)
  const key = { pk: k.noncePk(i.nonce), sk: k.SK.nonce }
  const item = await table.update(
    key,
    { set: { usedAt: i.now } },
    {
      expression: 'attribute_exists(pk) AND attribute_not_exists(#usedAt) AND #expiresAt > :now',
      names: { '#usedAt': 'usedAt', '#expiresAt': 'expiresAt' },
      values: { ':now': i.now },
    },
  )
  if (item) return { consumed: true, record: codec.nonceFromItem(item) }
  // Refused: read back only to say why. A nonce never becomes consumable again, so this is final.
  const current = await table.get(key)
  if (!current) return { consumed: false, reason: 'unknown' }
  return { consumed: false, reason: current.usedAt !== undefined ? 'used' : 'expired' }
}

export async function incrementCounter(table: DynamoTable, raw: S.CounterInput): Promise<CounterValue> {
  const i = parse.parseCounter(raw)
  const { pk, sk, count, ...rest } = codec.counterToItem(i.key, i.windowStart, { count: 1, resetAt: i.resetAt })
  // ADD is atomic on the server: concurrent requests from any number of Lambdas all count.
  const out = await table.update({ pk: pk as string, sk: sk as string }, { setIfAbsent: rest, add: { count: count as number } })
  return { count: Number(out?.count), resetAt: i.resetAt }
}

export async function getCounter(table: DynamoTable, raw: S.CounterInput): Promise<CounterValue> {
  const i = parse.parseCounter(raw)
  const item = await table.get({ pk: k.counterPk(i.key, i.windowStart), sk: k.SK.counter })
  if (!item || i.now >= Number(item.resetAt)) return { count: 0, resetAt: i.resetAt }
  return { count: Number(item.count), resetAt: Number(item.resetAt) }
}
