// Bounded parallelism for the edges: hand-overs, record reads and a tick invocation's Golems run a few at
// a time, never one after another and never all at once (sockets, the RPC provider's rate, Lambda's CPU).

/** Each item's outcome, in input order; at most `limit` tasks run at once and one failure stops none. */
export async function settleBounded<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`)
  const out: PromiseSettledResult<R>[] = new Array(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next++
      try {
        out[index] = { status: 'fulfilled', value: await task(items[index]!, index) }
      } catch (reason) {
        out[index] = { status: 'rejected', reason }
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return out
}

/** A cap shared by every caller: at most `limit` of the tasks it runs are in flight at once. */
export class Limiter {
  #active = 0
  readonly #waiting: (() => void)[] = []
  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`)
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#active >= this.limit) await new Promise<void>((resolve) => this.#waiting.push(resolve))
    else this.#active++
    try {
      return await task()
    } finally {
      const wake = this.#waiting.shift()
      // The slot passes straight to the next waiter, so the count never drops below what is in flight.
      if (wake) wake()
      else this.#active--
    }
  }
}
