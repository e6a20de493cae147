import { describe, expect, it } from 'vitest'
import { StoreConflictError } from '../../../core/store/errors.ts'
import type { Store } from '../../../core/store/store.ts'
import { concurrently, T0, type Backend } from './fixtures.ts'

const at = { golemId: 'g-1', period: 3n }
const reserve = (store: Store, reservationId: string, amount: bigint, cap = 100n) =>
  store.reserveBudget({ ...at, amount, cap, reservationId, now: T0 })

export function budgetSuite(backend: Backend): void {
  describe('budget reservations', () => {
    it('reserves within the cap and refuses what would pass it', async () => {
      const store = await backend.newStore()
      expect(await reserve(store, 'r1', 60n)).toMatchObject({
        reserved: true,
        reservation: { reservationId: 'r1', amount: 60n, state: 'reserved' },
        budget: { reserved: 60n, spent: 0n, cap: 100n, version: 1 },
      })
      expect(await reserve(store, 'r2', 41n)).toMatchObject({ reserved: false, reason: 'cap', available: 40n })
      expect(await reserve(store, 'r3', 40n)).toMatchObject({ reserved: true, budget: { reserved: 100n } })
      expect(await store.getBudget('g-1', 3n)).toMatchObject({ reserved: 100n, spent: 0n, version: 2 })
      expect(await store.getBudget('g-1', 4n)).toBeNull()
    })

    it('is idempotent by reservationId, and refuses the id with another amount', async () => {
      const store = await backend.newStore()
      await reserve(store, 'r1', 60n)
      expect(await reserve(store, 'r1', 60n)).toMatchObject({ reserved: true, budget: { reserved: 60n, version: 1 } })
      await expect(reserve(store, 'r1', 61n)).rejects.toThrow(StoreConflictError)
      expect(await store.getBudget('g-1', 3n)).toMatchObject({ reserved: 60n, version: 1 })
    })

    it('commits: reserved moves to spent; less spent gives the difference back; idempotent', async () => {
      const store = await backend.newStore()
      await reserve(store, 'r1', 60n)
      await reserve(store, 'r2', 30n)
      expect(await store.commitReservation({ ...at, reservationId: 'r1', now: T0 })).toMatchObject({
        committed: true,
        reservation: { state: 'committed', spent: 60n },
        budget: { reserved: 30n, spent: 60n },
      })
      expect(await store.commitReservation({ ...at, reservationId: 'r1', now: T0 })).toMatchObject({
        committed: true,
        budget: { reserved: 30n, spent: 60n },
      })
      expect(await store.commitReservation({ ...at, reservationId: 'r2', spent: 10n, now: T0 })).toMatchObject({
        committed: true,
        budget: { reserved: 0n, spent: 70n },
      })
      expect(await reserve(store, 'r3', 30n)).toMatchObject({ reserved: true, budget: { reserved: 30n, spent: 70n } })
      expect(await reserve(store, 'r4', 1n)).toMatchObject({ reserved: false, reason: 'cap', available: 0n })
    })

    it('releases: the amount comes back; idempotent; a committed one cannot be released', async () => {
      const store = await backend.newStore()
      await reserve(store, 'r1', 60n)
      await reserve(store, 'r2', 40n)
      expect(await store.releaseReservation({ ...at, reservationId: 'r1', now: T0 })).toMatchObject({
        released: true,
        reservation: { state: 'released' },
        budget: { reserved: 40n },
      })
      expect(await store.releaseReservation({ ...at, reservationId: 'r1', now: T0 })).toMatchObject({
        released: true,
        budget: { reserved: 40n },
      })
      expect(await store.commitReservation({ ...at, reservationId: 'r1', now: T0 })).toMatchObject({ committed: false, reason: 'released' })
      expect(await reserve(store, 'r1', 60n)).toMatchObject({ reserved: false, reason: 'released' })
      await store.commitReservation({ ...at, reservationId: 'r2', now: T0 })
      expect(await store.releaseReservation({ ...at, reservationId: 'r2', now: T0 })).toMatchObject({
        released: false,
        reason: 'committed',
      })
      expect(await store.releaseReservation({ ...at, reservationId: 'zz', now: T0 })).toMatchObject({ released: false, reason: 'unknown' })
      expect(await store.commitReservation({ ...at, reservationId: 'zz', now: T0 })).toMatchObject({ committed: false, reason: 'unknown' })
      expect(await store.getBudget('g-1', 3n)).toMatchObject({ reserved: 0n, spent: 40n })
    })

    it('never lets 50 concurrent reservations pass the cap', async () => {
      const store = await backend.newStore()
      const results = await concurrently(50, (i) => reserve(store, `r-${i}`, 7n))
      const won = results.filter((r) => r.reserved)
      expect(won).toHaveLength(14) // floor(100 / 7)
      const budget = await store.getBudget('g-1', 3n)
      expect(budget!.reserved + budget!.spent).toBeLessThanOrEqual(100n)
      expect(budget!.reserved).toBe(98n)
      expect(budget!.reservations.filter((r) => r.state === 'reserved')).toHaveLength(14)
    })

    it('counts one reservation for 20 concurrent retries of the same reservationId', async () => {
      const store = await backend.newStore()
      const results = await concurrently(20, () => reserve(store, 'same', 10n))
      expect(results.every((r) => r.reserved)).toBe(true)
      expect(await store.getBudget('g-1', 3n)).toMatchObject({ reserved: 10n, reservations: [{ reservationId: 'same' }] })
    })

    it('keeps reserved + spent within the cap under concurrent reserve, commit and release', async () => {
      const store = await backend.newStore()
      const ids = Array.from({ length: 30 }, (_, i) => `r-${i}`)
      await concurrently(30, async (i) => {
        const r = await reserve(store, ids[i]!, 9n)
        if (!r.reserved) return
        if (i % 2 === 0) await store.commitReservation({ ...at, reservationId: ids[i]!, spent: 5n, now: T0 })
        else await store.releaseReservation({ ...at, reservationId: ids[i]!, now: T0 })
      })
      const budget = (await store.getBudget('g-1', 3n))!
      expect(budget.reserved).toBe(0n)
      expect(budget.reserved + budget.spent).toBeLessThanOrEqual(100n)
      const committed = budget.reservations.filter((r) => r.state === 'committed')
      expect(budget.spent).toBe(5n * BigInt(committed.length))
    })

    it('refuses bad input naming the field, and writes nothing', async () => {
      const store = await backend.newStore()
      await expect(store.reserveBudget({ ...at, amount: -5n, cap: 100n, reservationId: 'r1', now: T0 })).rejects.toMatchObject({
        name: 'StoreInputError',
        field: 'amount',
      })
      await expect(store.reserveBudget({ ...at, amount: 0n, cap: 100n, reservationId: 'r1', now: T0 })).rejects.toMatchObject({
        field: 'amount',
      })
      await expect(store.reserveBudget({ ...at, amount: 5 as never, cap: 100n, reservationId: 'r1', now: T0 })).rejects.toMatchObject({
        field: 'amount',
      })
      await expect(store.reserveBudget({ ...at, amount: 5n, cap: -1n, reservationId: 'r1', now: T0 })).rejects.toMatchObject({
        field: 'cap',
      })
      await expect(store.reserveBudget({ ...at, golemId: '', amount: 5n, cap: 100n, reservationId: 'r1', now: T0 })).rejects.toMatchObject({
        field: 'golemId',
      })
      await expect(store.reserveBudget({ ...at, amount: 5n, cap: 100n, reservationId: '', now: T0 })).rejects.toMatchObject({
        field: 'reservationId',
      })
      expect(await store.getBudget('g-1', 3n)).toBeNull()
      await reserve(store, 'r1', 10n)
      await expect(store.commitReservation({ ...at, reservationId: 'r1', spent: 11n, now: T0 })).rejects.toMatchObject({ field: 'spent' })
      expect(await store.getBudget('g-1', 3n)).toMatchObject({ reserved: 10n, spent: 0n, version: 1 })
    })
  })
}
