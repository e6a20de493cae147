import { describe, expect, it } from 'vitest'
import { KeyMaterialError } from '../../../core/store/errors.ts'
import type { Store } from '../../../core/store/store.ts'
import { concurrently, hex32, KEY_LIKE, T0, type Backend } from './fixtures.ts'

const ref = { golemId: 'g-1', period: 42n, step: 'redeem' }
const LEASE = 30_000
const claim = (store: Store, owner: string, now = T0) => store.claimSlot({ ...ref, owner, now, leaseMs: LEASE })

export function slotSuite(backend: Backend): void {
  describe('tick slots', () => {
    it('claims a fresh slot once; a second invocation is refused while the lease lives', async () => {
      const store = await backend.newStore()
      const first = await claim(store, 'inv-a')
      expect(first).toMatchObject({
        claimed: true,
        slot: {
          ...ref,
          status: 'claimed',
          owner: 'inv-a',
          claimedAt: T0,
          leaseUntil: T0 + LEASE,
          claims: 1,
          txHash: null,
          txSender: null,
          rawTx: null,
        },
      })
      const second = await claim(store, 'inv-b', T0 + LEASE - 1)
      expect(second).toMatchObject({ claimed: false, reason: 'leased', slot: { owner: 'inv-a' } })
    })

    it('lets the holder re-claim (a retried request) without losing the slot', async () => {
      const store = await backend.newStore()
      await claim(store, 'inv-a')
      expect(await claim(store, 'inv-a', T0 + 5)).toMatchObject({ claimed: true, slot: { owner: 'inv-a', leaseUntil: T0 + 5 + LEASE } })
    })

    it('gives the slot to another invocation after the lease lapses without a tx', async () => {
      const store = await backend.newStore()
      await claim(store, 'inv-a')
      const taken = await claim(store, 'inv-b', T0 + LEASE)
      expect(taken).toMatchObject({ claimed: true, slot: { owner: 'inv-b', claims: 2, claimedAt: T0 + LEASE } })
      expect(await store.recordSlotTx({ ...ref, owner: 'inv-a', txHash: hex32(1), nonce: 0, now: T0 + LEASE + 1 })).toMatchObject({
        recorded: false,
        reason: 'notOwner',
      })
    })

    it('never re-claims a slot with a recorded tx, even after the lease lapsed: reconcile instead', async () => {
      const store = await backend.newStore()
      await claim(store, 'inv-a')
      const sender = '0x00000000000000000000000000000000000000a1'
      const recorded = await store.recordSlotTx({
        ...ref,
        owner: 'inv-a',
        txHash: hex32(7),
        nonce: 12,
        rawTx: '0x02F8AB01',
        sender,
        now: T0 + 10,
      })
      expect(recorded).toMatchObject({
        recorded: true,
        slot: { status: 'sent', txHash: hex32(7), txNonce: 12, txSender: sender, rawTx: '0x02f8ab01', sentAt: T0 + 10 },
      })
      expect(await store.getSlot(ref)).toMatchObject({ txSender: sender })
      const retry = await claim(store, 'inv-b', T0 + 10 * LEASE)
      expect(retry).toMatchObject({ claimed: false, reason: 'sent', slot: { txHash: hex32(7), owner: 'inv-a' } })
      expect(await claim(store, 'inv-a', T0 + 10 * LEASE)).toMatchObject({ claimed: false, reason: 'sent' })
    })

    it("claims a fresh slot with its signed tx in one write; the holder's retry of it is idempotent, anything else refused", async () => {
      const store = await backend.newStore()
      const sender = '0x00000000000000000000000000000000000000a1'
      const sent = (owner: string, n: number, now = T0) =>
        store.claimSlotWithTx({ ...ref, owner, now, leaseMs: LEASE, txHash: hex32(n), nonce: n, rawTx: '0x02F8AB01', sender })
      expect(await sent('inv-a', 7)).toMatchObject({
        claimed: true,
        slot: {
          ...ref,
          status: 'sent',
          owner: 'inv-a',
          claimedAt: T0,
          leaseUntil: T0 + LEASE,
          claims: 1,
          txHash: hex32(7),
          txNonce: 7,
          txSender: sender,
          rawTx: '0x02f8ab01',
          sentAt: T0,
          version: 1,
        },
      })
      expect(await sent('inv-a', 7, T0 + 1)).toMatchObject({ claimed: true, slot: { txHash: hex32(7), sentAt: T0, version: 1 } })
      expect(await sent('inv-a', 8, T0 + 1)).toMatchObject({ claimed: false, reason: 'sent', slot: { txHash: hex32(7) } })
      expect(await sent('inv-b', 9, T0 + 10 * LEASE)).toMatchObject({ claimed: false, reason: 'sent', slot: { owner: 'inv-a' } })
      expect(await claim(store, 'inv-b', T0 + 10 * LEASE)).toMatchObject({ claimed: false, reason: 'sent' })
      await store.completeSlot({ ...ref, owner: 'inv-b', outcome: 'confirmed', txHash: hex32(7), now: T0 + 2 })
      expect(await sent('inv-a', 7, T0 + 3)).toMatchObject({ claimed: false, reason: 'completed' })
    })

    it("claims with a tx on a claim's rule: the holder's or a lapsed claim, never another's live one", async () => {
      const store = await backend.newStore()
      const sent = (owner: string, n: number, now: number) =>
        store.claimSlotWithTx({ ...ref, owner, now, leaseMs: LEASE, txHash: hex32(n), nonce: n })
      await claim(store, 'inv-a')
      expect(await sent('inv-b', 1, T0 + LEASE - 1)).toMatchObject({ claimed: false, reason: 'leased', slot: { status: 'claimed' } })
      expect(await sent('inv-a', 2, T0 + 1)).toMatchObject({ claimed: true, slot: { status: 'sent', owner: 'inv-a', claims: 2 } })
      const other = { ...ref, step: 'other' }
      await store.claimSlot({ ...other, owner: 'inv-a', now: T0, leaseMs: LEASE })
      expect(
        await store.claimSlotWithTx({ ...other, owner: 'inv-b', now: T0 + LEASE, leaseMs: LEASE, txHash: hex32(3), nonce: 3 }),
      ).toMatchObject({ claimed: true, slot: { status: 'sent', owner: 'inv-b', claims: 2, txSender: null, rawTx: null } })
    })

    it('lets exactly one of 20 concurrent invocations claim a slot with its tx', async () => {
      const store = await backend.newStore()
      const results = await concurrently(20, (i) =>
        store.claimSlotWithTx({ ...ref, owner: `inv-${i}`, now: T0, leaseMs: LEASE, txHash: hex32(100 + i), nonce: i }),
      )
      const winners = results.filter((r) => r.claimed)
      expect(winners).toHaveLength(1)
      expect(results.filter((r) => !r.claimed && r.reason === 'sent')).toHaveLength(19)
      expect(await store.getSlot(ref)).toMatchObject({ claims: 1, txHash: winners[0]!.slot.txHash })
    })

    it('records a tx only for the holder; the same tx twice is idempotent, another is refused', async () => {
      const store = await backend.newStore()
      expect(await store.recordSlotTx({ ...ref, owner: 'inv-a', txHash: hex32(1), nonce: 0, now: T0 })).toEqual({
        recorded: false,
        reason: 'missing',
        slot: null,
      })
      await claim(store, 'inv-a')
      expect(await store.recordSlotTx({ ...ref, owner: 'inv-b', txHash: hex32(1), nonce: 0, now: T0 })).toMatchObject({
        recorded: false,
        reason: 'notOwner',
        slot: { status: 'claimed', txHash: null },
      })
      await store.recordSlotTx({ ...ref, owner: 'inv-a', txHash: hex32(1), nonce: 3, now: T0 })
      expect(await store.recordSlotTx({ ...ref, owner: 'inv-a', txHash: hex32(1), nonce: 3, now: T0 + 1 })).toMatchObject({
        recorded: true,
        slot: { sentAt: T0 },
      })
      expect(await store.recordSlotTx({ ...ref, owner: 'inv-a', txHash: hex32(2), nonce: 4, now: T0 + 1 })).toMatchObject({
        recorded: false,
        reason: 'alreadySent',
        slot: { txHash: hex32(1) },
      })
    })

    it('completes a sent slot (any reconciler), idempotently, and a completed slot is final', async () => {
      const store = await backend.newStore()
      await claim(store, 'inv-a')
      await store.recordSlotTx({ ...ref, owner: 'inv-a', txHash: hex32(1), nonce: 0, now: T0 })
      expect(await store.completeSlot({ ...ref, owner: 'inv-b', outcome: 'confirmed', txHash: hex32(2), now: T0 + 2 })).toMatchObject({
        completed: false,
        reason: 'txMismatch',
      })
      const done = await store.completeSlot({
        ...ref,
        owner: 'inv-b',
        outcome: 'reconciled',
        txHash: hex32(1),
        now: T0 + 2,
        detail: { blockNumber: 123n },
      })
      expect(done).toMatchObject({
        completed: true,
        slot: { status: 'reconciled', completedBy: 'inv-b', completedAt: T0 + 2, detail: { blockNumber: '123' } },
      })
      expect(await store.completeSlot({ ...ref, owner: 'inv-c', outcome: 'reconciled', now: T0 + 3 })).toMatchObject({
        completed: true,
        slot: { completedBy: 'inv-b' },
      })
      expect(await store.completeSlot({ ...ref, owner: 'inv-a', outcome: 'failed', now: T0 + 3 })).toMatchObject({
        completed: false,
        reason: 'completed',
      })
      expect(await claim(store, 'inv-d', T0 + 100 * LEASE)).toMatchObject({ claimed: false, reason: 'completed' })
      expect(await store.releaseSlot({ ...ref, owner: 'inv-a', now: T0 })).toMatchObject({ released: false, reason: 'completed' })
    })

    it('completes a claimed slot without a tx only as failed/reconciled, only by its holder', async () => {
      const store = await backend.newStore()
      await claim(store, 'inv-a')
      expect(await store.completeSlot({ ...ref, owner: 'inv-a', outcome: 'confirmed', now: T0 })).toMatchObject({
        completed: false,
        reason: 'notSent',
      })
      expect(await store.completeSlot({ ...ref, owner: 'inv-b', outcome: 'failed', now: T0 })).toMatchObject({
        completed: false,
        reason: 'notOwner',
      })
      expect(await store.completeSlot({ ...ref, owner: 'inv-a', outcome: 'failed', now: T0 })).toMatchObject({
        completed: true,
        slot: { status: 'failed', txHash: null },
      })
    })

    it('releases a claim without a tx so a retry can claim at once; a sent slot cannot be released', async () => {
      const store = await backend.newStore()
      await claim(store, 'inv-a')
      expect(await store.releaseSlot({ ...ref, owner: 'inv-b', now: T0 + 1 })).toMatchObject({ released: false, reason: 'notOwner' })
      expect(await store.releaseSlot({ ...ref, owner: 'inv-a', now: T0 + 1 })).toMatchObject({
        released: true,
        slot: { leaseUntil: T0 + 1 },
      })
      expect(await claim(store, 'inv-b', T0 + 1)).toMatchObject({ claimed: true, slot: { owner: 'inv-b' } })
      await store.recordSlotTx({ ...ref, owner: 'inv-b', txHash: hex32(1), nonce: 0, now: T0 + 2 })
      expect(await store.releaseSlot({ ...ref, owner: 'inv-b', now: T0 + 3 })).toMatchObject({ released: false, reason: 'sent' })
    })

    it('lets exactly one of 20 concurrent invocations claim a slot, fresh and after a lapsed lease', async () => {
      const store = await backend.newStore()
      const fresh = await concurrently(20, (i) => claim(store, `inv-${i}`))
      expect(fresh.filter((r) => r.claimed)).toHaveLength(1)
      const lapsed = await concurrently(20, (i) => claim(store, `late-${i}`, T0 + LEASE + 1))
      const winners = lapsed.filter((r) => r.claimed)
      expect(winners).toHaveLength(1)
      const slot = await store.getSlot(ref)
      expect(slot).toMatchObject({ claims: 2, owner: winners[0]!.slot.owner })
    })

    it('lets exactly one of 20 concurrent holders-to-be record a tx', async () => {
      const store = await backend.newStore()
      await claim(store, 'inv-a')
      const results = await concurrently(20, (i) =>
        store.recordSlotTx({ ...ref, owner: 'inv-a', txHash: hex32(100 + i), nonce: i, now: T0 }),
      )
      expect(results.filter((r) => r.recorded)).toHaveLength(1)
    })

    it('keeps slots apart by golem, period and step', async () => {
      const store = await backend.newStore()
      await claim(store, 'inv-a')
      for (const other of [
        { ...ref, golemId: 'g-2' },
        { ...ref, period: 43n },
        { ...ref, step: 'phase' },
      ]) {
        expect(await store.claimSlot({ ...other, owner: 'inv-b', now: T0, leaseMs: LEASE })).toMatchObject({ claimed: true })
      }
    })

    it('refuses bad input naming the field and key material in detail, writing nothing', async () => {
      const store = await backend.newStore()
      await expect(store.claimSlot({ ...ref, golemId: '', owner: 'a', now: T0, leaseMs: LEASE })).rejects.toMatchObject({
        field: 'golemId',
      })
      await expect(store.claimSlot({ ...ref, period: -1n, owner: 'a', now: T0, leaseMs: LEASE })).rejects.toMatchObject({ field: 'period' })
      await expect(store.claimSlot({ ...ref, period: 1 as never, owner: 'a', now: T0, leaseMs: LEASE })).rejects.toMatchObject({
        field: 'period',
      })
      await expect(store.claimSlot({ ...ref, step: 'Bad Step', owner: 'a', now: T0, leaseMs: LEASE })).rejects.toMatchObject({
        field: 'step',
      })
      await expect(store.claimSlot({ ...ref, owner: '', now: T0, leaseMs: LEASE })).rejects.toMatchObject({ field: 'owner' })
      await expect(store.claimSlot({ ...ref, owner: 'a', now: T0, leaseMs: 0 })).rejects.toMatchObject({ field: 'leaseMs' })
      expect(await store.getSlot(ref)).toBeNull()
      await claim(store, 'inv-a')
      await expect(store.recordSlotTx({ ...ref, owner: 'inv-a', txHash: '0x1234', nonce: 0, now: T0 })).rejects.toMatchObject({
        field: 'txHash',
      })
      await expect(store.recordSlotTx({ ...ref, owner: 'inv-a', txHash: hex32(1), nonce: -1, now: T0 })).rejects.toMatchObject({
        field: 'nonce',
      })
      await expect(
        store.recordSlotTx({ ...ref, owner: 'inv-a', txHash: hex32(1), nonce: 1, rawTx: '0x123' as never, now: T0 }),
      ).rejects.toMatchObject({ field: 'rawTx' })
      await expect(
        store.recordSlotTx({ ...ref, owner: 'inv-a', txHash: hex32(1), nonce: 1, rawTx: '0x02', sender: '0x1234' as never, now: T0 }),
      ).rejects.toMatchObject({ field: 'sender' })
      await expect(
        store.completeSlot({ ...ref, owner: 'inv-a', outcome: 'failed', now: T0, detail: { sessionKey: KEY_LIKE } }),
      ).rejects.toThrow(KeyMaterialError)
      expect(await store.getSlot(ref)).toMatchObject({ status: 'claimed', txHash: null, version: 1 })
      const fresh = { ...ref, step: 'fresh' }
      const input = { ...fresh, owner: 'inv-a', now: T0, leaseMs: LEASE, txHash: hex32(1), nonce: 0 }
      await expect(store.claimSlotWithTx({ ...input, txHash: '0x1234' })).rejects.toMatchObject({ field: 'txHash' })
      await expect(store.claimSlotWithTx({ ...input, nonce: -1 })).rejects.toMatchObject({ field: 'nonce' })
      await expect(store.claimSlotWithTx({ ...input, leaseMs: 0 })).rejects.toMatchObject({ field: 'leaseMs' })
      await expect(store.claimSlotWithTx({ ...input, rawTx: '0x123' as never })).rejects.toMatchObject({ field: 'rawTx' })
      await expect(store.claimSlotWithTx({ ...input, sender: '0x1234' as never })).rejects.toMatchObject({ field: 'sender' })
      await expect(store.claimSlotWithTx({ ...input, owner: '' })).rejects.toMatchObject({ field: 'owner' })
      expect(await store.getSlot(fresh)).toBeNull()
    })
  })
}
