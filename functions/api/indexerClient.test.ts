// IndexerClient against a stub of the indexer's /v1 routes (node:http on 127.0.0.1), answering in the
// shapes indexer/src/api/routes.ts produces (bigints as decimal strings, lower-case hex).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createApp } from './app.ts'
import { IndexerClient } from './indexerClient.ts'
import { IndexerParameterError, IndexerUnavailableError } from './errors.ts'
import { indexerHistory } from './services/indexerHistory.ts'
import { phasesResponse, redemptionsResponse, spendResponse } from './schemas.ts'
import { sampleGolem, testApiDeps } from './testing.ts'

const golem = sampleGolem()
const key = golem.address.toLowerCase()
const usdc = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
const tx = (b: string) => `0x${b.repeat(32)}`

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void
let server: Server
let base: string
let handler: Handler
const seen: string[] = []

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

/** The indexer's answers for the stub's happy path. */
const routes: Record<string, (url: URL) => unknown> = {
  [`/v1/golems/${key}/phases`]: (url) => ({
    golem: key,
    keys: [key],
    items: [
      {
        id: 'a',
        golem: key,
        kind: 'transition',
        fromPhase: 0,
        toPhase: 1,
        survivalScore: 6900,
        by: key,
        reason: null,
        blockNumber: '12',
        timestamp: '1750000100',
        txHash: tx('aa'),
        logIndex: 0,
      },
      {
        id: 'b',
        golem: key,
        kind: 'reset',
        fromPhase: 3,
        toPhase: 1,
        survivalScore: null,
        by: key,
        reason: 'fed',
        blockNumber: '20',
        timestamp: '1750000200',
        txHash: tx('bb'),
        logIndex: 2,
      },
    ].slice(0, Number(url.searchParams.get('limit'))),
    nextCursor: url.searchParams.get('cursor') === null ? 'MjAuMg' : null,
  }),
  [`/v1/golems/${key}/redemptions`]: (url) => ({
    golem: key,
    items: [
      {
        txHash: tx('cc'),
        blockNumber: '30',
        timestamp: '1750000300',
        redeemer: key,
        rootDelegator: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
        delegationHash: tx('dd'),
        delegations: [],
        usd6: '2500000',
        transfers: [
          { asset: usdc, amount: '2500000' },
          { asset: '0x0000000000000000000000000000000000000000', amount: '7' },
        ],
      },
    ].slice(0, Number(url.searchParams.get('limit'))),
    nextCursor: null,
  }),
  [`/v1/golems/${key}/spend/periods`]: () => ({
    golem: key,
    items: [
      {
        golem: key,
        source: 'erc20-period',
        asset: usdc,
        periodStart: '1749945600',
        periodEnd: '1750032000',
        amount: '2500000',
        eventCount: 1,
        lastBlock: '30',
      },
    ],
  }),
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    seen.push(`${url.pathname}${url.search}`)
    handler(req, res, url)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((r) => server.close(() => r()))
})
beforeEach(() => {
  seen.length = 0
  handler = (_req, res, url) => {
    const route = routes[url.pathname]
    if (route) json(res, 200, route(url))
    else json(res, 404, { code: 'NOT_FOUND' })
  }
})

