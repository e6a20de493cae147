import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { planWalks, type ShardLoad } from './walkPlan.ts'

const PAGE = 200
/** `golems` spread evenly over 16 shards, as the due list's hash spreads them. */
const fleet = (golems: number): ShardLoad[] =>
  Array.from({ length: 16 }, (_, shard) => {
    const listed = Math.floor(golems / 16) + (shard < golems % 16 ? 1 : 0)
    return { shard, listed: Math.min(listed, PAGE), more: listed > PAGE }
  })

describe('planWalks', () => {
  it('walks a fleet of 100 in one walk: one multicall a minute instead of sixteen', () => {
    expect(planWalks(fleet(100), PAGE)).toEqual([[...Array(16).keys()]])
  })

  it('packs a fleet of 1,000 three shards to a walk (186 Golems), never past a page', () => {
    const walks = planWalks(fleet(1_000), PAGE)
    expect(walks).toEqual([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11], [12, 13, 14], [15]])
  })

  it('walks every shard alone when each fills a page (100,000 Golems): the walkers run side by side as before', () => {
    expect(planWalks(fleet(100_000), PAGE)).toEqual([...Array(16).keys()].map((s) => [s]))
  })

  it('skips a shard with nothing due, and a shard with exactly a page walks alone', () => {
    const loads: ShardLoad[] = [
      { shard: 3, listed: 0, more: false },
      { shard: 0, listed: 200, more: false },
      { shard: 1, listed: 120, more: false },
      { shard: 2, listed: 90, more: false },
      { shard: 4, listed: 10, more: false },
    ]
    expect(planWalks(loads, PAGE)).toEqual([[0], [1], [2, 4]])
    expect(planWalks([], PAGE)).toEqual([])
  })

  it('refuses a page size that is not a positive integer, naming it', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => planWalks(fleet(10), bad)).toThrow('pageSize: must be a positive integer')
  })

  it('covers every shard with something due exactly once, and packs no walk past a page', () => {
    const load = fc.record({ listed: fc.integer({ min: 0, max: PAGE }), more: fc.boolean() })
    fc.assert(
      fc.property(fc.array(load, { maxLength: 64 }), fc.integer({ min: 1, max: PAGE }), (raw, page) => {
        const loads = raw.map((l, shard) => ({ shard, listed: l.more ? PAGE : l.listed, more: l.more }))
        const walks = planWalks(loads, page)
        const byShard = new Map(loads.map((l) => [l.shard, l]))
        expect(walks.flat().sort((a, b) => a - b)).toEqual(loads.filter((l) => l.more || l.listed > 0).map((l) => l.shard))
        for (const walk of walks) {
          if (walk.length > 1) expect(walk.reduce((n, s) => n + byShard.get(s)!.listed, 0)).toBeLessThanOrEqual(page)
          for (const s of walk) if (byShard.get(s)!.more || byShard.get(s)!.listed >= page) expect(walk).toEqual([s])
        }
      }),
    )
  })
})
