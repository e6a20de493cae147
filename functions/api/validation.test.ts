// Every route answers bad input with 400 VALIDATION_FAILED naming the field and the rule.
import { describe, expect, it } from 'vitest'
import { createApp } from './app.ts'
import { sampleGolem, testApiDeps } from './testing.ts'

const golem = sampleGolem()
const app = createApp(testApiDeps({ golems: [golem], operators: { [golem.address]: '0x00000000000000000000000000000000000000a1' } }))

type Case = { name: string; method?: string; path: string; headers?: Record<string, string>; body?: string; field: string; rule: RegExp }

const json = { 'content-type': 'application/json' }
const cases: Case[] = [
  { name: 'permission-health id', path: '/api/v1/golems/bad%20id!/permission-health', field: 'id', rule: /1-64 letters/ },
  { name: 'phases id', path: '/api/v1/golems/-x/phases', field: 'id', rule: /1-64 letters/ },
  { name: 'phases limit too big', path: '/api/v1/golems/atlas/phases?limit=500', field: 'limit', rule: /at most 100/ },
  { name: 'phases limit not a number', path: '/api/v1/golems/atlas/phases?limit=abc', field: 'limit', rule: /must be a number/ },
  { name: 'phases unknown query', path: '/api/v1/golems/atlas/phases?sort=asc', field: 'body|query', rule: /Unrecognized key.*sort/ },
  { name: 'redemptions limit zero', path: '/api/v1/golems/atlas/redemptions?limit=0', field: 'limit', rule: /at least 1/ },
  { name: 'spend cursor too long', path: `/api/v1/golems/atlas/spend?cursor=${'x'.repeat(600)}`, field: 'cursor', rule: /at most 512/ },
  {
    name: 'x-api-key shape',
    path: '/api/v1/golems/atlas/permission-health',
    headers: { 'x-api-key': 'nope' },
    field: 'x-api-key',
    rule: /bardo_read_/,
  },
  {
    name: 'authorization scheme',
    path: '/openapi.json',
    headers: { authorization: 'Basic abc' },
    field: 'authorization',
    rule: /Bearer <token>/,
  },
  {
    name: 'extend without JSON',
    method: 'POST',
    path: '/api/v1/extend',
    body: 'golemId=atlas',
    field: 'body',
    rule: /Content-Type: application\/json/,
  },
  {
    name: 'extend malformed JSON',
    method: 'POST',
    path: '/api/v1/extend',
    headers: json,
    body: '{"golemId":',
    field: 'body',
    rule: /Malformed JSON/,
  },
  {
    name: 'extend hours',
    method: 'POST',
    path: '/api/v1/extend',
    headers: json,
    body: JSON.stringify({ golemId: 'atlas', hours: 0 }),
    field: 'hours',
    rule: /at least 1/,
  },
  {
    name: 'extend hours type',
    method: 'POST',
    path: '/api/v1/extend',
    headers: json,
    body: JSON.stringify({ golemId: 'atlas', hours: '2' }),
    field: 'hours',
    rule: /must be a number/,
  },
  {
    name: 'feed golemId',
    method: 'POST',
    path: '/api/v1/feed',
    headers: json,
    body: JSON.stringify({ golemId: '' }),
    field: 'golemId',
    rule: /1-64 letters/,
  },
  {
    name: 'feed extra field',
    method: 'POST',
    path: '/api/v1/feed',
    headers: json,
    body: JSON.stringify({ golemId: 'atlas', amount: 5 }),
    field: 'body',
    rule: /Unrecognized key.*amount/,
  },
  {
    name: 'snap origin',
    path: '/api/snap/status',
    headers: { origin: `https://${'x'.repeat(2100)}` },
    field: 'origin',
    rule: /at most 2048 characters/,
  },
  { name: 'challenge caller', path: '/clade/v1/challenge?caller=0x1234', field: 'caller', rule: /20-byte/ },
  { name: 'challenge caller missing', path: '/clade/v1/challenge', field: 'caller', rule: /expected string/ },
  {
    name: 'clade authorization',
    path: '/clade/v1/status',
    headers: { authorization: 'CladeChallenge 0x12' },
    field: 'authorization',
    rule: /CladeChallenge <65-byte/,
  },
  {
    name: 'clade challenge JSON',
    path: '/clade/v1/entries',
    headers: { authorization: `CladeChallenge 0x${'11'.repeat(65)}`, 'x-clade-challenge': '{nope' },
    field: 'x-clade-challenge',
    rule: /challenge JSON/,
  },
  {
    name: 'clade challenge field',
    method: 'POST',
    path: '/clade/v1/ingest',
    headers: {
      authorization: `CladeChallenge 0x${'11'.repeat(65)}`,
      'x-clade-challenge': JSON.stringify({ nonce: '0x12', issuedAt: 1, expiresAt: 2, target: golem.address, caller: golem.address }),
    },
    field: 'x-clade-challenge.nonce',
    rule: /32 bytes/,
  },
  {
    name: 'sync since',
    path: '/clade/v1/sync?since=-1',
    headers: { authorization: `CladeChallenge 0x${'11'.repeat(65)}`, 'x-clade-challenge': 'x'.repeat(2000) },
    field: 'x-clade-challenge',
    rule: /at most 1024/,
  },
  {
    name: 'alert header',
    method: 'POST',
    path: '/clade/v1/alert',
    headers: { authorization: 'CladeToken !!' },
    field: 'authorization',
    rule: /CladeToken <token>/,
  },
]