describe('IndexerClient', () => {
  it('reads phase history newest first: phase names, reset rows with a null score, the cursor passed through', async () => {
    const client = new IndexerClient({ baseUrl: base })
    const page = await client.phaseTransitions(golem.address, { limit: 2 })
    expect(page.items).toEqual([
      {
        from: 'Thriving',
        to: 'Stable',
        survivalScore: 6900,
        kind: 'transition',
        reason: null,
        blockNumber: 12n,
        txHash: tx('aa'),
        timestamp: 1_750_000_100,
      },
      {
        from: 'Declining',
        to: 'Stable',
        survivalScore: null,
        kind: 'reset',
        reason: 'fed',
        blockNumber: 20n,
        txHash: tx('bb'),
        timestamp: 1_750_000_200,
      },
    ])
    expect(page.nextCursor).toBe('MjAuMg')
    await client.phaseTransitions(golem.address, { limit: 5, cursor: 'MjAuMg' })
    // Lower-case key in the path (the indexer's keys), one slash after the base URL's trailing one.
    expect(seen).toEqual([`/v1/golems/${key}/phases?limit=2&order=desc`, `/v1/golems/${key}/phases?limit=5&cursor=MjAuMg&order=desc`])
  })

  it('reads redemptions (native value as token null, the root delegator as delegator) and the latest one', async () => {
    const client = new IndexerClient({ baseUrl: base })
    const page = await client.redemptions(golem.address, { limit: 10 })
    expect(page).toEqual({
      items: [
        {
          delegationHash: tx('dd'),
          delegator: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
          redeemer: golem.address,
          transfers: [
            { token: '0x5FbDB2315678afecb367f032d93F642f64180aa3', amount: 2_500_000n },
            { token: null, amount: 7n },
          ],
          usd6: 2_500_000n,
          blockNumber: 30n,
          txHash: tx('cc'),
          timestamp: 1_750_000_300,
        },
      ],
      nextCursor: null,
    })
    expect(await client.latestRedemptionAt(golem.address)).toBe(1_750_000_300n)
    expect(seen.at(-1)).toBe(`/v1/golems/${key}/redemptions?limit=1`)
  })

  it('reads spend per period', async () => {
    const page = await new IndexerClient({ baseUrl: base }).spendPeriods(golem.address, { limit: 3 })
    expect(page.items).toEqual([
      {
        source: 'erc20-period',
        asset: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
        periodStart: 1_749_945_600,
        periodEnd: 1_750_032_000,
        amount: 2_500_000n,
        eventCount: 1,
      },
    ])
  })

  it('says undefined for a Golem with no redemption indexed', async () => {
    handler = (_q, res) => json(res, 200, { golem: key, items: [], nextCursor: null })
    expect(await new IndexerClient({ baseUrl: base }).latestRedemptionAt(golem.address)).toBeUndefined()
  })

  it('turns a refused parameter into IndexerParameterError naming it', async () => {
    handler = (_q, res) =>
      json(res, 400, { code: 'INVALID_PARAMETER', message: 'cursor: must be a nextCursor value returned by this API', param: 'cursor' })
    const error = await new IndexerClient({ baseUrl: base })
      .phaseTransitions(golem.address, { limit: 1, cursor: 'zzz' })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(IndexerParameterError)
    expect(error).toMatchObject({ param: 'cursor', message: 'cursor: must be a nextCursor value returned by this API' })
  })

  it('turns 5xx, non-JSON, a wrong shape, a refused connection and a timeout into IndexerUnavailableError', async () => {
    const client = new IndexerClient({ baseUrl: base, timeoutMs: 200 })
    const cases: Handler[] = [
      (_q, res) => json(res, 500, { error: 'boom' }),
      (_q, res) => {
        res.writeHead(200, { 'content-type': 'text/html' })
        res.end('<html>')
      },
      (_q, res) => json(res, 200, { items: [{ kind: 'transition', fromPhase: 9 }] }),
      () => undefined, // never answers: the timeout
    ]
    for (const h of cases) {
      handler = h
      await expect(client.phaseTransitions(golem.address, { limit: 1 })).rejects.toBeInstanceOf(IndexerUnavailableError)
    }
    const gone = new IndexerClient({ baseUrl: 'http://user:secret@127.0.0.1:1/' })
    const error = await gone.redemptions(golem.address, { limit: 1 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(IndexerUnavailableError)
    expect(String((error as Error).message)).not.toContain('secret')
  })

  it('refuses a base URL that is not http(s)', () => {
    expect(() => new IndexerClient({ baseUrl: 'ftp://x' })).toThrow('indexerUrl: must be http or https')
    expect(() => new IndexerClient({ baseUrl: 'nope' })).toThrow('indexerUrl: must be an absolute http(s) URL')
  })
})

describe('history routes on the indexer', () => {
  const appWith = () =>
    createApp(
      testApiDeps({
        golems: [golem],
        config: { rateLimits: { public: 1000 } },
        overrides: { history: indexerHistory(new IndexerClient({ baseUrl: base, timeoutMs: 500 })) },
      }),
    )

  it('serves phases, redemptions and spend in their documented shapes', async () => {
    const app = appWith()
    for (const [route, schema] of [
      ['phases', phasesResponse],
      ['redemptions', redemptionsResponse],
      ['spend', spendResponse],
    ] as const) {
      const res = await app.request(`/api/v1/golems/atlas/${route}?limit=2`)
      expect(res.status, route).toBe(200)
      expect(schema.safeParse(await res.json()).error, route).toBeUndefined()
    }
    const phases = (await (await app.request('/api/v1/golems/atlas/phases')).json()) as { transitions: unknown[]; nextCursor: string }
    expect(phases.transitions).toHaveLength(2)
    expect(phases.nextCursor).toBe('MjAuMg')
  })

  it('answers a cursor the indexer refuses with 400 VALIDATION_FAILED naming it, and an outage with 503 INDEXER_UNAVAILABLE', async () => {
    const app = appWith()
    handler = (_q, res) =>
      json(res, 400, { code: 'INVALID_PARAMETER', message: 'cursor: must be a nextCursor value returned by this API', param: 'cursor' })
    const bad = await app.request('/api/v1/golems/atlas/phases?cursor=zzz')
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'cursor: must be a nextCursor value returned by this API',
      details: { issues: [{ location: 'query', path: 'cursor' }] },
    })
    handler = (_q, res) => json(res, 502, {})
    const down = await app.request('/api/v1/golems/atlas/redemptions')
    expect(down.status).toBe(503)
    expect(down.headers.get('retry-after')).toBe('5')
    expect(await down.json()).toMatchObject({ code: 'INDEXER_UNAVAILABLE' })
    // Current state does not depend on the indexer.
    expect((await app.request('/api/v1/golems/atlas/permission-health')).status).toBe(200)
  })
})
