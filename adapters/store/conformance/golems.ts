import { describe, expect, it } from 'vitest'
import { KeyMaterialError, StoreConflictError, StoreInputError } from '../../../core/store/errors.ts'
import { addr, CHECKSUMMED, golemInput, KEY_LIKE, T0, type Backend } from './fixtures.ts'

export function golemSuite(backend: Backend): void {
  describe('Golem records', () => {
    it('creates a record with lowercased addresses, status alive, version 1', async () => {
      const store = await backend.newStore()
      const result = await store.createGolem(golemInput('g-1', { owner: CHECKSUMMED, phase: 'Stable' }))
      expect(result.created).toBe(true)
      const golem = await store.getGolem('g-1')
      expect(golem).toMatchObject({
        golemId: 'g-1',
        owner: CHECKSUMMED.toLowerCase(),
        status: 'alive',
        phase: 'Stable',
        version: 1,
        lastTick: null,
      })
      expect(JSON.parse(golem!.profile!)).toMatchObject({ delegate: addr(2) })
    })

    it('refuses a second create with the same id and returns the existing record', async () => {
      const store = await backend.newStore()
      await store.createGolem(golemInput('g-1'))
      const again = await store.createGolem(golemInput('g-1', { owner: addr(9) }))
      expect(again).toMatchObject({ created: false, existing: { owner: addr(1) } })
    })

    it('updates only at the expected version', async () => {
      const store = await backend.newStore()
      await store.createGolem(golemInput('g-1'))
      const lastTick = { at: T0, period: 7n, outcome: 'redeemed', txHash: null, survivalScoreBps: 6_120 }
      const ok = await store.updateGolem({
        golemId: 'g-1',
        expectedVersion: 1,
        patch: { phase: 'Conservation', lastTick, nextTickAt: T0 + 60_000 },
        now: T0,
      })
      expect(ok).toMatchObject({
        updated: true,
        golem: { version: 2, phase: 'Conservation', lastTick, nextTickAt: T0 + 60_000, updatedAt: T0 },
      })
      const stale = await store.updateGolem({ golemId: 'g-1', expectedVersion: 1, patch: { phase: 'Declining' }, now: T0 })
      expect(stale).toMatchObject({ updated: false, reason: 'version', current: { version: 2, phase: 'Conservation' } })
      expect(await store.updateGolem({ golemId: 'nope', expectedVersion: 1, patch: { phase: 'Declining' }, now: T0 })).toEqual({
        updated: false,
        reason: 'missing',
        current: null,
      })
    })

    it("refuses a last tick's survival score outside basis points, naming the field", async () => {
      const store = await backend.newStore()
      await store.createGolem(golemInput('g-1'))
      for (const survivalScoreBps of [10_001, -1, 0.5]) {
        const lastTick = { at: T0, period: 7n, outcome: 'redeemed', txHash: null, survivalScoreBps }
        await expect(store.updateGolem({ golemId: 'g-1', expectedVersion: 1, patch: { lastTick }, now: T0 })).rejects.toThrow(
          'patch.lastTick.survivalScoreBps: must be an integer in [0, 10000] (basis points)',
        )
      }
      expect((await store.getGolem('g-1'))?.version).toBe(1)
    })

    it("keeps a last tick's count of failed ticks, and refuses one that is not a whole number from 1, naming the field", async () => {
      const store = await backend.newStore()
      await store.createGolem(golemInput('g-1'))
      const failing = { at: T0, period: 7n, outcome: 'running', txHash: null, failures: 2 }
      await store.updateGolem({ golemId: 'g-1', expectedVersion: 1, patch: { lastTick: failing }, now: T0 })
      expect((await store.getGolem('g-1'))?.lastTick).toEqual(failing)
      for (const failures of [0, -1, 1.5]) {
        const lastTick = { ...failing, failures }
        await expect(store.updateGolem({ golemId: 'g-1', expectedVersion: 2, patch: { lastTick }, now: T0 })).rejects.toThrow(
          'patch.lastTick.failures',
        )
      }
      // A tick that finished writes its last tick without the count: it is gone.
      const finished = { at: T0, period: 7n, outcome: 'confirmed', txHash: null }
      await store.updateGolem({ golemId: 'g-1', expectedVersion: 2, patch: { lastTick: finished }, now: T0 })
      expect((await store.getGolem('g-1'))?.lastTick).toEqual(finished)
    })

    it('moves status alive -> dying -> dead and never back; a dead record is final', async () => {
      const store = await backend.newStore()
      await store.createGolem(golemInput('g-1'))
      await store.updateGolem({ golemId: 'g-1', expectedVersion: 1, patch: { status: 'dying' }, now: T0 })
      await expect(store.updateGolem({ golemId: 'g-1', expectedVersion: 2, patch: { status: 'alive' }, now: T0 })).rejects.toThrow(
        StoreConflictError,
      )
      await store.updateGolem({ golemId: 'g-1', expectedVersion: 2, patch: { status: 'dead' }, now: T0 })
      await expect(store.updateGolem({ golemId: 'g-1', expectedVersion: 3, patch: { phase: 'Terminal' }, now: T0 })).rejects.toThrow(/dead/)
      expect(await store.getGolem('g-1')).toMatchObject({ status: 'dead', version: 3 })
    })

    it("finds an owner's Golems (dead ones too) and the Golem behind its current session key only", async () => {
      const store = await backend.newStore()
      await store.createGolem(golemInput('g-1', { owner: CHECKSUMMED, sessionKeyAddress: addr(11), now: T0 }))
      await store.createGolem(golemInput('g-2', { owner: CHECKSUMMED, sessionKeyAddress: addr(12), now: T0 + 1 }))
      await store.createGolem(golemInput('other', { owner: addr(5), sessionKeyAddress: addr(13), now: T0 }))
      const ids = async (input: Parameters<typeof store.findGolems>[0]) => (await store.findGolems(input)).map((g) => g.golemId)
      expect(await ids({ owner: CHECKSUMMED })).toEqual(['g-1', 'g-2'])
      expect(await ids({ owner: CHECKSUMMED.toLowerCase() as `0x${string}` })).toEqual(['g-1', 'g-2'])
      expect(await ids({ sessionKey: addr(12) })).toEqual(['g-2'])
      expect(await ids({ owner: addr(99) })).toEqual([])
      // A refused create (the id exists) leaves no Golem findable under the owner and key it named.
      await store.createGolem(golemInput('g-1', { owner: addr(9), sessionKeyAddress: addr(19) }))
      expect(await ids({ owner: addr(9) })).toEqual([])
      expect(await ids({ sessionKey: addr(19) })).toEqual([])

      // Rotation: the new key finds the Golem, the old one nothing.
      await store.updateGolem({ golemId: 'g-2', expectedVersion: 1, patch: { sessionKeyAddress: addr(22) }, now: T0 + 2 })
      expect(await ids({ sessionKey: addr(22) })).toEqual(['g-2'])
      expect(await ids({ sessionKey: addr(12) })).toEqual([])

      // Death removes a Golem from the due list, not from its owner's list or its key.
      await store.updateGolem({ golemId: 'g-1', expectedVersion: 1, patch: { status: 'dying' }, now: T0 + 3 })
      await store.updateGolem({ golemId: 'g-1', expectedVersion: 2, patch: { status: 'dead' }, now: T0 + 4 })
      expect((await store.findGolems({ owner: CHECKSUMMED })).map((g) => [g.golemId, g.status])).toEqual([
        ['g-1', 'dead'],
        ['g-2', 'alive'],
      ])
      expect(await ids({ sessionKey: addr(11) })).toEqual(['g-1'])
    })

    it('refuses a lookup that names neither or both, or a malformed address', async () => {
      const store = await backend.newStore()
      await expect(store.findGolems({} as never)).rejects.toMatchObject({ field: 'input' })
      await expect(store.findGolems({ owner: addr(1), sessionKey: addr(2) } as never)).rejects.toMatchObject({ field: 'input' })
      await expect(store.findGolems({ owner: '0x1234' as never })).rejects.toMatchObject({ field: 'owner' })
      await expect(store.findGolems({ sessionKey: 'not an address' as never })).rejects.toThrow(StoreInputError)
    })

    it('reads many records at once: unknown ids left out, the order asked, more than one batch of keys', async () => {
      const store = await backend.newStore()
      const ids = Array.from({ length: 130 }, (_, i) => `m-${i}`)
      for (const id of ids) await store.createGolem(golemInput(id))
      const asked = [...ids].reverse()
      const records = await store.getGolems([...asked.slice(0, 60), 'nobody', ...asked.slice(60)])
      expect(records.map((r) => r.golemId)).toEqual(asked)
      expect(records[0]).toEqual(await store.getGolem(asked[0]!))
      expect(await store.getGolems([])).toEqual([])
      await expect(store.getGolems(['has#hash'])).rejects.toMatchObject({ field: 'golemId' })
    })

    it('lists due Golems in pages: due and not dead only, each once', async () => {
      const store = await backend.newStore()
      const due = Array.from({ length: 20 }, (_, i) => `due-${i}`)
      for (const [i, id] of due.entries()) await store.createGolem(golemInput(id, { nextTickAt: T0 - i * 1000 }))
      for (let i = 0; i < 3; i++) await store.createGolem(golemInput(`later-${i}`, { nextTickAt: T0 + 1 }))
      for (let i = 0; i < 2; i++) {
        await store.createGolem(golemInput(`dead-${i}`))
        await store.updateGolem({ golemId: `dead-${i}`, expectedVersion: 1, patch: { status: 'dead' }, now: T0 })
      }
      const seen: string[] = []
      let cursor: string | null = null
      let pages = 0
      do {
        const page = await store.listDueGolems({ now: T0, limit: 7, cursor })
        expect(page.golems.length).toBeLessThanOrEqual(7)
        for (const g of page.golems) expect(g.dueAt).toBeLessThanOrEqual(T0)
        seen.push(...page.golems.map((g) => g.golemId))
        cursor = page.cursor
        pages++
      } while (cursor !== null && pages < 10)
      expect(seen.sort()).toEqual([...due].sort())
    })

    it('follows nextTickAt and status changes in the due list', async () => {
      const store = await backend.newStore()
      await store.createGolem(golemInput('a'))
      await store.createGolem(golemInput('b'))
      // More than one cadence (a minute) ahead: the entry is rewritten, so the Golem leaves the list.
      await store.updateGolem({ golemId: 'a', expectedVersion: 1, patch: { nextTickAt: T0 + 120_000 }, now: T0 })
      expect((await store.listDueGolems({ now: T0 })).golems.map((g) => g.golemId)).toEqual(['b'])
      await store.updateGolem({ golemId: 'b', expectedVersion: 1, patch: { status: 'dead' }, now: T0 })
      expect((await store.listDueGolems({ now: T0 })).golems).toEqual([])
      expect((await store.listDueGolems({ now: T0 + 120_000 })).golems).toMatchObject([
        { golemId: 'a', dueAt: T0 + 120_000, status: 'alive', version: 2 },
      ])
      // Moved back: rewritten at once, never listed late.
      await store.updateGolem({ golemId: 'a', expectedVersion: 2, patch: { nextTickAt: T0 + 5_000 }, now: T0 })
      expect((await store.listDueGolems({ now: T0 + 5_000 })).golems).toMatchObject([{ golemId: 'a', dueAt: T0 + 5_000, version: 3 }])
    })

    it('keeps the due entry when a tick only moves nextTickAt one beat on: a lower bound, never late', async () => {
      const store = await backend.newStore()
      await store.createGolem(golemInput('idle'))
      let version = 1
      // A minute of idle ticks: a lease (lastTick only), then the next tick time one beat on.
      for (let minute = 0; minute < 3; minute++) {
        const now = T0 + minute * 60_000
        const lastTick = { at: now, period: 1n, outcome: 'running', txHash: null }
        await store.updateGolem({ golemId: 'idle', expectedVersion: version++, patch: { lastTick }, now })
        await store.updateGolem({ golemId: 'idle', expectedVersion: version++, patch: { nextTickAt: now + 60_000 }, now })
        // Not rewritten: the entry still says the first due time and version; the record is due next minute.
        const listed = await store.listDueGolems({ now })
        expect(listed.golems).toEqual([{ golemId: 'idle', dueAt: T0, status: 'alive', version: 1 }])
        expect((await store.getGolem('idle'))!.nextTickAt).toBe(now + 60_000)
      }
      // Dying is a status change: the entry follows, and the Golem is still listed (it runs its death protocol).
      await store.updateGolem({ golemId: 'idle', expectedVersion: version++, patch: { status: 'dying' }, now: T0 + 180_000 })
      expect((await store.listDueGolems({ now: T0 + 240_000 })).golems).toMatchObject([{ golemId: 'idle', status: 'dying', version }])
    })

    it('lists one shard at a time: every due Golem in exactly one shard, paged within it', async () => {
      const store = await backend.newStore()
      const ids = Array.from({ length: 40 }, (_, i) => `s-${i}`)
      for (const id of ids) await store.createGolem(golemInput(id))
      expect(store.dueShards).toBeGreaterThan(1)
      const seen: string[] = []
      for (let shard = 0; shard < store.dueShards; shard++) {
        let cursor: string | null = null
        do {
          const page = await store.listDueGolems({ now: T0, limit: 3, cursor, shard })
          seen.push(...page.golems.map((g) => g.golemId))
          cursor = page.cursor
        } while (cursor !== null)
      }
      expect(seen.sort()).toEqual([...ids].sort())
      const first = await store.listDueGolems({ now: T0, limit: 1, shard: 0 })
      const other = [...Array(store.dueShards).keys()].find((n) => n !== 0)!
      if (first.cursor !== null)
        await expect(store.listDueGolems({ now: T0, limit: 1, shard: other, cursor: first.cursor })).rejects.toMatchObject({
          field: 'cursor',
        })
      for (const shard of [-1, store.dueShards, 1.5])
        await expect(store.listDueGolems({ now: T0, shard })).rejects.toMatchObject({ name: 'StoreInputError', field: 'shard' })
    })

    it("records when each due shard was walked, and answers a Golem's by its shard", async () => {
      const store = await backend.newStore()
      await store.createGolem(golemInput('walked'))
      expect(await store.lastWalkOf('walked')).toBeNull()
      const all = Array.from({ length: store.dueShards }, (_, shard) => shard)
      await store.recordShardWalks({ shards: all, at: T0 })
      expect(await store.lastWalkOf('walked')).toBe(T0)
      // A walk of the other shards leaves this Golem's alone.
      let own: number | null = null
      for (const shard of all) {
        const page = await store.listDueGolems({ now: T0 + 60_000, shard })
        if (page.golems.some((g) => g.golemId === 'walked')) own = shard
      }
      await store.recordShardWalks({ shards: all.filter((shard) => shard !== own), at: T0 + 60_000 })
      expect(await store.lastWalkOf('walked')).toBe(T0)
      await store.recordShardWalks({ shards: [own!], at: T0 + 120_000 })
      expect(await store.lastWalkOf('walked')).toBe(T0 + 120_000)
      await expect(store.recordShardWalks({ shards: [store.dueShards], at: T0 })).rejects.toThrow(/shards\[0\]: must be an integer from 0/)
    })

    it('refuses bad input naming the field, and writes nothing', async () => {
      const store = await backend.newStore()
      const cases: [Record<string, unknown>, string][] = [
        [{ golemId: '' }, 'golemId'],
        [{ golemId: 'has#hash' }, 'golemId'],
        [{ owner: 'not-an-address' }, 'owner'],
        [{ sessionKeyAddress: '0x1234' }, 'sessionKeyAddress'],
        [{ custodyMode: 'Custodial' }, 'custodyMode'],
        [{ profile: '{not json' }, 'profile'],
        [{ nextTickAt: -1 }, 'nextTickAt'],
      ]
      for (const [override, field] of cases) {
        const input = { ...golemInput('g-bad'), ...override }
        await expect(store.createGolem(input as never)).rejects.toMatchObject({ name: 'StoreInputError', field })
      }
      expect(await store.getGolem('g-bad')).toBeNull()
      expect((await store.listDueGolems({ now: T0 })).golems).toEqual([])
      await store.createGolem(golemInput('g-1'))
      await expect(store.updateGolem({ golemId: 'g-1', expectedVersion: 1, patch: {}, now: T0 })).rejects.toThrow(StoreInputError)
      await expect(
        store.updateGolem({ golemId: 'g-1', expectedVersion: 1, patch: { owner: addr(5) } as never, now: T0 }),
      ).rejects.toMatchObject({ field: 'patch.owner' })
      expect(await store.getGolem('g-1')).toMatchObject({ version: 1 })
    })

    it('refuses a profile that carries key material, and writes nothing', async () => {
      const store = await backend.newStore()
      const profile = JSON.stringify({ delegate: addr(2), caveats: [{ enforcer: addr(3), terms: '0x', privateKey: KEY_LIKE }] })
      const err = await store.createGolem(golemInput('g-1', { profile })).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(KeyMaterialError)
      expect((err as Error).message).not.toContain(KEY_LIKE.slice(2, 20))
      expect(await store.getGolem('g-1')).toBeNull()
      await store.createGolem(golemInput('g-2'))
      await expect(
        store.updateGolem({ golemId: 'g-2', expectedVersion: 1, patch: { profile: JSON.stringify({ signingKey: KEY_LIKE }) }, now: T0 }),
      ).rejects.toThrow(KeyMaterialError)
      expect(await store.getGolem('g-2')).toMatchObject({ version: 1 })
    })
  })
}
