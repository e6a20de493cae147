// Tiers and limits through the app, with an injected clock and store.
import { describe, expect, it } from 'vitest'
import { hashApiKey } from '../../core/ratelimit/tiers.ts'
import { createApp } from './app.ts'
import { ManualClock, sampleGolem, testApiDeps } from './testing.ts'

const readKey = `bardo_read_${'k'.repeat(24)}`
const T0 = 1_750_000_040_000 // 20 s into a minute window (1_750_000_020 is a multiple of 60)
const path = '/api/v1/golems/atlas/permission-health'

function setup(o: { trustedProxyHops?: number } = {}) {
  const deps = testApiDeps({
    golems: [sampleGolem()],
    clock: new ManualClock(T0),
    config: { readApiKeyHashes: [hashApiKey(readKey)], trustedProxyHops: o.trustedProxyHops ?? 1 },
    overrides: { bearer: { verifyBearer: async (t) => (t === 'portal-user-token' ? { subject: 'user-1' } : undefined) } },
  })
  return { deps, app: createApp(deps) }
}

async function hammer(app: ReturnType<typeof setup>['app'], n: number, headers: Record<string, string>) {
  let last: Response | undefined
  for (let i = 0; i < n; i++) {
    last = await app.request(path, { headers })
    expect(last.status).toBe(200)
  }
  return last!
}

describe('tiers', () => {
  it('public: 30/min per IP, headers on every response, 429 with Retry-After on the 31st', async () => {
    const { app } = setup()
    const windowEnd = Math.floor(T0 / 1000) - (Math.floor(T0 / 1000) % 60) + 60
    const first = await app.request(path, { headers: { 'x-forwarded-for': '198.51.100.1' } })
    expect(first.headers.get('x-ratelimit-limit')).toBe('30')
    expect(first.headers.get('x-ratelimit-remaining')).toBe('29')
    expect(first.headers.get('x-ratelimit-reset')).toBe(String(windowEnd))
    expect(first.headers.get('retry-after')).toBeNull()
    await hammer(app, 29, { 'x-forwarded-for': '198.51.100.1' })
    const refused = await app.request(path, { headers: { 'x-forwarded-for': '198.51.100.1' } })
    expect(refused.status).toBe(429)
    expect(await refused.json()).toMatchObject({ code: 'RATE_LIMITED', details: { tier: 'public', limit: 30 } })
    expect(refused.headers.get('retry-after')).toBe('40')
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0')
    // Another IP has its own bucket.
    expect((await app.request(path, { headers: { 'x-forwarded-for': '198.51.100.2' } })).status).toBe(200)
  })

  it('the window resets on the minute', async () => {
    const { app, deps } = setup()
    await hammer(app, 30, { 'x-forwarded-for': '198.51.100.3' })
    expect((await app.request(path, { headers: { 'x-forwarded-for': '198.51.100.3' } })).status).toBe(429)
    deps.clock.advance(60_000)
    expect((await app.request(path, { headers: { 'x-forwarded-for': '198.51.100.3' } })).status).toBe(200)
  })

  it('read key: 300/min per key, whatever the IP', async () => {
    const { app } = setup()
    const last = await hammer(app, 300, { 'x-api-key': readKey, 'x-forwarded-for': '198.51.100.4' })
    expect(last.headers.get('x-ratelimit-limit')).toBe('300')
    expect(last.headers.get('x-ratelimit-remaining')).toBe('0')
    const refused = await app.request(path, { headers: { 'x-api-key': readKey, 'x-forwarded-for': '198.51.100.5' } })
    expect(refused.status).toBe(429)
    expect(await refused.json()).toMatchObject({ details: { tier: 'read', limit: 300 } })
  })

  it('authenticated: 1000/min per user', async () => {
    const { app } = setup()
    const headers = { authorization: 'Bearer portal-user-token' }
    const last = await hammer(app, 1000, headers)
    expect(last.headers.get('x-ratelimit-limit')).toBe('1000')
    const refused = await app.request(path, { headers })
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).not.toBeNull()
  })

  it('an unknown key or token is 401 (not a silent downgrade) and is charged to the IP', async () => {
    const { app } = setup()
    const key = await app.request(path, { headers: { 'x-api-key': `bardo_read_${'z'.repeat(24)}`, 'x-forwarded-for': '198.51.100.6' } })
    expect(key.status).toBe(401)
    expect(await key.json()).toMatchObject({ code: 'INVALID_API_KEY', message: 'x-api-key: is not a known read key' })
    expect(key.headers.get('x-ratelimit-limit')).toBe('30')
    expect(key.headers.get('x-ratelimit-remaining')).toBe('29')
    const token = await app.request(path, { headers: { authorization: 'Bearer stolen', 'x-forwarded-for': '198.51.100.6' } })
    expect(token.status).toBe(401)
    expect(await token.json()).toMatchObject({ code: 'INVALID_TOKEN' })
    expect(token.headers.get('x-ratelimit-remaining')).toBe('28')
    // Guessing is throttled like anonymous traffic.
    for (let i = 0; i < 28; i++)
      await app.request(path, { headers: { authorization: `Bearer guess-${i}`, 'x-forwarded-for': '198.51.100.6' } })
    expect((await app.request(path, { headers: { authorization: 'Bearer guess-x', 'x-forwarded-for': '198.51.100.6' } })).status).toBe(429)
  })

  it('puts the headers on errors too (404, 400)', async () => {
    const { app } = setup()
    for (const p of ['/nowhere', '/api/v1/golems/atlas/phases?limit=0']) {
      const res = await app.request(p, { headers: { 'x-forwarded-for': '198.51.100.7' } })
      expect(res.status).toBeGreaterThanOrEqual(400)
      expect(res.headers.get('x-ratelimit-limit')).toBe('30')
    }
  })
})

