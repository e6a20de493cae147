// The same app behind @hono/node-server (local) and hono/aws-lambda (AWS), and its env config.
import { inspect } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { hashApiKey } from '../../core/ratelimit/tiers.ts'
import { createApp } from './app.ts'
import { loadApiConfig } from './config.ts'
import { createApiHandler } from './handler.ts'
import { serveApi, type RunningApi } from './server.ts'
import { sampleGolem, testApiDeps } from './testing.ts'

const secretHex = `0x${'5a'.repeat(32)}`
const env = {
  BARDO_CHAIN_ID: '31337',
  BARDO_CLADE_HMAC_SECRET: secretHex,
  BARDO_ALLOWED_ORIGINS: 'https://bardo.ai, http://localhost:3003',
  BARDO_READ_API_KEY_HASHES: hashApiKey(`bardo_read_${'k'.repeat(20)}`),
  BARDO_TRUSTED_PROXY_HOPS: '0',
}

let running: RunningApi | undefined
afterEach(async () => {
  await running?.close()
  running = undefined
})

describe('serveApi', () => {
  it('serves the app on 127.0.0.1 and keys the public tier on the socket address', async () => {
    const deps = testApiDeps({ golems: [sampleGolem()], config: { trustedProxyHops: 0 } })
    running = await serveApi(createApp(deps))
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const res = await fetch(`${running.url}/api/v1/golems/atlas/permission-health`, { headers: { 'x-forwarded-for': '10.0.0.1' } })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ golemId: 'atlas', health: 'low' })
    // The bucket is the socket's address, not the spoofable header.
    const again = await fetch(`${running.url}/openapi.json`, { headers: { 'x-forwarded-for': '10.0.0.2' } })
    expect(again.headers.get('x-ratelimit-remaining')).toBe('28')
  })
})

describe('Lambda handler', () => {
  it('answers an API Gateway v2 (function URL) event, keyed on the event source IP', async () => {
    const { config: _unused, ...services } = testApiDeps({ golems: [sampleGolem()] })
    const handler = createApiHandler(services, env)
    const event = {
      version: '2.0',
      routeKey: '$default',
      rawPath: '/api/v1/golems/atlas/phases',
      rawQueryString: 'limit=5',
      headers: { host: 'api.example', 'x-forwarded-for': '10.0.0.9' },
      requestContext: {
        http: { method: 'GET', path: '/api/v1/golems/atlas/phases', sourceIp: '203.0.113.50', protocol: 'HTTP/1.1', userAgent: 'test' },
        requestId: 'r1',
        stage: '$default',
        domainName: 'api.example',
        accountId: '1',
        apiId: 'a',
        time: '',
        timeEpoch: 0,
        routeKey: '$default',
      },
      body: null,
      isBase64Encoded: false,
    }
    const res = (await handler(event as never, {} as never)) as { statusCode: number; body: string; headers: Record<string, string> }
    expect(res.statusCode).toBe(200)
    expect(JSON.parse(res.body)).toMatchObject({ golemId: 'atlas', current: { phase: 'Stable' } })
    expect(res.headers['x-ratelimit-remaining']).toBe('29')
  })
})

describe('loadApiConfig', () => {
  it('reads the environment', () => {
    const config = loadApiConfig({ ...env, BARDO_CLADE_SELF: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8' })
    expect(config).toMatchObject({
      chainId: 31337,
      allowedOrigins: ['https://bardo.ai', 'http://localhost:3003'],
      trustedProxyHops: 0,
      clade: { self: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' },
    })
    expect(config.readApiKeyHashes).toHaveLength(1)
    expect(config.clade.hmacSecret.byteLength).toBe(32)
  })

  it('names the variable and the rule, and never the secret', () => {
    const short = `0x${'5a'.repeat(16)}`
    let error: unknown
    try {
      loadApiConfig({ ...env, BARDO_CLADE_HMAC_SECRET: short })
    } catch (err) {
      error = err
    }
    expect(error).toMatchObject({ code: 'INVALID_API_CONFIG', message: 'BARDO_CLADE_HMAC_SECRET: must be at least 32 bytes' })
    expect(JSON.stringify(error) + inspect(error)).not.toContain('5a5a')
    expect(() => loadApiConfig({ ...env, BARDO_CHAIN_ID: 'x' })).toThrow('BARDO_CHAIN_ID: must be a number')
    expect(() => loadApiConfig({ ...env, BARDO_ALLOWED_ORIGINS: 'not a url' })).toThrow(
      /BARDO_ALLOWED_ORIGINS.0: must be a comma-separated list of origins/,
    )
    expect(() => loadApiConfig({ ...env, BARDO_ALLOWED_ORIGINS: 'https://bardo.ai/' })).toThrow(/no path or trailing slash/)
    expect(() => loadApiConfig({ ...env, BARDO_CLADE_SELF: '0x12' })).toThrow('BARDO_CLADE_SELF: must be a 20-byte hex address')
  })
})
