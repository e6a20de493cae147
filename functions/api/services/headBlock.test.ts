// HeadBlock shares head reads without ever answering a caller from a read sent before it arrived.
import { describe, expect, it } from 'vitest'
import { HeadBlock } from './headBlock.ts'

/** A head read the test settles by hand; `sent` counts reads. */
function manualChain() {
  const pending: { resolve: (n: bigint) => void; reject: (e: unknown) => void }[] = []
  let head = 1n
  return {
    pending,
    mine: () => {
      head++
    },
    /** Answers the oldest read with the head as it is now. */
    answer: () => pending.shift()!.resolve(head),
    fail: () => pending.shift()!.reject(new Error('rpc down')),
    read: () => new Promise<bigint>((resolve, reject) => pending.push({ resolve, reject })),
  }
}

const tick = () => new Promise((r) => setImmediate(r))

describe('HeadBlock', () => {
  it('callers that arrive together share one read', async () => {
    const chain = manualChain()
    const head = new HeadBlock(chain.read)
    const a = head.latest()
    expect(chain.pending).toHaveLength(1)
    chain.answer()
    expect(await a).toBe(1n)
  })

  it('a caller arriving while a read is in flight waits for the next read, which later arrivals share', async () => {
    const chain = manualChain()
    const head = new HeadBlock(chain.read)
    const first = head.latest()
    // A block is mined after the first read was sent (the node answers the head as it was then).
    const seenAtSend = 1n
    chain.mine()
    const second = head.latest()
    const third = head.latest()
    expect(chain.pending).toHaveLength(1)
    chain.pending.shift()!.resolve(seenAtSend)
    expect(await first).toBe(1n)
    await tick()
    expect(chain.pending).toHaveLength(1) // one more read, for both late callers
    chain.answer()
    expect(await second).toBe(2n)
    expect(await third).toBe(2n)
  })

  it('a failed read fails its callers only; the next caller reads again', async () => {
    const chain = manualChain()
    const head = new HeadBlock(chain.read)
    const a = head.latest()
    const late = head.latest()
    chain.fail()
    await expect(a).rejects.toThrow('rpc down')
    await tick()
    chain.answer()
    expect(await late).toBe(1n)
    const b = head.latest()
    chain.answer()
    expect(await b).toBe(1n)
  })
})
