// Payments from the Golem's journal in the store: the PaymentCredited events the x402 routes append
// once per settled payment. The store lists all of a Golem's events, so a page scans newest first until
// it has `limit` credits, and the cursor remembers the store page and the position inside it.
import { paymentCreditOf, type PaymentCredit } from '../../../core/lifecycle/paymentHistory.ts'
import { StoreInputError } from '../../../core/store/errors.ts'
import type { GolemEvent, Store } from '../../../core/store/index.ts'
import type { GolemJournal, GolemView, Page, PageRequest } from '../deps.ts'
import { ApiError } from '../errors.ts'

type Position = { page: string | null; skip: number }

const badCursor = () =>
  new ApiError('VALIDATION_FAILED', 'cursor: must be a nextCursor value returned by this API', {
    issues: [{ location: 'query', path: 'cursor', rule: 'must be a nextCursor value returned by this API', code: 'custom' }],
  })

function encodePosition(p: Position): string {
  return Buffer.from(JSON.stringify(p), 'utf8').toString('base64url')
}

function decodePosition(cursor: string | undefined): Position {
  if (cursor === undefined) return { page: null, skip: 0 }
  try {
    const p = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Position
    if ((p.page === null || typeof p.page === 'string') && Number.isSafeInteger(p.skip) && p.skip >= 0) return p
  } catch {
    // falls through to the refusal
  }
  throw badCursor()
}

export class StoreGolemJournal implements GolemJournal {
  constructor(
    private readonly store: Pick<Store, 'listEvents'>,
    /** Events read per store call, and store calls per request at most (a long life without payments stops there and hands back a cursor). */
    private readonly scan: { pageSize: number; maxPages: number } = { pageSize: 100, maxPages: 20 },
  ) {}

  async payments(golem: GolemView, req: PageRequest): Promise<Page<PaymentCredit>> {
    let { page, skip } = decodePosition(req.cursor)
    const items: PaymentCredit[] = []
    for (let read = 0; read < this.scan.maxPages; read++) {
      let result
      try {
        result = await this.store.listEvents({ golemId: golem.id, limit: this.scan.pageSize, cursor: page, order: 'desc' })
      } catch (error) {
        if (error instanceof StoreInputError) throw badCursor()
        throw error
      }
      for (let i = skip; i < result.events.length; i++) {
        const credit = paymentCreditOf(result.events[i]!)
        if (credit === undefined) continue
        items.push(credit)
        if (items.length === req.limit) return { items, nextCursor: encodePosition({ page, skip: i + 1 }) }
      }
      if (result.cursor === null) return { items, nextCursor: null }
      page = result.cursor
      skip = 0
    }
    return { items, nextCursor: encodePosition({ page, skip: 0 }) }
  }

  async events(golem: GolemView, req: PageRequest): Promise<Page<GolemEvent>> {
    try {
      const page = await this.store.listEvents({ golemId: golem.id, limit: req.limit, cursor: req.cursor ?? null, order: 'desc' })
      return { items: page.events, nextCursor: page.cursor }
    } catch (error) {
      if (error instanceof StoreInputError) throw badCursor()
      throw error
    }
  }

  async eventsSince(golem: GolemView, since: number, limit: number): Promise<GolemEvent[]> {
    const events: GolemEvent[] = []
    let cursor: string | null = null
    for (let read = 0; read < this.scan.maxPages && events.length < limit; read++) {
      const page = await this.store.listEvents({ golemId: golem.id, limit: this.scan.pageSize, cursor, order: 'asc', since })
      events.push(...page.events)
      if (page.cursor === null) break
      cursor = page.cursor
    }
    return events.slice(0, limit)
  }
}
