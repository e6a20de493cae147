import { describe, expect, it } from 'vitest'
import { KeyMaterialError, StoreConflictError } from '../../../core/store/errors.ts'
import { concurrently, hex32, KEY_LIKE, T0, type Backend } from './fixtures.ts'

const NONCE = `0x${'Ab'.repeat(32)}`
const MINUTE = 60_000

export function nonceSuite(backend: Backend): void {
  describe('single-use nonces', () => {
    it('consumes an issued nonce once; hex case does not make a second nonce', async () => {
      const store = await backend.newStore()
      const issued = await store.issueNonce({ nonce: NONCE, issuedAt: T0, expiresAt: T0 + MINUTE, meta: { target: '0x01' } })
      expect(issued).toMatchObject({ nonce: NONCE.toLowerCase(), usedAt: null })
      expect(await store.consumeNonce({ nonce: NONCE.toLowerCase(), now: T0 + 1 })).toMatchObject({
        consumed: true,
        record: { usedAt: T0 + 1, meta: { target: '0x01' } },
      })
      expect(await store.consumeNonce({ nonce: NONCE, now: T0 + 2 })).toEqual({ consumed: false, reason: 'used' })
      await expect(store.issueNonce({ nonce: NONCE, issuedAt: T0 + 3, expiresAt: T0 + MINUTE })).rejects.toThrow(StoreConflictError)
    })

    it('checks expiry on read: at expiresAt the nonce is expired', async () => {
      const store = await backend.newStore()
      await store.issueNonce({ nonce: 'challenge-1', issuedAt: T0, expiresAt: T0 + MINUTE })
      expect(await store.consumeNonce({ nonce: 'challenge-1', now: T0 + MINUTE })).toEqual({ consumed: false, reason: 'expired' })
      expect(await store.consumeNonce({ nonce: 'challenge-2', now: T0 })).toEqual({ consumed: false, reason: 'unknown' })
    })

    it('lets exactly one of 20 concurrent consumers use a nonce', async () => {
      const store = await backend.newStore()
      await store.issueNonce({ nonce: NONCE, issuedAt: T0, expiresAt: T0 + MINUTE })
      const results = await concurrently(20, () => store.consumeNonce({ nonce: NONCE, now: T0 + 1 }))
      expect(results.filter((r) => r.consumed)).toHaveLength(1)
    })

    it('refuses bad input and key material in meta, writing nothing', async () => {
      const store = await backend.newStore()
      await expect(store.issueNonce({ nonce: 'short', issuedAt: T0, expiresAt: T0 + 1 })).rejects.toMatchObject({ field: 'nonce' })
      await expect(store.issueNonce({ nonce: 'challenge-1', issuedAt: T0, expiresAt: T0 })).rejects.toMatchObject({ field: 'expiresAt' })
      await expect(store.issueNonce({ nonce: 'challenge-1', issuedAt: T0, expiresAt: T0 + 1, meta: { mnemonic: 'x' } })).rejects.toThrow(
        KeyMaterialError,
      )
      expect(await store.consumeNonce({ nonce: 'challenge-1', now: T0 })).toEqual({ consumed: false, reason: 'unknown' })
    })
  })
}