describe('validation errors', () => {
  it.each(cases)('$name -> 400 naming $field', async (t) => {
    const res = await app.request(t.path, {
      method: t.method ?? 'GET',
      headers: { 'x-forwarded-for': `10.1.0.${cases.indexOf(t)}`, ...t.headers },
      body: t.body,
    })
    const body = (await res.json()) as { code: string; message: string; details: { issues: { path: string; rule: string }[] } }
    expect(res.status).toBe(400)
    expect(body.code).toBe('VALIDATION_FAILED')
    expect(body.message).toMatch(new RegExp(`^(${t.field}): `))
    expect(body.message).toMatch(t.rule)
    expect(Array.isArray(body.details.issues)).toBe(true)
    expect(res.headers.get('x-ratelimit-limit')).not.toBeNull()
  })

  it('validates Clade bodies and queries after authentication (token on the response)', async () => {
    // Covered end to end in clade.test.ts with a real token; here: the schemas reject what they should.
    const { cladeIngestRequest, cladeSyncQuery, cladeAlertRequest, cladeEntriesQuery } = await import('./cladeService.ts')
    expect(cladeIngestRequest.safeParse({ entries: [] }).error?.issues[0]?.message).toMatch(/at least one entry/)
    expect(cladeSyncQuery.safeParse({ since: '-1' }).error?.issues[0]?.message).toMatch(/must not be negative/)
    expect(cladeAlertRequest.safeParse({ severity: 'loud', kind: 'x', message: 'm' }).error?.issues[0]?.path).toEqual(['severity'])
    expect(cladeEntriesQuery.safeParse({ cursor: 'abc' }).error?.issues[0]?.message).toMatch(/cursor from a previous page/)
  })

  it('answers unknown paths with NOT_FOUND and an unknown Golem with GOLEM_NOT_FOUND', async () => {
    const nf = await app.request('/api/v1/nothing', { headers: { 'x-forwarded-for': '10.2.0.1' } })
    expect(nf.status).toBe(404)
    expect(await nf.json()).toMatchObject({ code: 'NOT_FOUND' })
    expect(nf.headers.get('x-ratelimit-remaining')).toBe('29')
    const g = await app.request('/api/v1/golems/nobody/phases', { headers: { 'x-forwarded-for': '10.2.0.1' } })
    expect(g.status).toBe(404)
    expect(await g.json()).toEqual({ code: 'GOLEM_NOT_FOUND', message: 'id: no Golem nobody', details: { golemId: 'nobody' } })
  })
})
