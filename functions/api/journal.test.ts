// Payments read back from the Golem's journal (services/journal.ts) on the in-memory store: only
// PaymentCredited events, newest first, paged across store pages with a cursor that resumes inside a
// page, a scan budget for long lives without payments, and a forged cursor refused.
import { getAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import { InMemoryStore } from '../../adapters/store/index.ts'
import { paymentCreditOf } from '../../core/lifecycle/paymentHistory.ts'
import { ApiError } from './errors.ts'
import { StoreGolemJournal } from './services/journal.ts'
import { sampleGolem } from './testing.ts'

const golem = sampleGolem()
const payer = `0x${'ab'.repeat(20)}` as const
const nonce = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const

async function journalWith(entries: ('pay' | 'tick')[]) {
  const store = new InMemoryStore()
  let at = 1_000
  for (const [i, e] of entries.entries()) {
    at += 1_000
    if (e === 'pay') {
      await store.appendEvent({
        golemId: golem.id,
        type: 'PaymentCredited',
        at,
        eventId: `payment-${i}`,
        data: {
          kind: i % 2 === 0 ? 'extend' : 'feed',
          payer,
          nonce: nonce(i),
          amount: 1_000_000n * BigInt(i + 1),
          seconds: 7_200n,
          txHash: nonce(1000 + i),
        },
      })
    } else {
      await store.appendEvent({ golemId: golem.id, type: 'PhaseChanged', at, eventId: `tick-${i}`, data: { to: 'Stable' } })
    }
  }
  return store
}

describe('payments from the journal', () => {
  it('lists only credits, newest first, with payer, kind, amount and seconds', async () => {
    const store = await journalWith(['tick', 'pay', 'tick', 'pay', 'tick'])
    const page = await new StoreGolemJournal(store).payments(golem, { limit: 50 })
    expect(page.nextCursor).toBeNull()
    expect(page.items.map((p) => [p.kind, p.amount, p.nonce])).toEqual([
      ['feed', 4_000_000n, nonce(3)],
      ['feed', 2_000_000n, nonce(1)],
    ])
    expect(page.items[0]).toMatchObject({ payer: getAddress(payer), seconds: 7_200n, txHash: nonce(1003), creditedAt: 5_000 })
  })

  it('pages across store pages and resumes inside one, never skipping or repeating a credit', async () => {
    const entries = Array.from({ length: 23 }, (_, i) => (i % 3 === 0 ? 'tick' : 'pay') as 'pay' | 'tick')
    const store = await journalWith(entries)
    const journal = new StoreGolemJournal(store, { pageSize: 4, maxPages: 50 })
    const seen: string[] = []
    let cursor: string | undefined
    for (let i = 0; i < 20; i++) {
      const page = await journal.payments(golem, { limit: 3, ...(cursor === undefined ? {} : { cursor }) })
      seen.push(...page.items.map((p) => p.nonce))
      if (page.nextCursor === null) break
      cursor = page.nextCursor
    }
    const expected = entries
      .map((e, i) => (e === 'pay' ? nonce(i) : undefined))
      .filter((n) => n !== undefined)
      .reverse()
    expect(seen).toEqual(expected)
  })

  it('stops scanning after its budget and hands back a cursor to continue', async () => {
    const store = await journalWith([
      ...Array.from({ length: 10 }, () => 'pay' as const),
      ...Array.from({ length: 12 }, () => 'tick' as const),
    ])
    const journal = new StoreGolemJournal(store, { pageSize: 4, maxPages: 2 })
    const first = await journal.payments(golem, { limit: 5 })
    expect(first.items).toEqual([])
    expect(first.nextCursor).not.toBeNull()
    // Each request scans at most two store pages: the last four ticks and the newest four credits.
    const next = await journal.payments(golem, { limit: 5, cursor: first.nextCursor! })
    expect(next.items.map((p) => p.nonce)).toEqual([nonce(9), nonce(8), nonce(7), nonce(6)])
    const last = await journal.payments(golem, { limit: 10, cursor: next.nextCursor! })
    expect(last.items.map((p) => p.nonce)).toEqual([nonce(5), nonce(4), nonce(3), nonce(2), nonce(1), nonce(0)])
    expect(last.nextCursor).toBeNull()
  })

  it('refuses a cursor it did not issue, and skips a malformed journal entry', async () => {
    const store = await journalWith(['pay'])
    const journal = new StoreGolemJournal(store)
    for (const cursor of [
      'nope',
      Buffer.from('{"page":7,"skip":0}').toString('base64url'),
      Buffer.from('{"page":"forged","skip":0}').toString('base64url'),
    ]) {
      const error = await journal.payments(golem, { limit: 5, cursor }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ApiError)
      expect((error as ApiError).message).toBe('cursor: must be a nextCursor value returned by this API')
    }
    expect(
      paymentCreditOf({
        golemId: golem.id,
        eventId: 'x',
        type: 'PaymentCredited',
        at: 1,
        data: { kind: 'steal', payer, nonce: nonce(1), amount: '1', seconds: '1' },
      }),
    ).toBeUndefined()
    expect(
      paymentCreditOf({
        golemId: golem.id,
        eventId: 'y',
        type: 'PaymentCredited',
        at: 1,
        data: { kind: 'extend', payer: '0x12', nonce: nonce(1), amount: '1', seconds: '1' },
      }),
    ).toBeUndefined()
  })
})
