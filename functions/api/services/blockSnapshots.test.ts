// BlockSnapshots: one read per key and block, shared while in flight and after; newer blocks read again.
import { describe, expect, it } from 'vitest'
import { BlockSnapshots } from './blockSnapshots.ts'

describe('BlockSnapshots', () => {
  it('shares one read per key and block, in flight and after', async () => {
    const snapshots = new BlockSnapshots<string>()
    let reads = 0
    const read = async () => `read ${++reads}`
    const [a, b] = await Promise.all([snapshots.at('atlas', 5n, read), snapshots.at('atlas', 5n, read)])
    expect([a, b, await snapshots.at('atlas', 5n, read)]).toEqual(['read 1', 'read 1', 'read 1'])
    expect(reads).toBe(1)
  })

  it('reads again at a newer block, and never answers with an older one', async () => {
    const snapshots = new BlockSnapshots<string>()
    expect(await snapshots.at('atlas', 5n, async () => 'at 5')).toBe('at 5')
    expect(await snapshots.at('atlas', 6n, async () => 'at 6')).toBe('at 6')
    // A caller whose head read answered 5 (sent earlier) still gets the newer read.
    expect(await snapshots.at('atlas', 5n, async () => 'at 5 again')).toBe('at 6')
  })

  it('keys are independent', async () => {
    const snapshots = new BlockSnapshots<string>()
    expect(await snapshots.at('atlas', 5n, async () => 'atlas')).toBe('atlas')
    expect(await snapshots.at('echo', 5n, async () => 'echo')).toBe('echo')
  })

  it('forgets a failed read, so the next caller reads again', async () => {
    const snapshots = new BlockSnapshots<string>()
    await expect(snapshots.at('atlas', 5n, async () => Promise.reject(new Error('rpc down')))).rejects.toThrow('rpc down')
    expect(snapshots.size).toBe(0)
    expect(await snapshots.at('atlas', 5n, async () => 'ok')).toBe('ok')
  })

  it('keeps at most maxEntries keys, dropping the oldest read first', async () => {
    const snapshots = new BlockSnapshots<string>({ maxEntries: 2 })
    await snapshots.at('a', 1n, async () => 'a')
    await snapshots.at('b', 1n, async () => 'b')
    await snapshots.at('a', 2n, async () => 'a2')
    await snapshots.at('c', 2n, async () => 'c')
    expect(snapshots.size).toBe(2)
    expect(await snapshots.at('b', 1n, async () => 'b read again')).toBe('b read again')
    expect(() => new BlockSnapshots({ maxEntries: 0 })).toThrow('maxEntries: must be a positive integer')
  })
})
