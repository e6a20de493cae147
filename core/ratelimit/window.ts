// Fixed-window rate limiting: the decision and the headers, given a count. Pure.

/** Limits count requests per minute. */
export const RATE_LIMIT_WINDOW_SECONDS = 60

export type RateLimitWindow = {
  /** Unix seconds at which the current window opened. */
  start: number
  /** Unix seconds at which it closes and the count starts again (`X-RateLimit-Reset`). */
  resetAt: number
}

export type RateLimitDecision = {
  allowed: boolean
  limit: number
  /** Requests left in this window after this one (never negative). */
  remaining: number
  resetAt: number
  /** Seconds until a retry can succeed; present only when refused (`Retry-After`). */
  retryAfter?: number
}

/**
 * The window `nowMs` falls in. Windows are aligned to the epoch, not to a caller's first request, so
 * every Lambda instance computes the same window (and the same store key) without talking to the others.
 */
export function fixedWindow(nowMs: number, windowSeconds: number = RATE_LIMIT_WINDOW_SECONDS): RateLimitWindow {
  if (!Number.isInteger(windowSeconds) || windowSeconds <= 0) {
    throw new RangeError(`windowSeconds: must be a positive integer, got ${windowSeconds}`)
  }
  const nowSeconds = Math.floor(nowMs / 1000)
  const start = nowSeconds - (nowSeconds % windowSeconds)
  return { start, resetAt: start + windowSeconds }
}

/** Decides a request that brought the window's count to `count` (this request included). */
export function decideRateLimit(count: number, limit: number, nowMs: number, window: RateLimitWindow): RateLimitDecision {
  const allowed = count <= limit
  const remaining = Math.max(0, limit - count)
  if (allowed) return { allowed, limit, remaining, resetAt: window.resetAt }
  // At least one second: a client that retries "after 0 s" would only be refused again.
  const retryAfter = Math.max(1, window.resetAt - Math.floor(nowMs / 1000))
  return { allowed, limit, remaining, resetAt: window.resetAt, retryAfter }
}

/** The X-RateLimit-* headers on every response; `Retry-After` only on a refusal. */
export function rateLimitHeaders(d: RateLimitDecision): Record<string, string> {
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(d.limit),
    'X-RateLimit-Remaining': String(d.remaining),
    'X-RateLimit-Reset': String(d.resetAt),
  }
  if (d.retryAfter !== undefined) headers['Retry-After'] = String(d.retryAfter)
  return headers
}
