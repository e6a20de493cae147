// /api/snap/status: a bearer token that rotates on every heartbeat (every successful status call returns
// the next token and retires the one it used; the Golem heartbeat may rotate too), and the Portal
// origin allowlist.
import { describe, expect, it } from 'vitest'
import { createApp } from './app.ts'
import { snapStatusResponse } from './schemas.ts'
import { NEXT_TOKEN_HEADER } from './routes/snap.ts'
import { hashSnapToken, rotateSnapToken } from '../../core/snap/snapToken.ts'
import { sampleGolem, testApiDeps } from './testing.ts'

const owner = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const otherOwner = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
const portal = 'https://bardo.ai'

function setup() {
  const deps = testApiDeps({
    golems: [
      sampleGolem({ id: 'atlas', name: 'Atlas', owner, phase: 'Thriving', vitality: 0.98 }),
      sampleGolem({
        id: 'echo',
        name: 'Echo',
        owner,
        address: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
        phase: 'Conservation',
        vitality: 0.61,
      }),
      sampleGolem({ id: 'stranger', name: 'Stranger', owner: otherOwner, address: '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65' }),
    ],
    overrides: { bearer: { verifyBearer: async (t) => (t === 'portal-user' ? { subject: 'u1' } : undefined) } },
  })
  return { deps, app: createApp(deps) }
}

const get = (app: ReturnType<typeof createApp>, headers: Record<string, string>) =>
  app.request('/api/snap/status', { headers: { 'x-forwarded-for': '198.51.100.20', ...headers } })

