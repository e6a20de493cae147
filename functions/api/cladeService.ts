// What Clade siblings exchange: knowledge entries, alerts, a sync cursor. The interface
// is what the routes need; StoreCladeService keeps it in the store, so every API instance shares it.
import type { Address } from 'viem'
import * as z from 'zod'
import type { LogRecord, LogStore } from '../../core/store/index.ts'
import { addressSchema } from './schemas.ts'

/** Grimoire entry kinds plus the death testament siblings receive when a Golem dies. */
export const cladeEntryKinds = ['episode', 'insight', 'heuristic', 'causal_link', 'warning', 'death_testament'] as const

export const cladeEntryInput = z.strictObject({
  kind: z.enum(cladeEntryKinds),
  topic: z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters'),
  content: z.string().min(1, 'must not be empty').max(8192, 'must be at most 8192 characters'),
  confidence: z.number().min(0, 'must be in [0, 1]').max(1, 'must be in [0, 1]').optional(),
})
export type CladeEntryInput = z.output<typeof cladeEntryInput>

export const cladeIngestRequest = z.strictObject({
  entries: z.array(cladeEntryInput).min(1, 'must hold at least one entry').max(100, 'must hold at most 100 entries'),
})

export const cladeAlertRequest = z.strictObject({
  severity: z.enum(['info', 'warning', 'critical']),
  kind: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be snake_case, at most 64 characters'),
  message: z.string().min(1, 'must not be empty').max(2048, 'must be at most 2048 characters'),
})
export type CladeAlertInput = z.output<typeof cladeAlertRequest>

export const cladeEntriesQuery = z.strictObject({
  kind: z.enum(cladeEntryKinds).optional(),
  topic: z.string().min(1).max(128, 'must be at most 128 characters').optional(),
  limit: z.coerce
    .number('must be a number')
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(100, 'must be at most 100')
    .default(50),
  cursor: z.string().regex(/^\d+$/, 'must be a cursor from a previous page').optional(),
})
export type CladeEntriesQuery = z.output<typeof cladeEntriesQuery>

export const cladeSyncQuery = z.strictObject({
  since: z.coerce.number('must be a number').int('must be an integer').min(0, 'must not be negative').default(0),
  limit: z.coerce
    .number('must be a number')
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(500, 'must be at most 500')
    .default(100),
})

export const cladeEntrySchema = cladeEntryInput.extend({ seq: z.number().int(), from: addressSchema, receivedAt: z.number().int() })
export type CladeEntry = CladeEntryInput & { seq: number; from: Address; receivedAt: number }

export interface CladeService {
  ingest(target: Address, from: Address, entries: CladeEntryInput[], nowSeconds: number): Promise<{ accepted: number; lastSeq: number }>
  entries(target: Address, query: CladeEntriesQuery): Promise<{ entries: CladeEntry[]; nextCursor: string | null }>
  sync(target: Address, since: number, limit: number): Promise<{ entries: CladeEntry[]; lastSeq: number; hasMore: boolean }>
  alert(target: Address, from: Address, alert: CladeAlertInput, nowSeconds: number): Promise<{ id: string }>
  status(target: Address): Promise<{ specialization: string | null; entryCount: number; lastIngestAt: number | null }>
}

/** Entry records hold the entry plus its sender; alerts their sender and body. */
type EntryData = CladeEntryInput & { from: Address }

const entriesLog = (target: Address) => `clade-entries:${target.toLowerCase()}`
const alertsLog = (target: Address) => `clade-alerts:${target.toLowerCase()}`
/** Entries are filtered by kind and topic in pages of this many records, newest first. */
const SCAN_PAGE = 100

const toEntry = (r: LogRecord): CladeEntry => {
  const d = r.data as unknown as EntryData
  return {
    kind: d.kind,
    topic: d.topic,
    content: d.content,
    ...(d.confidence === undefined ? {} : { confidence: d.confidence }),
    seq: r.seq,
    from: d.from,
    receivedAt: Math.floor(r.at / 1000),
  }
}

/**
 * Per-target append-only logs in the store (core/store LogStore: DynamoDB in AWS, so every Lambda
 * instance sees the same entries). `seq` is the log's gap-free sequence number and the sync cursor.
 */
export class StoreCladeService implements CladeService {
  readonly #store: LogStore
  readonly #specializations: Record<string, string>

  constructor(store: LogStore, specializations: Record<string, string> = {}) {
    this.#store = store
    this.#specializations = specializations
  }

  async ingest(target: Address, from: Address, entries: CladeEntryInput[], nowSeconds: number) {
    const records = entries.map((e): EntryData => ({ ...e, from }))
    const { records: written } = await this.#store.appendLog({ log: entriesLog(target), records, now: nowSeconds * 1000 })
    return { accepted: written.length, lastSeq: written.at(-1)!.seq }
  }

  async entries(target: Address, q: CladeEntriesQuery) {
    // Newest first; the cursor is the seq to continue below.
    const matches = (e: CladeEntry) => (q.kind === undefined || e.kind === q.kind) && (q.topic === undefined || e.topic === q.topic)
    const found: CladeEntry[] = []
    let before = q.cursor === undefined ? undefined : Number(q.cursor)
    while (found.length <= q.limit) {
      const page = await this.#store.readLog({
        log: entriesLog(target),
        order: 'desc',
        limit: SCAN_PAGE,
        ...(before === undefined ? {} : { before }),
      })
      found.push(...page.map(toEntry).filter(matches))
      if (page.length < SCAN_PAGE) break
      before = page.at(-1)!.seq
    }
    const entries = found.slice(0, q.limit)
    const last = entries.at(-1)
    return { entries, nextCursor: found.length > q.limit && last ? String(last.seq) : null }
  }

  async sync(target: Address, since: number, limit: number) {
    const page = await this.#store.readLog({ log: entriesLog(target), after: since, limit: limit + 1 })
    const entries = page.slice(0, limit).map(toEntry)
    return { entries, lastSeq: entries.at(-1)?.seq ?? since, hasMore: page.length > limit }
  }

  async alert(target: Address, from: Address, alert: CladeAlertInput, nowSeconds: number) {
    const { records } = await this.#store.appendLog({ log: alertsLog(target), records: [{ ...alert, from }], now: nowSeconds * 1000 })
    return { id: `alert-${records[0]!.seq}` }
  }

  async status(target: Address) {
    const last = await this.#store.lastLogRecord(entriesLog(target))
    return {
      specialization: this.#specializations[target] ?? null,
      entryCount: last?.seq ?? 0,
      lastIngestAt: last ? Math.floor(last.at / 1000) : null,
    }
  }
}
