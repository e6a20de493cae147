// Counts one request against a bucket in the store and decides it.
import type { RateLimitCounterStore } from './counterStore.ts'
import { decideRateLimit, fixedWindow, RATE_LIMIT_WINDOW_SECONDS, type RateLimitDecision } from './window.ts'

export async function consumeRateLimit(
  store: RateLimitCounterStore,
  bucket: string,
  limit: number,
  nowMs: number,
  windowSeconds: number = RATE_LIMIT_WINDOW_SECONDS,
): Promise<RateLimitDecision> {
  const window = fixedWindow(nowMs, windowSeconds)
  const count = await store.incrementRateLimitCounter(bucket, window.start, window.resetAt, nowMs)
  return decideRateLimit(count, limit, nowMs, window)
}
