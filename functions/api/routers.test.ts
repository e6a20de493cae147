// The app as routers of createRoute routes: the typed client (hono/client's hc over AppType) reads it
// as the dashboard does, a route a deployment does not serve is 404 however typed, a JSON body must say
// it is JSON, and the docs page and its assets come from the API itself.
import { hc } from 'hono/client'
import { describe, expect, it } from 'vitest'
import { type AppType, createApp } from './app.ts'
import { sampleGolem, testApiDeps } from './testing.ts'

const golem = sampleGolem()
const app = createApp(testApiDeps({ golems: [golem], config: { rateLimits: { public: 1000 } } }))
const client = hc<AppType>('http://api.test', {
  fetch: (input: Parameters<typeof app.request>[0], init?: RequestInit) => app.request(input, init),
})

describe('the typed client', () => {
  it('reads a Golem as the dashboard does, typed from the routes', async () => {
    const res = await client.api.v1.golems[':id']['permission-health'].$get({ param: { id: 'atlas' }, header: {} })
    expect(res.status).toBe(200)
    if (!res.ok) throw new Error(`permission-health: ${res.status}`)
    const health = await res.json()
    expect(health).toMatchObject({ golemId: 'atlas', health: 'low', days_remaining: 4 })
    const phases = await client.api.v1.golems[':id'].phases.$get({ param: { id: 'atlas' }, query: { limit: '2' }, header: {} })
    expect(phases.status).toBe(200)
  })

  it('gets the error body for a refusal, with its status', async () => {
    const res = await client.api.v1.golems[':id'].spend.$get({ param: { id: 'atlas' }, query: { limit: '500' }, header: {} })
    expect(res.status).toBe(400)
    if (res.status !== 400) throw new Error('unreachable')
    expect(await res.json()).toMatchObject({ code: 'VALIDATION_FAILED', message: 'limit: must be at most 100' })
  })

  it('types the council routes where none is served; the app answers them 404', async () => {
    const res = await client.council.v1.proposals.$get({ query: { council: '0x000000000000000000000000000000000000C0c1' }, header: {} })
    expect(res.status).toBe(404)
    expect(await res.json()).toMatchObject({ code: 'NOT_FOUND' })
  })
})

describe('a JSON body', () => {
  it('must say it is JSON, with a body or without one', async () => {
    const unlabelled = new TextEncoder().encode('{"golemId":"atlas","hours":1}') // bytes carry no Content-Type
    for (const init of [{}, { body: unlabelled }, { body: '{"golemId":"atlas","hours":1}', headers: { 'content-type': 'text/plain' } }]) {
      const res = await app.request('/api/v1/extend', { method: 'POST', ...init })
      expect(res.status).toBe(400)
      expect(await res.json()).toMatchObject({
        code: 'VALIDATION_FAILED',
        message: 'body: must be JSON with Content-Type: application/json',
      })
    }
  })
})

describe('the docs page', () => {
  it('is Swagger UI over /openapi.json, loading its script and stylesheet from this API only', async () => {
    const res = await app.request('/docs')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/html/)
    expect(res.headers.get('x-ratelimit-limit')).toBe('1000')
    const html = await res.text()
    expect(html).toContain("url: '/openapi.json'")
    expect(html).toContain('src="/docs/swagger-ui-dist/swagger-ui-bundle.js"')
    expect(html).toContain('href="/docs/swagger-ui-dist/swagger-ui.css"')
    // No other origin: every URL the page names is a path of this API.
    expect(html.match(/(?:src|href)="[^"]*"/g)?.filter((a) => !/="(\/|data:)/.test(a))).toEqual([])
    expect(html).toContain("validatorUrl: 'none'")
  })

  it('serves the assets from the installed swagger-ui-dist, and nothing else under its path', async () => {
    const js = await app.request('/docs/swagger-ui-dist/swagger-ui-bundle.js')
    expect(js.status).toBe(200)
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect((await js.text()).length).toBeGreaterThan(100_000)
    const css = await app.request('/docs/swagger-ui-dist/swagger-ui.css')
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8')
    const other = await app.request('/docs/swagger-ui-dist/package.json')
    expect(other.status).toBe(400)
    expect(await other.json()).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/^file: /) })
  })
})
