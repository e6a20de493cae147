// The one thing rate limiting needs from the store: an atomic per-window counter. The lead wires the
// DynamoDB store (core/store) behind this interface; the memory one serves tests and the bench.

export interface RateLimitCounterStore {
  /**
   * Adds one to the counter of `bucket` in the window that opened at `windowStart` (unix seconds) and
   * returns the new count. Must be atomic across processes (DynamoDB `ADD`), so that limits hold across
   * Lambda instances. The counter may be forgotten after `expiresAt` (unix seconds). `nowMs` is the
   * request's time (inside the window), for stores that check it.
   */
  incrementRateLimitCounter(bucket: string, windowStart: number, expiresAt: number, nowMs: number): Promise<number>
}

/** In-process counters. Share one instance between apps to model several Lambda instances on one table. */
export class MemoryRateLimitCounterStore implements RateLimitCounterStore {
  readonly #counts = new Map<string, { count: number; expiresAt: number }>()

  async incrementRateLimitCounter(bucket: string, windowStart: number, expiresAt: number): Promise<number> {
    const key = `${bucket}@${windowStart}`
    const entry = this.#counts.get(key) ?? { count: 0, expiresAt }
    entry.count += 1
    this.#counts.set(key, entry)
    this.#sweep(windowStart)
    return entry.count
  }

  /** Drops counters of windows that closed, so a long-running local server does not grow forever. */
  #sweep(nowSeconds: number): void {
    if (this.#counts.size < 10_000) return
    for (const [key, entry] of this.#counts) if (entry.expiresAt <= nowSeconds) this.#counts.delete(key)
  }
}
