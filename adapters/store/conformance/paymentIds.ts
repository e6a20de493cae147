import { describe, expect, it } from 'vitest'
import { StoreInputError } from '../../../core/store/errors.ts'
import type { BindPaymentIdInput, Store } from '../../../core/store/store.ts'
import { addr, concurrently, T0, type Backend } from './fixtures.ts'

const LEASE = 60_000
const TTL = 3_600_000
const bind: Omit<BindPaymentIdInput, 'owner' | 'now'> = {
  payer: addr(7),
  paymentId: 'pay_0123456789abcdef',
  golemId: 'g-1',
  kind: 'extend',
  amount: 1_000_000n,
  header: 'eyJmaXJzdCI6dHJ1ZX0=',
  leaseMs: LEASE,
  ttlMs: TTL,
}
const bindAs = (store: Store, owner: string, now = T0, over: Partial<BindPaymentIdInput> = {}) =>
  store.bindPaymentId({ ...bind, owner, now, ...over })
const ref = { payer: bind.payer, paymentId: bind.paymentId }
const answer = { status: 200, headers: { 'PAYMENT-RESPONSE': 'e30=' }, body: { golemId: 'g-1' } }

export function paymentIdSuite(backend: Backend): void {
  describe('payment identifiers', () => {
    it('binds an identifier once: of 20 concurrent binds one wins, the others see its binding', async () => {
      const store = await backend.newStore()
      const results = await concurrently(20, (i) => bindAs(store, `req-${i}`, T0, { header: `header-${i}` }))
      const winners = results.filter((r) => r.bound)
      expect(winners).toHaveLength(1)
      const won = winners[0]!.bound ? winners[0]!.record : undefined
      expect(won).toMatchObject({ status: 'pending', leaseUntil: T0 + LEASE, boundAt: T0, expiresAt: T0 + TTL, answer: null })
      for (const r of results) if (!r.bound) expect(r.existing).toMatchObject({ owner: won!.owner, header: won!.header })
    })

    it('records the answer once, by the owner; the answered binding is final for its payer', async () => {
      const store = await backend.newStore()
      await bindAs(store, 'req-a')
      expect(await store.answerPaymentId({ ...ref, owner: 'req-b', answer, now: T0 + 1 })).toMatchObject({ answered: false })
      const answered = await store.answerPaymentId({ ...ref, owner: 'req-a', answer, now: T0 + 1 })
      expect(answered).toMatchObject({ answered: true, record: { status: 'answered', answer, owner: null, leaseUntil: null } })
      expect(await store.answerPaymentId({ ...ref, owner: 'req-a', answer: { status: 409 }, now: T0 + 2 })).toMatchObject({
        answered: false,
        existing: { answer },
      })
      // Answered: never taken over, even after the lease, until it expires.
      expect(await bindAs(store, 'req-c', T0 + 10 * LEASE)).toMatchObject({ bound: false, existing: { status: 'answered', answer } })
      expect(await store.getPaymentId({ ...ref, now: T0 + 10 * LEASE })).toMatchObject({ answer })
    })

    it('hands a lapsed pending binding to a new owner for the same terms, keeping the first header', async () => {
      const store = await backend.newStore()
      await bindAs(store, 'req-a')
      expect(await bindAs(store, 'req-b', T0 + 1, { header: 'second' })).toMatchObject({ bound: false, existing: { owner: 'req-a' } })
      const taken = await bindAs(store, 'req-b', T0 + LEASE, { header: 'second' })
      expect(taken).toMatchObject({ bound: true, record: { owner: 'req-b', header: bind.header, boundAt: T0, expiresAt: T0 + TTL } })
    })

    it('never hands a binding over to other terms, lapsed or not', async () => {
      const store = await backend.newStore()
      await bindAs(store, 'req-a')
      for (const over of [{ golemId: 'g-2' }, { kind: 'feed' as const }, { amount: 2_000_000n }]) {
        expect(await bindAs(store, 'req-b', T0 + 2 * LEASE, over)).toMatchObject({
          bound: false,
          existing: { golemId: 'g-1', owner: 'req-a' },
        })
      }
    })

    it('scopes an identifier to its payer', async () => {
      const store = await backend.newStore()
      await bindAs(store, 'req-a')
      expect(await bindAs(store, 'req-b', T0, { payer: addr(8), golemId: 'g-2' })).toMatchObject({ bound: true })
    })

    it('releases the owner’s pending binding only; a released identifier binds afresh', async () => {
      const store = await backend.newStore()
      await bindAs(store, 'req-a')
      expect(await store.releasePaymentId({ ...ref, owner: 'req-b' })).toMatchObject({ released: false, existing: { owner: 'req-a' } })
      expect(await store.releasePaymentId({ ...ref, owner: 'req-a' })).toEqual({ released: true })
      expect(await store.getPaymentId({ ...ref, now: T0 })).toBeNull()
      expect(await bindAs(store, 'req-b', T0 + 1, { golemId: 'g-2' })).toMatchObject({ bound: true, record: { golemId: 'g-2' } })
    })

    it('forgets an identifier once it expires: it reads as absent and binds afresh', async () => {
      const store = await backend.newStore()
      await bindAs(store, 'req-a')
      await store.answerPaymentId({ ...ref, owner: 'req-a', answer, now: T0 + 1 })
      expect(await store.getPaymentId({ ...ref, now: T0 + TTL })).toBeNull()
      const again = await bindAs(store, 'req-b', T0 + TTL, { golemId: 'g-2', header: 'new' })
      expect(again).toMatchObject({
        bound: true,
        record: { golemId: 'g-2', header: 'new', status: 'pending', answer: null, expiresAt: T0 + 2 * TTL },
      })
    })

    it('refuses a malformed identifier, naming the field, and writes nothing', async () => {
      const store = await backend.newStore()
      await expect(bindAs(store, 'req-a', T0, { paymentId: 'short' })).rejects.toThrow(StoreInputError)
      await expect(bindAs(store, 'req-a', T0, { paymentId: 'has spaces in it!!' })).rejects.toThrow(/paymentId/)
      await expect(bindAs(store, 'req-a', T0, { ttlMs: 0 })).rejects.toThrow(/ttlMs/)
      expect(await store.getPaymentId({ payer: bind.payer, paymentId: 'has_no_spaces_in_it', now: T0 })).toBeNull()
      expect(await store.getPaymentId({ ...ref, now: T0 })).toBeNull()
    })
  })
}