describe('/api/snap/status', () => {
  it("lists the token owner's Golems with phase, vitality, permission health and last heartbeat", async () => {
    const { app, deps } = setup()
    const token = await rotateSnapToken(deps.stores.snapTokens, owner, deps.clock.now())
    const res = await get(app, { authorization: `Bearer ${token}`, origin: portal })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(snapStatusResponse.safeParse(body).error).toBeUndefined()
    expect(body).toMatchObject({
      owner,
      golems: [
        {
          id: 'atlas',
          phase: 'Thriving',
          vitality: 0.98,
          lastHeartbeatAt: 1_749_999_940,
          permission: { health: 'low', remaining_today: '8200000', days_remaining: 4 },
        },
        { id: 'echo', phase: 'Conservation', vitality: 0.61 },
      ],
    })
    expect((body as { golems: unknown[] }).golems).toHaveLength(2)
    expect(res.headers.get('access-control-allow-origin')).toBe(portal)
    expect(res.headers.get('x-ratelimit-limit')).toBe('1000')
  })

  it('refuses the old token right after rotation and accepts the new one', async () => {
    const { app, deps } = setup()
    const old = await rotateSnapToken(deps.stores.snapTokens, owner, deps.clock.now())
    expect((await get(app, { authorization: `Bearer ${old}`, origin: portal })).status).toBe(200)
    // The Golem heartbeat's explicit rotation.
    const next = await rotateSnapToken(deps.stores.snapTokens, owner, deps.clock.now())
    expect(next).not.toBe(old)
    // Only the hash is stored.
    expect(await deps.stores.snapTokens.getSnapTokenHash(owner)).toBe(hashSnapToken(next))
    const refused = await get(app, { authorization: `Bearer ${old}`, origin: portal })
    expect(refused.status).toBe(401)
    expect(await refused.json()).toMatchObject({ code: 'INVALID_TOKEN' })
    expect((await get(app, { authorization: `Bearer ${next}`, origin: portal })).status).toBe(200)
  })

  it('rotates on every successful call: returns the next token (body and header), and the used one is refused at once', async () => {
    const { app, deps } = setup()
    let token = await rotateSnapToken(deps.stores.snapTokens, owner, deps.clock.now())
    const used: string[] = []
    for (let beat = 0; beat < 3; beat++) {
      const res = await get(app, { authorization: `Bearer ${token}`, origin: portal })
      expect(res.status).toBe(200)
      const body = (await res.json()) as { nextToken: string }
      expect(res.headers.get(NEXT_TOKEN_HEADER)).toBe(body.nextToken)
      expect(res.headers.get('cache-control')).toBe('no-store')
      expect(res.headers.get('access-control-expose-headers')).toContain(NEXT_TOKEN_HEADER)
      expect(body.nextToken).toMatch(/^bardo_snap_[0-9a-f]{40}\.[A-Za-z0-9_-]{43}$/)
      expect(await deps.stores.snapTokens.getSnapTokenHash(owner)).toBe(hashSnapToken(body.nextToken))
      used.push(token)
      token = body.nextToken
    }
    for (const old of used) {
      const res = await get(app, { authorization: `Bearer ${old}`, origin: portal })
      expect(res.status).toBe(401)
      expect(await res.json()).toMatchObject({ code: 'INVALID_TOKEN' })
    }
    expect((await get(app, { authorization: `Bearer ${token}`, origin: portal })).status).toBe(200)
  })

  it('gives two concurrent calls with one token one successor: the other call is refused', async () => {
    const { app, deps } = setup()
    const token = await rotateSnapToken(deps.stores.snapTokens, owner, deps.clock.now())
    const [a, b] = await Promise.all([
      get(app, { authorization: `Bearer ${token}`, origin: portal }),
      get(app, { authorization: `Bearer ${token}`, origin: portal }),
    ])
    expect([a.status, b.status].sort()).toEqual([200, 401])
    const winner = (await (a.status === 200 ? a : b).json()) as { nextToken: string }
    expect(await deps.stores.snapTokens.getSnapTokenHash(owner)).toBe(hashSnapToken(winner.nextToken))
  })

  it('keeps the token when the call fails (nothing was returned, so nothing is retired)', async () => {
    const { deps } = setup()
    const broken = createApp({
      ...deps,
      golems: {
        ...deps.golems,
        getGolem: deps.golems.getGolem.bind(deps.golems),
        listGolemsByOwner: async () => Promise.reject(new Error('store down')),
      },
    })
    const token = await rotateSnapToken(deps.stores.snapTokens, owner, deps.clock.now())
    expect((await get(broken, { authorization: `Bearer ${token}`, origin: portal })).status).toBe(500)
    expect(await deps.stores.snapTokens.getSnapTokenHash(owner)).toBe(hashSnapToken(token))
    expect((await get(createApp(deps), { authorization: `Bearer ${token}`, origin: portal })).status).toBe(200)
  })

  it('refuses another origin, and a missing one, with 403 ORIGIN_NOT_ALLOWED', async () => {
    const { app, deps } = setup()
    const token = await rotateSnapToken(deps.stores.snapTokens, owner, deps.clock.now())
    for (const headers of [{ origin: 'https://evil.example' }, {}] as Record<string, string>[]) {
      const res = await get(app, { authorization: `Bearer ${token}`, ...headers })
      expect(res.status).toBe(403)
      expect(await res.json()).toMatchObject({ code: 'ORIGIN_NOT_ALLOWED' })
      expect(res.headers.get('access-control-allow-origin')).toBeNull()
    }
  })

  it('refuses no token (401), a forged token (401) and a Portal user token (400: not a Snap token)', async () => {
    const { app, deps } = setup()
    const none = await get(app, { origin: portal })
    expect(none.status).toBe(401)
    expect(await none.json()).toMatchObject({ code: 'SNAP_AUTH_REQUIRED' })
    const real = await rotateSnapToken(deps.stores.snapTokens, owner, deps.clock.now())
    const forged = `${real.slice(0, -4)}AAAA`
    expect((await get(app, { authorization: `Bearer ${forged}`, origin: portal })).status).toBe(401)
    const user = await get(app, { authorization: 'Bearer portal-user', origin: portal })
    expect(user.status).toBe(400)
    expect(await user.json()).toMatchObject({ message: "authorization: must be 'Bearer bardo_snap_<token>'" })
  })

  it('answers the CORS preflight for the Portal only', async () => {
    const { app } = setup()
    const pre = (origin: string) =>
      app.request('/api/snap/status', {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      })
    const ok = await pre(portal)
    expect(ok.status).toBe(204)
    expect(ok.headers.get('access-control-allow-origin')).toBe(portal)
    expect((await pre('https://evil.example')).headers.get('access-control-allow-origin')).toBeNull()
  })

  it('shows permission as null for a Golem whose health cannot be read, and the rest as usual', async () => {
    const { deps } = setup()
    const app = createApp({
      ...deps,
      health: { check: async (g) => (g.id === 'echo' ? Promise.reject(new Error('rpc down')) : deps.health.check(g)) },
    })
    const token = await rotateSnapToken(deps.stores.snapTokens, owner, deps.clock.now())
    const body = (await (await get(app, { authorization: `Bearer ${token}`, origin: portal })).json()) as {
      golems: { id: string; permission: unknown }[]
    }
    expect(body.golems.find((g) => g.id === 'echo')?.permission).toBeNull()
    expect(body.golems.find((g) => g.id === 'atlas')?.permission).not.toBeNull()
  })
})
