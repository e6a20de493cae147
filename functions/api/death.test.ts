// Death-protocol rules: writes to a dying Golem get 503 GOLEM_DYING, reads keep working.
import { describe, expect, it, vi } from 'vitest'
import { createApp } from './app.ts'
import type { GolemLifecycle, PaymentRoutes } from './deps.ts'
import { sampleGolem, testApiDeps } from './testing.ts'

function setup(lifecycle: GolemLifecycle, payments?: PaymentRoutes) {
  const deps = testApiDeps({
    golems: [sampleGolem({ lifecycle, phase: lifecycle === 'alive' ? 'Stable' : 'Terminal' })],
    config: { rateLimits: { public: 10_000 } },
  })
  const app = createApp({ ...deps, ...(payments ? { payments } : {}) })
  // A write route under /api/v1/golems/:id/* (Steer lands here later): the middleware covers it already.
  app.post('/api/v1/golems/:id/steer', (c) => c.json({ steered: c.req.param('id') }))
  return app
}

function fakePayments() {
  const paid = vi.fn(async (_c: unknown, next: () => Promise<void>) => next())
  const payments: PaymentRoutes = {
    extend: { middleware: [paid], handle: async ({ body, golem, c }) => c.json({ golemId: golem.id, extendedHours: body.hours }) },
    // A raw Response (as x402 middleware builds them): the rate-limit headers must still be there.
    feed: { middleware: [paid], handle: async ({ golem }) => Response.json({ golemId: golem.id, fed: true }) },
  }
  return { payments, paid }
}

const post = (app: ReturnType<typeof setup>, path: string, body: unknown) =>
  app.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

const reads = ['permission-health', 'phases', 'redemptions', 'spend']

describe('death rules', () => {
  it('refuses writes to a dying Golem with 503 GOLEM_DYING before any payment is asked', async () => {
    const { payments, paid } = fakePayments()
    const app = setup('dying', payments)
    for (const [path, body] of [
      ['/api/v1/extend', { golemId: 'atlas', hours: 2 }],
      ['/api/v1/feed', { golemId: 'atlas' }],
      ['/api/v1/golems/atlas/steer', {}],
    ] as const) {
      const res = await post(app, path, body)
      expect(res.status, path).toBe(503)
      expect(await res.json()).toMatchObject({ code: 'GOLEM_DYING', details: { golemId: 'atlas', lifecycle: 'dying' } })
    }
    expect(paid).not.toHaveBeenCalled()
  })

  it('keeps reads of a dying Golem working (200)', async () => {
    const app = setup('dying')
    for (const r of reads) expect((await app.request(`/api/v1/golems/atlas/${r}`)).status, r).toBe(200)
  })

  it('refuses writes to a dead Golem with 410 GOLEM_DEAD and still serves reads', async () => {
    const app = setup('dead', fakePayments().payments)
    const res = await post(app, '/api/v1/feed', { golemId: 'atlas' })
    expect(res.status).toBe(410)
    expect(await res.json()).toMatchObject({ code: 'GOLEM_DEAD' })
    expect((await post(app, '/api/v1/golems/atlas/steer', {})).status).toBe(410)
    for (const r of reads) expect((await app.request(`/api/v1/golems/atlas/${r}`)).status, r).toBe(200)
  })

  it("lets the owner draft an observer's revocation for a dying or dead Golem, and refuses a new observer grant", async () => {
    for (const lifecycle of ['dying', 'dead'] as const) {
      const app = setup(lifecycle)
      const draft = await post(app, '/api/v1/golems/atlas/observer-draft', { observer: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' })
      expect(draft.status, lifecycle).toBe(lifecycle === 'dead' ? 410 : 503)
      // Past the death rules to the route: no observer service is wired in this app.
      const revocation = await post(app, '/api/v1/golems/atlas/observers/revocation-draft', {
        observer: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      })
      expect(revocation.status, lifecycle).toBe(501)
      expect(await revocation.json()).toMatchObject({ code: 'NOT_IMPLEMENTED' })
    }
  })

  it('lets writes through for a living Golem: payment middleware, then the handler', async () => {
    const { payments, paid } = fakePayments()
    const app = setup('alive', payments)
    const res = await post(app, '/api/v1/extend', { golemId: 'atlas', hours: 3 })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ golemId: 'atlas', extendedHours: 3 })
    expect(paid).toHaveBeenCalledTimes(1)
    expect(res.headers.get('x-ratelimit-limit')).toBe('10000')
    expect((await post(app, '/api/v1/golems/atlas/steer', {})).status).toBe(200)
    const fed = await post(app, '/api/v1/feed', { golemId: 'atlas' })
    expect(fed.status).toBe(200)
    expect(fed.headers.get('x-ratelimit-remaining')).toBe('9997')
  })

  it('answers 501 NOT_IMPLEMENTED while payments are not wired, 404 for an unknown Golem', async () => {
    const app = setup('alive')
    const res = await post(app, '/api/v1/feed', { golemId: 'atlas' })
    expect(res.status).toBe(501)
    expect(await res.json()).toMatchObject({
      code: 'NOT_IMPLEMENTED',
      message: 'feed: x402 payments are not configured on this deployment',
    })
    expect((await post(app, '/api/v1/extend', { golemId: 'nobody', hours: 1 })).status).toBe(404)
  })
})
