// Clade auth over HTTP: real viem EIP-712 signatures, injected clock.
import { privateKeyToAccount } from 'viem/accounts'
import { beforeEach, describe, expect, it } from 'vitest'
import { cladeChallengeTypedData, cladeDomain, type CladeChallenge } from '../../core/clade/challenge.ts'
import { createApp, type ApiApp } from './app.ts'
import { sampleGolem, testApiDeps } from './testing.ts'

const alice = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d') // caller
const bob = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a') // target, served here
const mallory = privateKeyToAccount('0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6') // other operator
const operatorA = '0x00000000000000000000000000000000000000A1'
const chainId = 31337

let deps: ReturnType<typeof testApiDeps>
let app: ApiApp
beforeEach(() => {
  deps = testApiDeps({
    golems: [sampleGolem({ id: 'bob', name: 'Bob', address: bob.address })],
    operators: { [alice.address]: operatorA, [bob.address]: operatorA, [mallory.address]: '0x00000000000000000000000000000000000000B2' },
    config: { clade: { hmacSecret: new Uint8Array(32).fill(0x42), self: bob.address } },
  })
  app = createApp(deps)
})

const ip = (n = 1) => ({ 'x-forwarded-for': `192.0.2.${n}` })

async function getChallenge(caller = alice.address, n = 1) {
  const res = await app.request(`/clade/v1/challenge?caller=${caller}`, { headers: ip(n) })
  expect(res.status).toBe(200)
  return (await res.json()) as { challenge: CladeChallenge; domain: ReturnType<typeof cladeDomain>; primaryType: string; types: unknown }
}

function challengeHeaders(challenge: CladeChallenge, signature: string) {
  return { ...ip(), authorization: `CladeChallenge ${signature}`, 'x-clade-challenge': JSON.stringify(challenge) }
}

const ingestBody = JSON.stringify({
  entries: [{ kind: 'insight', topic: 'eth-usdc', content: 'Spreads widen after 22:00 UTC.', confidence: 0.7 }],
})

async function ingest(headers: Record<string, string>) {
  return app.request('/clade/v1/ingest', { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: ingestBody })
}

async function errorCode(res: Response) {
  return ((await res.json()) as { code: string }).code
}

