// The one thing rate limiting needs from the store: an atomic per-window counter. The lead wires the
// DynamoDB store (core/store) behind this interface.

export interface RateLimitCounterStore {
  /**
   * Adds one to the counter of `bucket` in the window that opened at `windowStart` (unix seconds) and
   * returns the new count. Must be atomic across processes (DynamoDB `ADD`), so that limits hold across
   * Lambda instances. The counter may be forgotten after `expiresAt` (unix seconds). `nowMs` is the
   * request's time (inside the window), for stores that check it.
   */
  incrementRateLimitCounter(bucket: string, windowStart: number, expiresAt: number, nowMs: number): Promise<number>
}
