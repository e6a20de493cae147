// The indexer's /v1 read routes (indexer/src/api/routes.ts), over fetch. Small on purpose: three
// history reads for the API and the latest redemption time for permission health. Responses are
// parsed with zod, so a shape change in the indexer is a clear error here, not a wrong answer.
import { getAddress, zeroAddress, type Address, type Hex } from 'viem'
import * as z from 'zod'
import { phaseNames } from '../../core/lifecycle/phase.ts'
import type { Page, PhaseTransitionRecord, RedemptionRecord, SpendPeriodRecord } from './deps.ts'
import { BardoError } from '../../core/errors.ts'
import { IndexerParameterError, IndexerUnavailableError } from './errors.ts'

export type IndexerClientOptions = {
  /** The indexer's base URL (BARDO_INDEXER_URL); may end with `/`. */
  baseUrl: string
  /** Per request; the API answers within its own deadline. Default 5 s. */
  timeoutMs?: number
  fetch?: typeof fetch
}

const decimal = z.string().regex(/^\d+$/)
const hex = z.string().regex(/^0x[0-9a-fA-F]*$/)
const page = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), nextCursor: z.string().nullable().optional() })

const phaseRow = z.object({
  kind: z.enum(['transition', 'reset']),
  fromPhase: z.number().int().min(0).max(4),
  toPhase: z.number().int().min(0).max(4),
  survivalScore: z.number().int().nullable(),
  reason: z.string().nullable().optional(),
  blockNumber: decimal,
  timestamp: decimal,
  txHash: hex,
})

const redemptionRow = z.object({
  txHash: hex,
  blockNumber: decimal,
  timestamp: decimal,
  redeemer: hex,
  rootDelegator: hex,
  delegationHash: hex,
  usd6: decimal.nullable(),
  transfers: z.array(z.object({ asset: z.string(), amount: decimal })),
})

const spendRow = z.object({
  source: z.string(),
  asset: z.string(),
  periodStart: decimal,
  periodEnd: decimal.nullable(),
  amount: decimal,
  eventCount: z.number().int(),
})

export type IndexerPageRequest = { limit: number; cursor?: string | undefined }

export class IndexerClient {
  readonly #base: string
  readonly #timeoutMs: number
  readonly #fetch: typeof fetch

  constructor(options: IndexerClientOptions) {
    let url: URL
    try {
      url = new URL(options.baseUrl)
    } catch {
      throw new BardoError('INVALID_INDEXER_URL', 'indexerUrl: must be an absolute http(s) URL')
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new BardoError('INVALID_INDEXER_URL', 'indexerUrl: must be http or https')
    this.#base = url.href.replace(/\/+$/, '')
    this.#timeoutMs = options.timeoutMs ?? 5_000
    this.#fetch = options.fetch ?? fetch
  }

  /** Phase history across the key's rotations, newest first (`order=desc`; the cursor pages backwards). */
  async phaseTransitions(golem: Address, req: IndexerPageRequest): Promise<Page<PhaseTransitionRecord>> {
    const body = await this.#get(
      `/v1/golems/${golem.toLowerCase()}/phases`,
      { limit: String(req.limit), cursor: req.cursor, order: 'desc' },
      page(phaseRow),
    )
    return {
      items: body.items.map((r) => ({
        from: phaseNames[r.fromPhase]!,
        to: phaseNames[r.toPhase]!,
        survivalScore: r.survivalScore,
        kind: r.kind,
        reason: r.reason ?? null,
        blockNumber: BigInt(r.blockNumber),
        txHash: r.txHash as Hex,
        timestamp: Number(r.timestamp),
      })),
      nextCursor: body.nextCursor ?? null,
    }
  }

  /** Redemptions by the key, one per transaction, newest first. */
  async redemptions(golem: Address, req: IndexerPageRequest): Promise<Page<RedemptionRecord>> {
    const body = await this.#get(
      `/v1/golems/${golem.toLowerCase()}/redemptions`,
      { limit: String(req.limit), cursor: req.cursor },
      page(redemptionRow),
    )
    return {
      items: body.items.map((r) => ({
        delegationHash: r.delegationHash as Hex,
        delegator: getAddress(r.rootDelegator),
        redeemer: getAddress(r.redeemer),
        transfers: r.transfers.map((t) => ({ token: t.asset === zeroAddress ? null : getAddress(t.asset), amount: BigInt(t.amount) })),
        usd6: r.usd6 === null ? null : BigInt(r.usd6),
        blockNumber: BigInt(r.blockNumber),
        txHash: r.txHash as Hex,
        timestamp: Number(r.timestamp),
      })),
      nextCursor: body.nextCursor ?? null,
    }
  }

  /** Spend per enforcer period, newest first. The indexer pages this by `limit` only (no cursor). */
  async spendPeriods(golem: Address, req: { limit: number }): Promise<Page<SpendPeriodRecord>> {
    const body = await this.#get(`/v1/golems/${golem.toLowerCase()}/spend/periods`, { limit: String(req.limit) }, page(spendRow))
    return {
      items: body.items.map((r) => ({
        source: r.source,
        asset: r.asset === 'usd' ? 'usd' : getAddress(r.asset),
        periodStart: Number(r.periodStart),
        periodEnd: r.periodEnd === null ? null : Number(r.periodEnd),
        amount: BigInt(r.amount),
        eventCount: r.eventCount,
      })),
      nextCursor: null,
    }
  }

  /** Unix seconds of the key's newest redemption, or undefined if it has none indexed. */
  async latestRedemptionAt(golem: Address): Promise<bigint | undefined> {
    const body = await this.#get(`/v1/golems/${golem.toLowerCase()}/redemptions`, { limit: '1' }, page(z.object({ timestamp: decimal })))
    const first = body.items[0]
    return first === undefined ? undefined : BigInt(first.timestamp)
  }

  async #get<T extends z.ZodType>(path: string, query: Record<string, string | undefined>, schema: T): Promise<z.output<T>> {
    const params = new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined))
    const qs = params.toString()
    let res: Response
    try {
      res = await this.#fetch(`${this.#base}${path}${qs === '' ? '' : `?${qs}`}`, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(this.#timeoutMs),
      })
    } catch (error) {
      // The URL may carry credentials in production; name only what failed.
      const what =
        error instanceof Error && error.name === 'TimeoutError' ? `timed out after ${this.#timeoutMs} ms` : 'could not be reached'
      throw new IndexerUnavailableError(`indexer: ${path.split('/').slice(0, 3).join('/')}/… ${what}`)
    }
    const text = await res.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      throw new IndexerUnavailableError(`indexer: answered ${res.status} without JSON`, { status: res.status })
    }
    if (res.status === 400 && typeof json === 'object' && json !== null && (json as { code?: unknown }).code === 'INVALID_PARAMETER') {
      const param = String((json as { param?: unknown }).param ?? 'query')
      throw new IndexerParameterError(
        param,
        `${param}: ${String((json as { message?: unknown }).message ?? 'refused by the indexer').replace(/^[\w.]+: /, '')}`,
      )
    }
    if (!res.ok) throw new IndexerUnavailableError(`indexer: answered ${res.status}`, { status: res.status })
    const parsed = schema.safeParse(json)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      throw new IndexerUnavailableError(
        `indexer: unexpected response shape at ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`,
      )
    }
    return parsed.data
  }
}