export function counterSuite(backend: Backend): void {
  describe('rate-limit counters', () => {
    const w = { key: 'ip:127.0.0.1', windowStart: T0, windowSeconds: 60 }
    it('counts in a fixed window; the next window starts again at 1', async () => {
      const store = await backend.newStore()
      for (const n of [1, 2, 3]) expect(await store.incrementCounter({ ...w, now: T0 + n })).toEqual({ count: n, resetAt: T0 + MINUTE })
      expect(await store.incrementCounter({ ...w, windowStart: T0 + MINUTE, now: T0 + MINUTE })).toEqual({
        count: 1,
        resetAt: T0 + 2 * MINUTE,
      })
      expect(await store.incrementCounter({ ...w, key: 'ip:10.0.0.1', now: T0 })).toEqual({ count: 1, resetAt: T0 + MINUTE })
    })

    it('checks the window on read: after the reset the count is 0', async () => {
      const store = await backend.newStore()
      await store.incrementCounter({ ...w, now: T0 })
      expect(await store.getCounter({ ...w, now: T0 + 1 })).toEqual({ count: 1, resetAt: T0 + MINUTE })
      expect(await store.getCounter({ ...w, now: T0 + MINUTE })).toEqual({ count: 0, resetAt: T0 + MINUTE })
    })

    it('counts every one of 50 concurrent increments exactly once', async () => {
      const store = await backend.newStore()
      const results = await concurrently(50, () => store.incrementCounter({ ...w, now: T0 }))
      expect(results.map((r) => r.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
      expect(await store.getCounter({ ...w, now: T0 })).toMatchObject({ count: 50 })
    })

    it('refuses bad windows, writing nothing', async () => {
      const store = await backend.newStore()
      await expect(store.incrementCounter({ ...w, now: T0 - 1 })).rejects.toMatchObject({ field: 'windowStart' })
      await expect(store.incrementCounter({ ...w, windowSeconds: 0, now: T0 })).rejects.toMatchObject({ field: 'windowSeconds' })
      await expect(store.incrementCounter({ ...w, key: '', now: T0 })).rejects.toMatchObject({ field: 'key' })
      expect(await store.getCounter({ ...w, now: T0 })).toMatchObject({ count: 0 })
    })
  })
}

export function historySuite(backend: Backend): void {
  describe('events, death settlement, Snap token', () => {
    it('appends events in time order and pages them both ways', async () => {
      const store = await backend.newStore()
      const types = ['DelegationGranted', 'PhaseChanged', 'BudgetWarning', 'SessionKeyRotated', 'DelegationRevoked']
      for (const [i, type] of [...types.entries()].reverse())
        await store.appendEvent({ golemId: 'g-1', type, at: T0 + i * 1000, data: { i, amount: 10n ** 20n } })
      await store.appendEvent({ golemId: 'g-2', type: 'PhaseChanged', at: T0 })
      const asc: string[] = []
      let cursor: string | null = null
      do {
        const page = await store.listEvents({ golemId: 'g-1', limit: 2, cursor })
        asc.push(...page.events.map((e) => e.type))
        cursor = page.cursor
      } while (cursor !== null)
      expect(asc).toEqual(types)
      const desc = await store.listEvents({ golemId: 'g-1', order: 'desc', limit: 10 })
      expect(desc.events.map((e) => e.type)).toEqual([...types].reverse())
      expect(desc.events[0]).toMatchObject({ golemId: 'g-1', at: T0 + 4000, data: { i: 4, amount: '100000000000000000000' } })
      const since = await store.listEvents({ golemId: 'g-1', since: T0 + 3000 })
      expect(since.events.map((e) => e.type)).toEqual(['SessionKeyRotated', 'DelegationRevoked'])
    })

    it('does not append the same (at, eventId) twice', async () => {
      const store = await backend.newStore()
      const e = { golemId: 'g-1', type: 'DelegationExpiringWarning', at: T0, eventId: 'p42-expiring', data: { hoursRemaining: 20 } }
      expect(await store.appendEvent(e)).toMatchObject({ appended: true })
      expect(await store.appendEvent({ ...e, data: { hoursRemaining: 19 } })).toMatchObject({
        appended: false,
        event: { data: { hoursRemaining: 20 } },
      })
      expect((await store.listEvents({ golemId: 'g-1' })).events).toHaveLength(1)
    })

    it('refuses bad events and key material in event data, writing nothing', async () => {
      const store = await backend.newStore()
      await expect(store.appendEvent({ golemId: 'g-1', type: 'phase changed', at: T0 })).rejects.toMatchObject({ field: 'type' })
      await expect(store.appendEvent({ golemId: 'g-1', type: 'SessionKeyRotated', at: T0, data: { oldKey: KEY_LIKE } })).rejects.toThrow(
        KeyMaterialError,
      )
      await expect(store.appendEvent({ golemId: 'g-1', type: 'SessionKeyRotated', at: T0, data: { n: Number.NaN } })).rejects.toMatchObject(
        { field: 'data.n' },
      )
      expect((await store.listEvents({ golemId: 'g-1' })).events).toEqual([])
    })

    it('writes the DeathSettlement once, even under 10 concurrent writers', async () => {
      const store = await backend.newStore()
      const results = await concurrently(10, (i) =>
        store.recordDeathSettlement({
          golemId: 'g-1',
          kind: 'DelegationExpiry',
          settlement: { delegationHash: hex32(5), expiryCause: 'OwnerRevocation', positionsSettled: [], writer: i },
          settledAt: T0,
        }),
      )
      expect(results.filter((r) => r.written)).toHaveLength(1)
      const winner = results.find((r) => r.written)!
      const stored = await store.getDeathSettlement('g-1')
      expect(stored).toEqual(winner.written ? winner.record : null)
      const later = await store.recordDeathSettlement({ golemId: 'g-1', kind: 'PrivySweep', settlement: {}, settledAt: T0 + 1 })
      expect(later).toMatchObject({ written: false, existing: { kind: 'DelegationExpiry' } })
      expect(await store.getDeathSettlement('g-2')).toBeNull()
    })

    it('rotates the Snap token hash by compare-and-swap; the old hash lives only through its grace', async () => {
      const store = await backend.newStore()
      expect(await store.getSnapToken({ now: T0 })).toBeNull()
      expect(await store.rotateSnapToken({ tokenHash: hex32(1), expectedHash: null, now: T0 })).toMatchObject({
        rotated: true,
        token: { tokenHash: hex32(1), previousHash: null, version: 1 },
      })
      expect(await store.rotateSnapToken({ tokenHash: hex32(2), expectedHash: null, now: T0 })).toMatchObject({
        rotated: false,
        current: { tokenHash: hex32(1) },
      })
      const results = await concurrently(10, (i) =>
        store.rotateSnapToken({ tokenHash: hex32(100 + i), expectedHash: hex32(1), now: T0 + MINUTE, graceMs: 5000 }),
      )
      expect(results.filter((r) => r.rotated)).toHaveLength(1)
      const current = await store.getSnapToken({ now: T0 + MINUTE + 4999 })
      expect(current).toMatchObject({ previousHash: hex32(1), previousValidUntil: T0 + MINUTE + 5000, rotatedAt: T0 + MINUTE, version: 2 })
      expect(await store.getSnapToken({ now: T0 + MINUTE + 5000 })).toMatchObject({ previousHash: null, previousValidUntil: null })
      await expect(store.rotateSnapToken({ tokenHash: hex32(7), expectedHash: hex32(7), now: T0 })).rejects.toMatchObject({
        field: 'tokenHash',
      })
      await expect(store.rotateSnapToken({ tokenHash: 'abc' as never, expectedHash: null, now: T0 })).rejects.toMatchObject({
        field: 'tokenHash',
      })
      expect(await store.getSnapToken({ scope: 'other', now: T0 })).toBeNull()
    })
  })
}