describe('Clade challenge-response', () => {
  it('issues a challenge with the typed data to sign, then trades a signature for a session token', async () => {
    const issued = await getChallenge()
    expect(issued.domain).toEqual({ name: 'Bardo Clade', version: '1', chainId })
    expect(issued.challenge).toMatchObject({ caller: alice.address, target: bob.address })
    expect(issued.challenge.expiresAt - issued.challenge.issuedAt).toBe(60)

    const signature = await alice.signTypedData(cladeChallengeTypedData(issued.challenge, chainId))
    const res = await ingest(challengeHeaders(issued.challenge, signature))
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ accepted: 1, lastSeq: 1 })
    const token = res.headers.get('x-clade-token')
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/)
    expect(res.headers.get('x-ratelimit-limit')).toBe('1000')

    const auth = { authorization: `CladeToken ${token}` }
    const entries = await app.request('/clade/v1/entries?kind=insight', { headers: auth })
    expect(entries.status).toBe(200)
    expect(await entries.json()).toMatchObject({ entries: [{ seq: 1, from: alice.address, topic: 'eth-usdc' }], nextCursor: null })
    expect(entries.headers.get('x-clade-token')).toBeNull()
    expect(await (await app.request('/clade/v1/status', { headers: auth })).json()).toMatchObject({
      golem: bob.address,
      name: 'Bob',
      phase: 'Stable',
      entryCount: 1,
    })
    expect(await (await app.request('/clade/v1/sync?since=0', { headers: auth })).json()).toMatchObject({ lastSeq: 1, hasMore: false })
    const alert = await app.request('/clade/v1/alert', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ severity: 'critical', kind: 'oracle_stale', message: 'feed stale' }),
    })
    expect(alert.status).toBe(202)
  })

  it('refuses a replayed challenge (nonce reused) with 401', async () => {
    const { challenge } = await getChallenge()
    const headers = challengeHeaders(challenge, await alice.signTypedData(cladeChallengeTypedData(challenge, chainId)))
    expect((await ingest(headers)).status).toBe(200)
    const replay = await ingest(headers)
    expect(replay.status).toBe(401)
    expect(await errorCode(replay)).toBe('CLADE_NONCE_REUSED')
  })

  it('refuses an expired challenge with 401', async () => {
    const { challenge } = await getChallenge()
    const signature = await alice.signTypedData(cladeChallengeTypedData(challenge, chainId))
    deps.clock.advance(60_000)
    const res = await ingest(challengeHeaders(challenge, signature))
    expect(res.status).toBe(401)
    expect(await errorCode(res)).toBe('CLADE_CHALLENGE_EXPIRED')
  })

  it('refuses a caller run by another operator with 401', async () => {
    const { challenge } = await getChallenge(mallory.address)
    const res = await ingest(challengeHeaders(challenge, await mallory.signTypedData(cladeChallengeTypedData(challenge, chainId))))
    expect(res.status).toBe(401)
    expect(await errorCode(res)).toBe('CLADE_OPERATOR_MISMATCH')
  })

  it('refuses a signature over the wrong domain (chainId, name) with 401', async () => {
    const { challenge } = await getChallenge()
    const typed = cladeChallengeTypedData(challenge, chainId)
    for (const domain of [cladeDomain(8453), { ...cladeDomain(chainId), name: 'Bardo' }]) {
      const res = await ingest(challengeHeaders(challenge, await alice.signTypedData({ ...typed, domain })))
      expect(res.status).toBe(401)
      expect(await errorCode(res)).toBe('CLADE_BAD_SIGNATURE')
    }
  })

  it('refuses a forged signature and an altered challenge with 401', async () => {
    const { challenge } = await getChallenge()
    const forged = await ingest(challengeHeaders(challenge, await mallory.signTypedData(cladeChallengeTypedData(challenge, chainId))))
    expect(forged.status).toBe(401)
    expect(await errorCode(forged)).toBe('CLADE_BAD_SIGNATURE')
    const altered = { ...challenge, expiresAt: challenge.expiresAt + 3600 }
    const res = await ingest(challengeHeaders(altered, await alice.signTypedData(cladeChallengeTypedData(altered, chainId))))
    expect(await errorCode(res)).toBe('CLADE_CHALLENGE_NOT_ISSUED')
  })

  it('expires session tokens after five minutes', async () => {
    const { challenge } = await getChallenge()
    const res = await ingest(challengeHeaders(challenge, await alice.signTypedData(cladeChallengeTypedData(challenge, chainId))))
    const auth = { authorization: `CladeToken ${res.headers.get('x-clade-token')}` }
    expect(Number(res.headers.get('x-clade-token-expires')) - Math.floor(deps.clock.now() / 1000)).toBe(300)
    deps.clock.advance(299_000)
    expect((await app.request('/clade/v1/status', { headers: auth })).status).toBe(200)
    deps.clock.advance(1_000)
    const expired = await app.request('/clade/v1/status', { headers: auth })
    expect(expired.status).toBe(401)
    expect(await errorCode(expired)).toBe('CLADE_TOKEN_EXPIRED')
  })

  it('refuses a missing credential and a token from another secret with 401, with rate-limit headers', async () => {
    const none = await app.request('/clade/v1/entries', { headers: ip(7) })
    expect(none.status).toBe(401)
    expect(await errorCode(none)).toBe('CLADE_AUTH_REQUIRED')
    expect(none.headers.get('x-ratelimit-limit')).toBe('30')
    const other = createApp(
      testApiDeps({
        operators: { [alice.address]: operatorA, [bob.address]: operatorA },
        config: { clade: { hmacSecret: new Uint8Array(32).fill(1), self: bob.address } },
      }),
    )
    const { challenge } = (await (await other.request(`/clade/v1/challenge?caller=${alice.address}`)).json()) as {
      challenge: CladeChallenge
    }
    const res = await other.request('/clade/v1/status', {
      headers: challengeHeaders(challenge, await alice.signTypedData(cladeChallengeTypedData(challenge, chainId))),
    })
    const foreign = await app.request('/clade/v1/status', { headers: { authorization: `CladeToken ${res.headers.get('x-clade-token')}` } })
    expect(await errorCode(foreign)).toBe('CLADE_TOKEN_INVALID')
  })

  it('limits GET /clade/v1/challenge to 30 per minute per IP (31st -> 429)', async () => {
    for (let i = 0; i < 30; i++)
      expect((await app.request(`/clade/v1/challenge?caller=${alice.address}`, { headers: ip(9) })).status).toBe(200)
    const refused = await app.request(`/clade/v1/challenge?caller=${alice.address}`, { headers: ip(9) })
    expect(refused.status).toBe(429)
    expect(await errorCode(refused)).toBe('RATE_LIMITED')
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0')
    expect((await app.request(`/clade/v1/challenge?caller=${alice.address}`, { headers: ip(10) })).status).toBe(200)
  })

  it('charges a CladeChallenge to the IP before checking it: a flood reaches the registry no more often than the budget allows', async () => {
    let lookups = 0
    const registry = deps.operators
    const counted = createApp({
      ...deps,
      config: { ...deps.config, rateLimits: { cladeChallenge: 5 } },
      operators: { operatorOf: (a) => (lookups++, registry.operatorOf(a)) },
    })
    const issued = await counted.request(`/clade/v1/challenge?caller=${mallory.address}`, { headers: ip(30) })
    const { challenge } = (await issued.json()) as { challenge: CladeChallenge }
    lookups = 0
    // Validly signed by a Golem of another operator: each check reads the registry twice, then refuses.
    const signed = { ...challengeHeaders(challenge, await mallory.signTypedData(cladeChallengeTypedData(challenge, chainId))), ...ip(31) }
    const statuses: number[] = []
    for (let i = 0; i < 12; i++) statuses.push((await counted.request('/clade/v1/status', { headers: signed })).status)
    expect(statuses.slice(0, 5).every((s) => s === 401 || s === 403)).toBe(true)
    expect(statuses.slice(5)).toEqual(Array(7).fill(429))
    expect(lookups).toBe(5 * 2)
    // Forged signatures from another IP: refused, then 429 after the same budget.
    const forged = { ...challengeHeaders(challenge, await alice.signTypedData(cladeChallengeTypedData(challenge, chainId))), ...ip(32) }
    const forgedStatuses: number[] = []
    for (let i = 0; i < 8; i++) forgedStatuses.push((await counted.request('/clade/v1/status', { headers: forged })).status)
    expect(forgedStatuses).toEqual([...Array(5).fill(401), ...Array(3).fill(429)])
    expect(lookups).toBe(5 * 2)
  })

  it('validates Clade bodies and queries after authentication, naming field and rule', async () => {
    const { challenge } = await getChallenge()
    const first = await app.request('/clade/v1/status', {
      headers: challengeHeaders(challenge, await alice.signTypedData(cladeChallengeTypedData(challenge, chainId))),
    })
    const auth = { authorization: `CladeToken ${first.headers.get('x-clade-token')}` }
    const json = { ...auth, 'content-type': 'application/json' }
    const cases: [string, RequestInit, string][] = [
      ['/clade/v1/entries?cursor=abc', { headers: auth }, 'cursor: must be a cursor from a previous page'],
      ['/clade/v1/entries?limit=101', { headers: auth }, 'limit: must be at most 100'],
      ['/clade/v1/sync?since=-1', { headers: auth }, 'since: must not be negative'],
      [
        '/clade/v1/alert',
        { method: 'POST', headers: json, body: JSON.stringify({ severity: 'info', kind: 'Bad Kind', message: 'm' }) },
        'kind: must be snake_case, at most 64 characters',
      ],
      [
        '/clade/v1/ingest',
        {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ entries: [{ kind: 'insight', topic: 't', content: 'c', confidence: 2 }] }),
        },
        'entries.0.confidence: must be in [0, 1]',
      ],
    ]
    for (const [path, init, message] of cases) {
      const res = await app.request(path, init)
      expect(res.status, path).toBe(400)
      expect(await res.json()).toMatchObject({ code: 'VALIDATION_FAILED', message })
    }
  })

  it('refuses a challenge for a target that is no Clade member here', async () => {
    const res = await app.request(`/clade/v1/challenge?caller=${alice.address}&target=${'0x'.padEnd(42, '9')}`, { headers: ip() })
    expect(res.status).toBe(404)
    expect(await errorCode(res)).toBe('GOLEM_NOT_FOUND')
  })

  it('keeps working for a dying target (siblings receive the death testament) and hands out the token on a bad body', async () => {
    deps.golems.put(sampleGolem({ id: 'bob', name: 'Bob', address: bob.address, lifecycle: 'dying', phase: 'Terminal' }))
    const { challenge } = await getChallenge()
    const headers = challengeHeaders(challenge, await alice.signTypedData(cladeChallengeTypedData(challenge, chainId)))
    const bad = await app.request('/clade/v1/ingest', {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: '{"entries":[]}',
    })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ code: 'VALIDATION_FAILED', message: 'entries: must hold at least one entry' })
    const token = bad.headers.get('x-clade-token')
    const testament = JSON.stringify({ entries: [{ kind: 'death_testament', topic: 'testament', content: 'What I learned.' }] })
    const res = await app.request('/clade/v1/ingest', {
      method: 'POST',
      headers: { authorization: `CladeToken ${token}`, 'content-type': 'application/json' },
      body: testament,
    })
    expect(res.status).toBe(200)
  })
})
