// The API on core/store's real Store (in-memory implementation; DynamoStore passes the same conformance
// suite): rate limits across two apps, Clade replay and shared Clade entries, Snap rotation. The Clade
// log is also run on DynamoStore over dynalite, as two Lambda instances would share it.
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cladeChallengeTypedData, type CladeChallenge } from '../../core/clade/challenge.ts'
import { DynamoStore } from '../../adapters/store/dynamoStore.ts'
import { InMemoryStore } from '../../adapters/store/memoryStore.ts'
import type { Store } from '../../core/store/store.ts'
import { createTable, documentClient, localDynamoClient, startDynalite, type Dynalite } from '../../local/dynalite.ts'
import { createApp } from './app.ts'
import { StoreCladeService } from './cladeService.ts'
import type { ApiDeps } from './deps.ts'
import { rotateSnapToken } from '../../core/snap/snapToken.ts'
import { cladeNoncesFromStore, rateLimitCountersFromStore, snapTokensFromStore } from './storeAdapters.ts'
import { ManualClock, sampleGolem, testApiDeps } from './testing.ts'

const alice = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d')
const bob = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a')
const op = '0x00000000000000000000000000000000000000A1'

function appsOnOneStore(store: Store = new InMemoryStore()) {
  const clock = new ManualClock(1_750_000_000_000)
  const stores: ApiDeps['stores'] = {
    rateLimits: rateLimitCountersFromStore(store),
    nonces: cladeNoncesFromStore(store),
    snapTokens: snapTokensFromStore(store, clock),
  }
  // Each app gets its own service object over the shared store, as each Lambda instance would.
  const make = () =>
    createApp({
      ...testApiDeps({
        clock,
        golems: [sampleGolem({ address: bob.address })],
        operators: { [alice.address]: op, [bob.address]: op },
        config: { clade: { hmacSecret: new Uint8Array(32).fill(3), self: bob.address } },
      }),
      stores,
      clade: new StoreCladeService(store),
    })
  return { a: make(), b: make(), stores, clock }
}

/** Signs a fresh challenge from `app` and sends `body` to `path` with it; returns the response. */
async function cladeCall(app: ReturnType<typeof createApp>, path: string, body?: unknown) {
  const { challenge } = (await (await app.request(`/clade/v1/challenge?caller=${alice.address}`)).json()) as { challenge: CladeChallenge }
  const headers = {
    authorization: `CladeChallenge ${await alice.signTypedData(cladeChallengeTypedData(challenge, 31337))}`,
    'x-clade-challenge': JSON.stringify(challenge),
  }
  return body === undefined
    ? app.request(path, { headers })
    : app.request(path, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) })
}

function sharesCladeEntries(newStore: () => Promise<Store>) {
  return async () => {
    const { a, b } = appsOnOneStore(await newStore())
    const entry = (n: number) => ({ kind: 'insight', topic: `t${n % 2}`, content: `observation ${n}` })
    const [r1, r2] = await Promise.all([
      cladeCall(a, '/clade/v1/ingest', { entries: [1, 2, 3].map(entry) }),
      cladeCall(b, '/clade/v1/ingest', { entries: [4, 5].map(entry) }),
    ])
    expect([r1.status, r2.status]).toEqual([200, 200])
    const synced = (await (await cladeCall(b, '/clade/v1/sync?since=0')).json()) as {
      entries: { seq: number; content: string }[]
      lastSeq: number
      hasMore: boolean
    }
    expect(synced.entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5])
    expect(synced.entries.map((e) => e.content).sort()).toEqual([1, 2, 3, 4, 5].map((n) => `observation ${n}`))
    expect(synced).toMatchObject({ lastSeq: 5, hasMore: false })
    const page = (await (await cladeCall(a, '/clade/v1/entries?topic=t1&limit=2')).json()) as {
      entries: { topic: string }[]
      nextCursor: string | null
    }
    expect(page.entries).toHaveLength(2)
    expect(page.entries.every((e) => e.topic === 't1')).toBe(true)
    expect(page.nextCursor).not.toBeNull()
    const rest = (await (await cladeCall(b, `/clade/v1/entries?topic=t1&limit=2&cursor=${page.nextCursor}`)).json()) as {
      entries: unknown[]
      nextCursor: string | null
    }
    expect(rest).toMatchObject({ nextCursor: null })
    expect(rest.entries).toHaveLength(1)
    expect(await (await cladeCall(b, '/clade/v1/status')).json()).toMatchObject({ entryCount: 5 })
    const alert = await cladeCall(a, '/clade/v1/alert', { severity: 'warning', kind: 'liquidity_drop', message: 'Pool depth halved.' })
    expect(alert.status).toBe(202)
    expect(await alert.json()).toMatchObject({ id: 'alert-1' })
  }
}

