// Append-only logs on DynamoDB: one item per record at (LOG#<log>, SEQ#<seq>), written with
// attribute_not_exists so two appenders never share a number. An appender starts after the newest
// record it can read (a consistent Query) and moves one number up on every refused write, so a record
// is only ever written at `seq` after `seq - 1` exists: the log has no gaps, and a reader paging by
// sequence number never skips a record that is written later.
import * as codec from '../codec.ts'
import { StoreConflictError } from '../../../core/store/errors.ts'
import * as parse from '../../../core/store/inputs.ts'
import { assertNoKeyMaterial } from '../../../core/store/keyGuard.ts'
import * as k from '../keys.ts'
import type { LogRecord } from '../../../core/store/records.ts'
import type * as S from '../../../core/store/store.ts'
import * as v from '../../../core/store/validate.ts'
import type { DynamoTable } from './table.ts'

export async function appendLog(table: DynamoTable, raw: S.AppendLogInput): Promise<S.AppendLogResult> {
  const i = parse.parseAppendLog(raw)
  // Every record is checked before the first is written: a refused append writes nothing.
  for (const data of i.records) assertNoKeyMaterial(codec.logRecordToItem({ log: i.log, seq: 1, at: i.now, data }))
  let last = (await lastLogRecord(table, i.log))?.seq ?? 0
  const records: LogRecord[] = []
  for (const data of i.records) {
    for (;;) {
      const seq = (last += 1)
      if (seq > k.MAX_LOG_SEQ) throw new StoreConflictError('log', `is full: it holds at most ${k.MAX_LOG_SEQ} records`)
      const record: LogRecord = { log: i.log, seq, at: i.now, data }
      if (await table.put(codec.logRecordToItem(record), { expression: 'attribute_not_exists(pk)' })) {
        records.push(record)
        break
      }
    }
  }
  return { records }
}

export async function readLog(table: DynamoTable, raw: S.ReadLogInput): Promise<LogRecord[]> {
  const i = parse.parseReadLog(raw)
  const from = i.after + 1
  const to = Math.min(i.before - 1, k.MAX_LOG_SEQ)
  if (from > to) return []
  const page = await table.query({
    pk: k.logPk(i.log),
    skFrom: k.logSk(from),
    skTo: k.logSk(to),
    limit: i.limit,
    forward: i.order === 'asc',
  })
  return page.items.map(codec.logRecordFromItem)
}

export async function lastLogRecord(table: DynamoTable, log: string): Promise<LogRecord | null> {
  const page = await table.query({ pk: k.logPk(v.id(log, 'log')), skBeginsWith: k.LOG_PREFIX, limit: 1, forward: false })
  const item = page.items[0]
  return item ? codec.logRecordFromItem(item) : null
}