describe('charged before the credential is checked', () => {
  function flooded() {
    const calls = { bearer: 0, snap: 0 }
    const deps = testApiDeps({
      golems: [sampleGolem()],
      clock: new ManualClock(T0),
      // The public budget is larger here, so only the pre-check budget can answer 429.
      config: { trustedProxyHops: 1, rateLimits: { authenticated: 5, public: 100 } },
      overrides: { bearer: { verifyBearer: async () => (calls.bearer++, undefined) } },
    })
    const lookup = deps.stores.snapTokens.getSnapTokenHash.bind(deps.stores.snapTokens)
    deps.stores.snapTokens.getSnapTokenHash = (owner) => (calls.snap++, lookup(owner))
    return { app: createApp(deps), calls }
  }

  it.each([
    ['bearer tokens', 'bearer', (i: number) => `Bearer forged-${i}`],
    ['Snap tokens', 'snap', (i: number) => `Bearer bardo_snap_${'ab'.repeat(20)}.${String(i).padStart(43, 'x')}`],
  ] as const)(
    'a flood of bad %s is refused 429 after the budget; the verifier runs no more often than the budget allows',
    async (_, which, token) => {
      const { app, calls } = flooded()
      const statuses: number[] = []
      for (let i = 0; i < 12; i++) {
        const res = await app.request(path, { headers: { authorization: token(i), 'x-forwarded-for': '198.51.100.20' } })
        statuses.push(res.status)
        if (res.status === 429) expect(await res.json()).toMatchObject({ code: 'RATE_LIMITED', details: { tier: 'credential', limit: 5 } })
      }
      expect(statuses).toEqual([...Array(5).fill(401), ...Array(7).fill(429)])
      expect(calls[which]).toBe(5)
      // Another address has its own budget.
      expect((await app.request(path, { headers: { authorization: token(99), 'x-forwarded-for': '198.51.100.21' } })).status).toBe(401)
    },
  )
})

describe('store-backed counters', () => {
  it('hold across two app instances that share the store (two Lambda instances, one table)', async () => {
    const a = setup()
    const b = createApp({ ...testApiDeps({ golems: [sampleGolem()], clock: a.deps.clock }), stores: a.deps.stores })
    const headers = { 'x-forwarded-for': '198.51.100.8' }
    for (let i = 0; i < 15; i++) {
      expect((await a.app.request(path, { headers })).status).toBe(200)
      expect((await b.request(path, { headers })).status).toBe(200)
    }
    expect((await a.app.request(path, { headers })).status).toBe(429)
    expect((await b.request(path, { headers })).status).toBe(429)
    // A separate store would have let the 31st through: the limit lives in the store, not the process.
    expect((await setup().app.request(path, { headers })).status).toBe(200)
  })
})

describe('client address', () => {
  it('believes X-Forwarded-For only as far as the trusted proxy: spoofed left entries get no fresh bucket', async () => {
    const { app } = setup({ trustedProxyHops: 1 })
    for (let i = 0; i < 30; i++) await app.request(path, { headers: { 'x-forwarded-for': `10.9.9.${i}, 203.0.113.9` } })
    expect((await app.request(path, { headers: { 'x-forwarded-for': '10.0.0.1, 203.0.113.9' } })).status).toBe(429)
  })

  it('ignores X-Forwarded-For without a trusted proxy and uses the socket address', async () => {
    const { app } = setup({ trustedProxyHops: 0 })
    const env = { incoming: { socket: { remoteAddress: '203.0.113.10' } } }
    for (let i = 0; i < 30; i++) await app.request(path, { headers: { 'x-forwarded-for': `10.8.8.${i}` } }, env)
    expect((await app.request(path, { headers: { 'x-forwarded-for': '10.7.7.7' } }, env)).status).toBe(429)
    const lambda = { requestContext: { http: { sourceIp: '203.0.113.11' } } }
    expect((await app.request(path, {}, lambda)).status).toBe(200)
  })
})
