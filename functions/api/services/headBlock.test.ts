// HeadBlock shares head reads and never answers a caller from a read sent more than `maxAgeMs` before it
// arrived (by default: from a read sent before it arrived); with an age, a caller answered by a read half
// its age old starts the next one without waiting for it.
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

  describe('with a maximum age', () => {
    function clocked(maxAgeMs: number) {
      const chain = manualChain()
      let now = 10_000
      const head = new HeadBlock(chain.read, { maxAgeMs, now: () => now })
      return { chain, head, advance: (ms: number) => (now += ms) }
    }

    it('a read sent within the age answers later callers without a new read, in flight or done', async () => {
      const { chain, head, advance } = clocked(1_000)
      const first = head.latest()
      advance(400)
      const joined = head.latest() // in flight, sent 400 ms ago
      expect(chain.pending).toHaveLength(1)
      chain.answer()
      expect(await first).toBe(1n)
      expect(await joined).toBe(1n)
      advance(99) // 499 ms after the read was sent: under half its age, nothing is read ahead
      chain.mine()
      expect(await head.latest()).toBe(1n)
      expect(chain.pending).toHaveLength(0)
    })

    it('a caller answered by a read half its age old starts the next read and does not wait for it', async () => {
      const { chain, head, advance } = clocked(1_000)
      const first = head.latest()
      chain.answer()
      expect(await first).toBe(1n)
      advance(500)
      chain.mine()
      // Answered at once by the read sent 500 ms ago; the next read is sent now, in the background.
      expect(await head.latest()).toBe(1n)
      expect(chain.pending).toHaveLength(1)
      expect(await head.latest()).toBe(1n) // one read ahead at a time
      expect(chain.pending).toHaveLength(1)
      // The first read has aged out: the caller is answered by the read ahead, sent 500 ms before it came.
      advance(500)
      const later = head.latest()
      expect(chain.pending).toHaveLength(1)
      chain.answer()
      expect(await later).toBe(2n)
      expect(chain.pending).toHaveLength(0)
    })

    it('a read ahead that fails reaches no caller; the next caller after the age reads again', async () => {
      const { chain, head, advance } = clocked(1_000)
      const first = head.latest()
      chain.answer()
      expect(await first).toBe(1n)
      advance(600)
      expect(await head.latest()).toBe(1n)
      chain.fail()
      await tick()
      advance(400)
      const fresh = head.latest()
      expect(chain.pending).toHaveLength(1)
      chain.mine()
      chain.answer()
      expect(await fresh).toBe(2n)
    })

    it('a caller arriving the age or more after the read was sent gets a new read', async () => {
      const { chain, head, advance } = clocked(1_000)
      const first = head.latest()
      chain.answer()
      expect(await first).toBe(1n)
      chain.mine()
      advance(1_000)
      const fresh = head.latest()
      expect(chain.pending).toHaveLength(1)
      chain.answer()
      expect(await fresh).toBe(2n)
    })

    it('a failed read is never reused', async () => {
      const { chain, head, advance } = clocked(1_000)
      const a = head.latest()
      chain.fail()
      await expect(a).rejects.toThrow('rpc down')
      await tick()
      advance(10)
      const b = head.latest()
      expect(chain.pending).toHaveLength(1)
      chain.answer()
      expect(await b).toBe(1n)
    })

    it('refuses a negative or non-finite age, naming the option', () => {
      expect(() => new HeadBlock(async () => 1n, { maxAgeMs: -1 })).toThrow(/maxAgeMs/)
      expect(() => new HeadBlock(async () => 1n, { maxAgeMs: Number.NaN })).toThrow(/maxAgeMs/)
    })
  })
})
