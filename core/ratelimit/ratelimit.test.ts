import { describe, expect, it } from 'vitest'
import { consumeRateLimit } from './consume.ts'
import { MemoryRateLimitCounterStore } from '../../test/support/memoryPorts.ts'
import { claimTier, hashApiKey, rateLimitBucket, TIER_LIMITS } from './tiers.ts'
import { decideRateLimit, fixedWindow, rateLimitHeaders } from './window.ts'

const T0 = 1_709_942_400_000 // a window boundary (divisible by 60 s)

describe('fixed windows', () => {
  it('aligns windows to the epoch minute', () => {
    expect(fixedWindow(T0 + 59_999)).toEqual({ start: T0 / 1000, resetAt: T0 / 1000 + 60 })
    expect(fixedWindow(T0 + 60_000).start).toBe(T0 / 1000 + 60)
    expect(() => fixedWindow(T0, 0)).toThrow(/windowSeconds/)
  })

  it('allows up to the limit, then refuses with Retry-After until the reset', () => {
    const w = fixedWindow(T0 + 48_000)
    expect(decideRateLimit(30, 30, T0 + 48_000, w)).toEqual({ allowed: true, limit: 30, remaining: 0, resetAt: w.resetAt })
    const refused = decideRateLimit(31, 30, T0 + 48_000, w)
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfter: 12 })
    expect(rateLimitHeaders(refused)).toEqual({
      'X-RateLimit-Limit': '30',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(w.resetAt),
      'Retry-After': '12',
    })
    expect(rateLimitHeaders(decideRateLimit(13, 300, T0, w))).not.toHaveProperty('Retry-After')
    expect(decideRateLimit(31, 30, T0 + 59_999, w).retryAfter).toBe(1)
  })
})

describe('tiers', () => {
  it('has the tier limits and prefers a bearer token over a key', () => {
    expect(TIER_LIMITS).toEqual({ public: 30, read: 300, authenticated: 1000 })
    expect(claimTier({})).toEqual({ tier: 'public' })
    expect(claimTier({ apiKey: 'bardo_read_x' })).toEqual({ tier: 'read', apiKey: 'bardo_read_x' })
    expect(claimTier({ apiKey: 'bardo_read_x', bearerToken: 't' })).toEqual({ tier: 'authenticated', bearerToken: 't' })
  })

  it('hashes keys so that buckets and config never hold one', () => {
    expect(hashApiKey('bardo_read_abc')).toMatch(/^0x[0-9a-f]{64}$/)
    expect(hashApiKey('bardo_read_abc')).not.toContain('abc')
    expect(rateLimitBucket('public', '10.0.0.1')).toBe('rl:public:10.0.0.1')
  })
})

describe('consumeRateLimit', () => {
  it('counts in the store, per bucket and per window', async () => {
    const store = new MemoryRateLimitCounterStore()
    for (let i = 0; i < 30; i++) expect((await consumeRateLimit(store, 'a', 30, T0)).allowed).toBe(true)
    expect(await consumeRateLimit(store, 'a', 30, T0 + 1000)).toMatchObject({ allowed: false, retryAfter: 59 })
    expect((await consumeRateLimit(store, 'b', 30, T0)).remaining).toBe(29)
    expect((await consumeRateLimit(store, 'a', 30, T0 + 60_000)).remaining).toBe(29)
  })
})