describe('API on core/store', () => {
  it('shares rate-limit counters between two apps', async () => {
    const { a, b } = appsOnOneStore()
    const headers = { 'x-forwarded-for': '198.51.100.30' }
    for (let i = 0; i < 15; i++) {
      expect((await a.request('/api/v1/golems/atlas/spend', { headers })).status).toBe(200)
      expect((await b.request('/api/v1/golems/atlas/spend', { headers })).status).toBe(200)
    }
    const refused = await b.request('/api/v1/golems/atlas/spend', { headers })
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).not.toBeNull()
  })

  it('refuses a Clade challenge replayed against the other app', async () => {
    const { a, b } = appsOnOneStore()
    const { challenge } = (await (await a.request(`/clade/v1/challenge?caller=${alice.address}`)).json()) as { challenge: CladeChallenge }
    const headers = {
      authorization: `CladeChallenge ${await alice.signTypedData(cladeChallengeTypedData(challenge, 31337))}`,
      'x-clade-challenge': JSON.stringify(challenge),
    }
    expect((await a.request('/clade/v1/status', { headers })).status).toBe(200)
    const replay = await b.request('/clade/v1/status', { headers })
    expect(replay.status).toBe(401)
    expect(await replay.json()).toMatchObject({ code: 'CLADE_NONCE_REUSED' })
  })

  it('rotates the Snap token in the store: the old one is refused at once', async () => {
    const { a, stores, clock } = appsOnOneStore()
    const owner = sampleGolem().owner
    const get = (token: string) =>
      a.request('/api/snap/status', { headers: { authorization: `Bearer ${token}`, origin: 'https://bardo.ai' } })
    const first = await rotateSnapToken(stores.snapTokens, owner, clock.now())
    expect((await get(first)).status).toBe(200)
    clock.advance(60_000)
    const second = await rotateSnapToken(stores.snapTokens, owner, clock.now())
    expect((await get(first)).status).toBe(401)
    expect((await get(second)).status).toBe(200)
  })

  it('rotates on the status call through the store: one successor per token, even across two apps', async () => {
    const { a, b, stores, clock } = appsOnOneStore()
    const owner = sampleGolem().owner
    const get = (app: typeof a, token: string) =>
      app.request('/api/snap/status', { headers: { authorization: `Bearer ${token}`, origin: 'https://bardo.ai' } })
    const first = await rotateSnapToken(stores.snapTokens, owner, clock.now())
    const [ra, rb] = await Promise.all([get(a, first), get(b, first)])
    expect([ra.status, rb.status].sort()).toEqual([200, 401])
    const { nextToken } = (await (ra.status === 200 ? ra : rb).json()) as { nextToken: string }
    expect((await get(b, first)).status).toBe(401)
    const res = await get(a, nextToken)
    expect(res.status).toBe(200)
    expect((await get(b, nextToken)).status).toBe(401)
    expect((await get(b, ((await res.json()) as { nextToken: string }).nextToken)).status).toBe(200)
  })

  it(
    'shares Clade entries between two apps: ingested on one, synced and paged on the other',
    sharesCladeEntries(async () => new InMemoryStore()),
  )
})

describe('Clade entries on DynamoStore (dynalite)', () => {
  let dynalite: Dynalite
  let client: ReturnType<typeof localDynamoClient>
  beforeAll(async () => {
    dynalite = await startDynalite()
    client = localDynamoClient(dynalite.endpoint)
  })
  afterAll(async () => {
    client?.destroy()
    await dynalite?.stop()
  })

  it(
    'two apps over one table see the same gap-free log',
    sharesCladeEntries(async () => {
      await createTable(client, 'bardo-clade')
      return new DynamoStore({ client: documentClient(client), tableName: 'bardo-clade' })
    }),
  )
})
