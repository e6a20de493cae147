import { describe, expect, it } from 'vitest'
import type { z } from 'zod/v4'
import { Councils } from '../../app/council/councils.ts'
import { createApp } from './app.ts'
import { apiErrorStatus } from './errors.ts'
import { paymentsResponse, permissionHealthResponse, phasesResponse, redemptionsResponse, spendResponse } from './schemas.ts'
import { sampleGolem, testApiDeps } from './testing.ts'

const golem = sampleGolem()
const app = createApp(testApiDeps({ golems: [golem], config: { rateLimits: { public: 1000 } } }))

type Doc = {
  openapi: string
  paths: Record<
    string,
    Record<
      string,
      { operationId: string; responses: Record<string, unknown>; parameters: { name: string; in: string }[]; requestBody?: unknown }
    >
  >
}

describe('/openapi.json', () => {
  it('lists every route the app serves, and nothing else', async () => {
    const doc = (await (await app.request('/openapi.json')).json()) as Doc
    expect(doc.openapi).toBe('3.1.0')
    const served = [
      ...new Set(app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`)),
    ]
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`))
    expect(new Set(documented)).toEqual(new Set(served))
    expect(served).toHaveLength(52) // 48 API routes, the device confirmation page, /openapi.json, and /docs with its assets
    for (const path of [
      '/api/v1/golems/{id}/permission-health',
      '/api/v1/golems/{id}/phases',
      '/api/v1/golems/{id}/redemptions',
      '/api/v1/golems/{id}/spend',
      '/api/v1/golems/{id}/renewal',
      '/api/v1/golems/{id}/adjustment',
      '/api/v1/golems/{id}/renewal-draft',
      '/api/v1/golems/{id}/adjustment-draft',
      '/api/v1/golems/{id}/rotation-grant-draft',
      '/api/v1/golems/{id}/rotation-grant',
      '/api/v1/revocation-draft',
      '/api/v1/golems/{id}/observer-draft',
      '/api/v1/golems/{id}/observers',
      '/api/v1/golems/{id}/observers/revocation-draft',
      '/api/v1/dashboard/config',
      '/api/v1/fleet',
      '/api/v1/golems/{id}/events',
      '/api/v1/golems/{id}/events/stream',
      '/api/v1/golems/{id}/payments',
      '/api/v1/golems/{id}/metabolism',
      '/api/v1/extend',
      '/api/v1/feed',
      '/api/snap/status',
      '/api/snap/pairing/challenge',
      '/api/snap/pairing',
      '/api/v1/auth/device',
      '/api/v1/auth/device/confirm',
      '/api/v1/auth/device/message',
      '/device',
      '/api/v1/auth/token',
      '/api/v1/auth/session',
      '/clade/v1/challenge',
      '/clade/v1/ingest',
      '/clade/v1/entries',
      '/clade/v1/status',
      '/clade/v1/sync',
      '/clade/v1/alert',
      '/api/v1/webhooks/alchemy',
      '/api/v1/onboarding',
      '/api/v1/onboarding/{id}',
      '/api/v1/councils/draft',
      '/api/v1/councils',
      '/api/v1/councils/{council}',
      '/api/v1/onboarding/{id}/grant',
      '/docs',
      '/docs/swagger-ui-dist/{file}',
    ]) {
      expect(doc.paths[path], path).toBeDefined()
    }
  })

  it('documents the council routes exactly when a council is served here', async () => {
    const served = (a: ReturnType<typeof createApp>) =>
      new Set(a.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`))
    // The routes never call the service at registration, so an unwired one is enough to count them.
    const withCouncil = createApp(testApiDeps({ golems: [golem], overrides: { councils: Object.create(Councils.prototype) as Councils } }))
    const doc = (await (await withCouncil.request('/openapi.json')).json()) as Doc
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`))
    expect(new Set(documented)).toEqual(served(withCouncil))
    expect(served(withCouncil).size).toBe(56) // the 52 above and the council's four member routes
    for (const route of [
      'post /council/v1/proposals',
      'get /council/v1/proposals',
      'post /council/v1/proposals/{id}/signatures',
      'get /council/v1/proposals/{id}',
    ]) {
      expect(served(withCouncil).has(route), route).toBe(true)
      expect(served(app).has(route), route).toBe(false)
    }
  })

  it('describes parameters, bodies and the common errors from the zod schemas', async () => {
    const doc = (await (await app.request('/openapi.json')).json()) as Doc
    const phases = doc.paths['/api/v1/golems/{id}/phases']!.get!
    expect(phases.parameters.map((p) => `${p.in}:${p.name}`)).toEqual(
      expect.arrayContaining(['path:id', 'query:limit', 'query:cursor', 'header:x-api-key', 'header:authorization']),
    )
    expect(Object.keys(phases.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '429']))
    expect(doc.paths['/api/v1/extend']!.post!.requestBody).toMatchObject({
      content: { 'application/json': { schema: { required: ['golemId', 'hours'] } } },
    })
    expect(doc.paths['/clade/v1/challenge']!.get!.parameters.map((p) => p.name)).toEqual(['caller', 'target'])
  })

  it('has responses that match their documented schemas', async () => {
    const cases: [string, z.ZodType][] = [
      ['permission-health', permissionHealthResponse],
      ['phases', phasesResponse],
      ['redemptions', redemptionsResponse],
      ['spend', spendResponse],
      ['payments', paymentsResponse],
    ]
    for (const [route, schema] of cases) {
      const res = await app.request(`/api/v1/golems/atlas/${route}`)
      expect(res.status, route).toBe(200)
      const body = await res.json()
      expect(schema.safeParse(body).error, route).toBeUndefined()
    }
    const health = await (await app.request('/api/v1/golems/atlas/permission-health')).json()
    expect(health).toMatchObject({
      golemId: 'atlas',
      health: 'low',
      remaining_today: '8200000',
      days_remaining: 4,
      revocation: { kind: 'Active' },
    })
  })

  it('has one status per error code', () => {
    expect(apiErrorStatus.GOLEM_DYING).toBe(503)
    expect(apiErrorStatus.RATE_LIMITED).toBe(429)
    expect(Object.keys(apiErrorStatus).every((k) => /^[A-Z_]+$/.test(k))).toBe(true)
  })
})
