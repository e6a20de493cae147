import { describe, expect, it } from 'vitest'
import { InvariantError } from './errors.ts'
import { backoffMs, PASSED, RETRY, retry, type RetryPolicy } from './retry.ts'

const recorder = () => {
  const waits: number[] = []
  return { waits, sleep: async (ms: number) => void waits.push(ms) }
}

const exhausted = (n: number) => `exhausted after ${n}`

describe('retry', () => {
  it('answers the first attempt that does not ask for another, without waiting before it', async () => {
    const { waits, sleep } = recorder()
    const seen: number[] = []
    const answer = await retry({ attempts: 5, backoff: { baseMs: 10, capMs: 100 }, exhausted, sleep }, async (n) => {
      seen.push(n)
      return n < 2 ? RETRY : `done at ${n}`
    })
    expect(answer).toBe('done at 2')
    expect(seen).toEqual([0, 1, 2])
    expect(waits).toHaveLength(2)
  })

  it('answers exhausted(attempts) once every attempt asked for another, and waits only between attempts', async () => {
    const { waits, sleep } = recorder()
    let calls = 0
    const answer = await retry({ attempts: 3, backoff: { baseMs: 1, capMs: 1 }, exhausted, sleep, random: () => 0.5 }, async () => {
      calls++
      return RETRY
    })
    expect(answer).toBe('exhausted after 3')
    expect(calls).toBe(3)
    expect(waits).toEqual([0.5, 0.5])
  })

  it('lets exhausted throw: the loop then ends with that error', async () => {
    const policy: RetryPolicy<string> = {
      attempts: 2,
      exhausted: (n) => {
        throw new Error(`still contended after ${n} attempts`)
      },
    }
    await expect(retry(policy, async () => RETRY)).rejects.toThrow('still contended after 2 attempts')
  })

  it('never retries an attempt that throws: the error ends the loop at once', async () => {
    let calls = 0
    const failing = retry({ attempts: 5, exhausted }, async () => {
      calls++
      throw new Error('backend down')
    })
    await expect(failing).rejects.toThrow('backend down')
    expect(calls).toBe(1)
  })

  it('without a backoff, the next attempt follows at once', async () => {
    const { waits, sleep } = recorder()
    await retry({ attempts: 4, exhausted, sleep }, async () => RETRY)
    expect(waits).toEqual([])
  })

  it('with Infinity attempts, runs until an attempt answers', async () => {
    let n = 0
    const answer = await retry({ attempts: Number.POSITIVE_INFINITY, exhausted: () => -1, sleep: async () => {} }, async () =>
      ++n < 50 ? RETRY : n,
    )
    expect(answer).toBe(50)
  })

  it('answers falsy values like any other (only RETRY asks for another attempt)', async () => {
    expect(await retry({ attempts: 2, exhausted: () => 1 }, async () => 0)).toBe(0)
    expect(await retry({ attempts: 2, exhausted: () => 'x' }, async () => null)).toBeNull()
    expect(await retry({ attempts: 2, exhausted: () => 'x' }, async () => undefined)).toBeUndefined()
  })

  it.each([0, -1, 1.5, Number.NaN])('refuses attempts %s, naming the field and the rule, before any attempt', async (attempts) => {
    let calls = 0
    const refused = retry({ attempts, exhausted }, async () => {
      calls++
      return 'x'
    })
    await expect(refused).rejects.toThrow(InvariantError)
    await expect(refused).rejects.toThrow('retry: attempts must be a whole number of at least 1 or Infinity')
    expect(calls).toBe(0)
  })

  it('refuses a negative backoff, naming the fields and the rule', async () => {
    const refused = retry({ attempts: 2, backoff: { baseMs: -1, capMs: 10 }, exhausted }, async () => 'x')
    await expect(refused).rejects.toMatchObject({ code: 'RETRY_POLICY', message: expect.stringContaining('backoff.baseMs') })
  })
})

describe('retry: turns spent before the loop ran (PASSED)', () => {
  it('moves past PASSED turns without counting them as attempts or waiting, and numbers every turn', async () => {
    const { waits, sleep } = recorder()
    const turns: number[] = []
    // Turns 0-4 were spent by an earlier loop; this one makes its own 3 attempts from turn 5 on.
    const answer = await retry(
      { attempts: 3, passes: 10, backoff: { baseMs: 1, capMs: 1 }, exhausted, sleep, random: () => 1 },
      async (n) => {
        turns.push(n)
        return n < 5 ? PASSED : RETRY
      },
    )
    expect(turns).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
    expect(answer).toBe('exhausted after 3')
    expect(waits).toEqual([1, 1])
  })

  it('answers the first turn that is neither, after passing the spent ones', async () => {
    expect(await retry({ attempts: 1, passes: 5, exhausted }, async (n) => (n < 5 ? PASSED : `done at ${n}`))).toBe('done at 5')
  })

  it('answers exhausted with the attempts made once more turns were passed than allowed (default none)', async () => {
    expect(await retry({ attempts: 5, exhausted }, async () => PASSED)).toBe('exhausted after 0')
    expect(await retry({ attempts: 5, passes: 2, exhausted }, async (n) => (n === 0 ? RETRY : PASSED))).toBe('exhausted after 1')
  })

  it.each([-1, 1.5])('refuses passes %s, naming the field and the rule', async (passes) => {
    const refused = retry({ attempts: 2, passes, exhausted }, async () => 'x')
    await expect(refused).rejects.toMatchObject({ code: 'RETRY_POLICY', message: expect.stringContaining('passes must be a whole number') })
  })
})

describe('backoffMs', () => {
  it('doubles from baseMs after each failed attempt, up to capMs, scaled by the random draw (full jitter)', () => {
    const b = { baseMs: 10, capMs: 200 }
    expect([0, 1, 2, 3, 4, 5].map((n) => backoffMs(b, n, 1))).toEqual([10, 20, 40, 80, 160, 200])
    expect(backoffMs(b, 3, 0.25)).toBe(20)
    expect(backoffMs(b, 3, 0)).toBe(0)
  })

  it('stays at the cap however many attempts failed (no overflow past it)', () => {
    expect(backoffMs({ baseMs: 1, capMs: 40 }, 5_000, 1)).toBe(40)
  })
})
