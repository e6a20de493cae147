// What Clade siblings exchange (seed 003 §5.3): knowledge entries, alerts, a sync cursor. The interface
// is what the routes need; the memory implementation serves tests and the local runner.
import type { Address } from 'viem'
import { z } from 'zod/v4'
import { addressSchema } from './schemas.ts'

/** Grimoire entry kinds (seed 003 §7) plus the death testament siblings receive (§10). */
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
  limit: z.coerce.number('must be a number').int('must be an integer').min(1, 'must be at least 1').max(100, 'must be at most 100').default(50),
  cursor: z.string().regex(/^\d+$/, 'must be a cursor from a previous page').optional(),
})
export type CladeEntriesQuery = z.output<typeof cladeEntriesQuery>

export const cladeSyncQuery = z.strictObject({
  since: z.coerce.number('must be a number').int('must be an integer').min(0, 'must not be negative').default(0),
  limit: z.coerce.number('must be a number').int('must be an integer').min(1, 'must be at least 1').max(500, 'must be at most 500').default(100),
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

/** Per-target append-only log; `seq` is the sync cursor. */
export class MemoryCladeService implements CladeService {
  readonly #logs = new Map<Address, CladeEntry[]>()
  readonly #alerts: { id: string; target: Address; from: Address; alert: CladeAlertInput; receivedAt: number }[] = []
  readonly #specializations: Record<string, string>

  constructor(specializations: Record<string, string> = {}) {
    this.#specializations = specializations
  }

  #log(target: Address): CladeEntry[] {
    let log = this.#logs.get(target)
    if (!log) this.#logs.set(target, (log = []))
    return log
  }

  async ingest(target: Address, from: Address, entries: CladeEntryInput[], nowSeconds: number) {
    const log = this.#log(target)
    for (const e of entries) log.push({ ...e, seq: log.length + 1, from, receivedAt: nowSeconds })
    return { accepted: entries.length, lastSeq: log.length }
  }

  async entries(target: Address, q: CladeEntriesQuery) {
    // Newest first; the cursor is the seq to continue below.
    const before = q.cursor === undefined ? Infinity : Number(q.cursor)
    const matching = this.#log(target)
      .filter((e) => e.seq < before && (q.kind === undefined || e.kind === q.kind) && (q.topic === undefined || e.topic === q.topic))
      .reverse()
    const page = matching.slice(0, q.limit)
    const last = page.at(-1)
    return { entries: page, nextCursor: matching.length > q.limit && last ? String(last.seq) : null }
  }

  async sync(target: Address, since: number, limit: number) {
    const log = this.#log(target)
    const entries = log.slice(since, since + limit)
    return { entries, lastSeq: entries.at(-1)?.seq ?? since, hasMore: since + limit < log.length }
  }

  async alert(target: Address, from: Address, alert: CladeAlertInput, nowSeconds: number) {
    const id = `alert-${this.#alerts.length + 1}`
    this.#alerts.push({ id, target, from, alert, receivedAt: nowSeconds })
    return { id }
  }

  async status(target: Address) {
    const log = this.#log(target)
    return { specialization: this.#specializations[target] ?? null, entryCount: log.length, lastIngestAt: log.at(-1)?.receivedAt ?? null }
  }

  /** For tests and the local runner's progress output. */
  alertsFor(target: Address) {
    return this.#alerts.filter((a) => a.target === target)
  }
}
