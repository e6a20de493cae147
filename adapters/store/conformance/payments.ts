import { describe, expect, it } from 'vitest'
import { StoreConflictError } from '../../../core/store/errors.ts'
import type { PaymentInput, Store } from '../../../core/store/store.ts'
import { addr, CHECKSUMMED, concurrently, hex32, T0, type Backend } from './fixtures.ts'

const payment: PaymentInput = { nonce: hex32(0xabc), payer: addr(7), golemId: 'g-1', amount: 1_000_000n, kind: 'extend' }
const LEASE = 60_000
const claimAs = (store: Store, owner: string, now = T0) => store.claimPayment({ ...payment, owner, now, leaseMs: LEASE })

export function paymentSuite(backend: Backend): void {
  describe('payments credited once', () => {
    it('credits a payment once; the second credit returns the first', async () => {
      const store = await backend.newStore()
      const first = await store.creditPaymentOnce({ ...payment, txHash: hex32(1), now: T0 })
      expect(first).toMatchObject({
        credited: true,
        payment: { status: 'settled', amount: 1_000_000n, txHash: hex32(1), creditedAt: T0, owner: null },
      })
      const second = await store.creditPaymentOnce({ ...payment, txHash: hex32(2), now: T0 + 1 })
      expect(second).toMatchObject({ credited: false, existing: { txHash: hex32(1), creditedAt: T0 } })
    })

    it('credits exactly one of 20 concurrent identical credits', async () => {
      const store = await backend.newStore()
      const results = await concurrently(20, () => store.creditPaymentOnce({ ...payment, now: T0 }))
      expect(results.filter((r) => r.credited)).toHaveLength(1)
      expect(results.filter((r) => !r.credited)).toHaveLength(19)
    })

    it('lets exactly one of 20 concurrent copies claim the payment pending, then credits it once', async () => {
      const store = await backend.newStore()
      const claims = await concurrently(20, (i) => claimAs(store, `req-${i}`))
      const winners = claims.filter((c) => c.claimed)
      expect(winners).toHaveLength(1)
      const owner = winners[0]!.claimed ? winners[0]!.payment.owner! : ''
      for (const c of claims) if (!c.claimed) expect(c.existing).toMatchObject({ status: 'pending', owner })
      // A copy that lost the claim cannot credit around it while the lease lives.
      expect(await store.creditPaymentOnce({ ...payment, now: T0 + 1 })).toMatchObject({ credited: false, existing: { status: 'pending' } })
      const credited = await store.creditPaymentOnce({ ...payment, owner, txHash: hex32(9), now: T0 + 2 })
      expect(credited).toMatchObject({
        credited: true,
        payment: { status: 'settled', owner, claimedAt: T0, creditedAt: T0 + 2, leaseUntil: null },
      })
      expect(await claimAs(store, 'late', T0 + 10 * LEASE)).toMatchObject({ claimed: false, existing: { status: 'settled' } })
    })

    it('releases a pending claim after a failed settle, so the payment can be retried', async () => {
      const store = await backend.newStore()
      await claimAs(store, 'req-a')
      expect(await store.releasePayment({ payer: payment.payer, nonce: payment.nonce, owner: 'req-b' })).toMatchObject({
        released: false,
        existing: { owner: 'req-a' },
      })
      expect(await store.releasePayment({ payer: payment.payer, nonce: payment.nonce, owner: 'req-a' })).toEqual({ released: true })
      expect(await store.getPayment(payment)).toBeNull()
      expect(await claimAs(store, 'req-b')).toMatchObject({ claimed: true })
    })

    it('treats a pending claim whose lease lapsed as absent', async () => {
      const store = await backend.newStore()
      await claimAs(store, 'req-a')
      expect(await claimAs(store, 'req-b', T0 + LEASE - 1)).toMatchObject({ claimed: false })
      expect(await claimAs(store, 'req-b', T0 + LEASE)).toMatchObject({ claimed: true, payment: { owner: 'req-b', version: 2 } })
      const stale = await store.creditPaymentOnce({ ...payment, now: T0 + 3 * LEASE })
      expect(stale).toMatchObject({ credited: true, payment: { status: 'settled', owner: null } })
    })

    it('never rebinds a pending claim to other terms, even after its lease lapsed', async () => {
      const store = await backend.newStore()
      await claimAs(store, 'req-a')
      for (const other of [{ golemId: 'g-2' }, { kind: 'feed' as const }, { amount: 2n }]) {
        const taken = await store.claimPayment({ ...payment, ...other, owner: 'req-b', now: T0 + 2 * LEASE, leaseMs: LEASE })
        expect(taken).toMatchObject({
          claimed: false,
          existing: { status: 'pending', owner: 'req-a', golemId: 'g-1', kind: 'extend', amount: 1_000_000n },
        })
      }
      expect(await claimAs(store, 'req-c', T0 + 2 * LEASE)).toMatchObject({ claimed: true, payment: { owner: 'req-c', golemId: 'g-1' } })
    })

    it("refuses to credit the owner's own pending claim with other terms", async () => {
      const store = await backend.newStore()
      await claimAs(store, 'req-a')
      await expect(store.creditPaymentOnce({ ...payment, amount: 2n, owner: 'req-a', now: T0 })).rejects.toMatchObject({
        name: 'StoreConflictError',
        field: 'amount',
      })
      await expect(store.creditPaymentOnce({ ...payment, golemId: 'g-2', owner: 'req-a', now: T0 })).rejects.toThrow(StoreConflictError)
      expect(await store.getPayment(payment)).toMatchObject({ status: 'pending' })
    })

    it('keys a payment by (payer, nonce): case of the payer does not matter, another payer is another payment', async () => {
      const store = await backend.newStore()
      const p = { ...payment, payer: CHECKSUMMED }
      await store.creditPaymentOnce({ ...p, now: T0 })
      expect(await store.creditPaymentOnce({ ...p, payer: CHECKSUMMED.toLowerCase() as never, now: T0 })).toMatchObject({ credited: false })
      expect(await store.getPayment({ payer: CHECKSUMMED, nonce: payment.nonce.toUpperCase().replace('0X', '0x') as never })).toMatchObject(
        { payer: CHECKSUMMED.toLowerCase() },
      )
      expect(await store.creditPaymentOnce({ ...payment, payer: addr(8), now: T0 })).toMatchObject({ credited: true })
    })

    it('refuses bad input naming the field, and writes nothing', async () => {
      const store = await backend.newStore()
      await expect(store.creditPaymentOnce({ ...payment, payer: 'alice' as never, now: T0 })).rejects.toMatchObject({
        name: 'StoreInputError',
        field: 'payer',
      })
      await expect(store.creditPaymentOnce({ ...payment, amount: -1n, now: T0 })).rejects.toMatchObject({ field: 'amount' })
      await expect(store.creditPaymentOnce({ ...payment, golemId: '', now: T0 })).rejects.toMatchObject({ field: 'golemId' })
      await expect(store.creditPaymentOnce({ ...payment, kind: 'tip' as never, now: T0 })).rejects.toMatchObject({ field: 'kind' })
      await expect(store.creditPaymentOnce({ ...payment, nonce: '0x12' as never, now: T0 })).rejects.toMatchObject({ field: 'nonce' })
      await expect(store.claimPayment({ ...payment, owner: 'a', now: T0, leaseMs: -5 })).rejects.toMatchObject({ field: 'leaseMs' })
      await expect(store.creditPaymentOnce({ ...payment, signedTx: 'raw' as never, now: T0 })).rejects.toMatchObject({ field: 'signedTx' })
      await expect(store.creditPaymentOnce({ ...payment, validBefore: -1n, now: T0 })).rejects.toMatchObject({ field: 'validBefore' })
      expect(await store.getPayment(payment)).toBeNull()
    })

    it("keeps a settlement's signed bytes and its authorization's validBefore with the credit, to judge a reorg by", async () => {
      const store = await backend.newStore()
      const signedTx = `0x02${'ab'.repeat(120)}` as const
      await store.creditPaymentOnce({ ...payment, txHash: hex32(1), signedTx, validBefore: 1_900_000_000n, now: T0 })
      expect(await store.getPayment(payment)).toMatchObject({ status: 'settled', txHash: hex32(1), signedTx, validBefore: 1_900_000_000n })
      await store.creditPaymentOnce({ ...payment, payer: addr(8), now: T0 })
      const without = await store.getPayment({ ...payment, payer: addr(8) })
      expect(without).not.toHaveProperty('signedTx')
      expect(without).not.toHaveProperty('validBefore')
    })
  })
}
