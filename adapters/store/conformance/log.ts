import { describe, expect, it } from 'vitest'
import { KeyMaterialError, StoreInputError } from '../../../core/store/errors.ts'
import { concurrently, KEY_LIKE, T0, type Backend } from './fixtures.ts'

const LOG = 'clade:0x00000000000000000000000000000000000000aa'

export function logSuite(backend: Backend): void {
  describe('append-only logs', () => {
    it('numbers records 1, 2, 3, ... in append order and reads them by range, both ways', async () => {
      const store = await backend.newStore()
      expect(await store.lastLogRecord(LOG)).toBeNull()
      const first = await store.appendLog({ log: LOG, records: [{ n: 1 }, { n: 2 }], now: T0 })
      expect(first.records).toEqual([
        { log: LOG, seq: 1, at: T0, data: { n: 1 } },
        { log: LOG, seq: 2, at: T0, data: { n: 2 } },
      ])
      await store.appendLog({ log: LOG, records: [{ n: 3, big: 10n ** 30n }], now: T0 + 1 })
      expect(await store.lastLogRecord(LOG)).toEqual({ log: LOG, seq: 3, at: T0 + 1, data: { n: 3, big: (10n ** 30n).toString() } })
      const seqs = async (input: Parameters<typeof store.readLog>[0]) => (await store.readLog(input)).map((r) => r.seq)
      expect(await seqs({ log: LOG })).toEqual([1, 2, 3])
      expect(await seqs({ log: LOG, after: 1 })).toEqual([2, 3])
      expect(await seqs({ log: LOG, order: 'desc', limit: 2 })).toEqual([3, 2])
      expect(await seqs({ log: LOG, order: 'desc', before: 3 })).toEqual([2, 1])
      expect(await seqs({ log: LOG, after: 1, before: 3 })).toEqual([2])
      expect(await seqs({ log: LOG, after: 2, before: 3 })).toEqual([])
      expect(await seqs({ log: 'another-log' })).toEqual([])
    })

    it('gives 10 concurrent appenders of 5 records each the numbers 1..50, no gap, no number twice, each appender in order', async () => {
      const store = await backend.newStore()
      const results = await concurrently(10, (w) => store.appendLog({ log: LOG, records: [0, 1, 2, 3, 4].map((n) => ({ w, n })), now: T0 }))
      const all = await store.readLog({ log: LOG, limit: 100 })
      expect(all.map((r) => r.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
      for (const [w, r] of results.entries()) {
        expect(r.records.map((x) => x.data)).toEqual([0, 1, 2, 3, 4].map((n) => ({ w, n })))
        const seqs = r.records.map((x) => x.seq)
        expect([...seqs].sort((a, b) => a - b)).toEqual(seqs)
      }
      expect(new Set(results.flatMap((r) => r.records.map((x) => x.seq))).size).toBe(50)
    })

    it('refuses bad input and key material, writing nothing', async () => {
      const store = await backend.newStore()
      await expect(store.appendLog({ log: 'has space', records: [{}], now: T0 })).rejects.toMatchObject({ field: 'log' })
      await expect(store.appendLog({ log: LOG, records: [], now: T0 })).rejects.toMatchObject({ field: 'records' })
      await expect(store.appendLog({ log: LOG, records: Array.from({ length: 101 }, () => ({})), now: T0 })).rejects.toMatchObject({
        field: 'records',
      })
      await expect(store.appendLog({ log: LOG, records: [{ ok: 1 }, 'text' as never], now: T0 })).rejects.toMatchObject({
        field: 'records[1]',
      })
      await expect(store.appendLog({ log: LOG, records: [{ ok: 1 }, { privateKey: KEY_LIKE }], now: T0 })).rejects.toThrow(KeyMaterialError)
      await expect(store.readLog({ log: LOG, limit: 0 })).rejects.toThrow(StoreInputError)
      await expect(store.readLog({ log: LOG, after: -1 })).rejects.toMatchObject({ field: 'after' })
      await expect(store.readLog({ log: LOG, order: 'up' as never })).rejects.toMatchObject({ field: 'order' })
      expect(await store.lastLogRecord(LOG)).toBeNull()
    })
  })
}
