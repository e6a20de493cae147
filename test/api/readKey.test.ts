// The dashboards' read key as `npm start` sets it up: the local chain and store the runner opens, the
// key from local/readKey.ts, and the API from startLocalApi with only the key's hash. A dashboard that
// polls its panels with the key is not held to the public 30 requests a minute, is held to the local
// key's budget (LOCAL_READ_LIMIT: the dashboard's proxy reads for every tab with it), and a forged key is refused. The limiter's clock is pinned so no minute boundary can fall
// inside a burst.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hashApiKey, isReadKeyShaped, readKeyFromBytes } from '../../core/ratelimit/tiers.ts'
import { ManualClock } from '../../functions/api/testing.ts'
import { startLocalApi, type LocalApi } from '../../local/api.ts'
import { connectChain, type StackChain } from '../../local/chain.ts'
import { provisionGolem } from '../../local/provision.ts'
import { LOCAL_READ_LIMIT, localReadKey, ReadKeyConfigError } from '../../local/readKey.ts'
import { MemorySignerResolver } from '../../adapters/signers/memorySignerResolver.ts'
import { openStore } from '../../local/store.ts'
import { STRATEGY } from './harness.ts'

// 20 s into a minute window: a 301-request burst never reaches the next one.
const T0 = 1_750_000_040_000

let chain: StackChain
let store: Awaited<ReturnType<typeof openStore>>
let api: LocalApi
let clock: ManualClock
const readKey = localReadKey({})

beforeAll(async () => {
  chain = await connectChain({})
  store = await openStore({})
  const devnet = chain.devnet!
  await provisionGolem({
    clients: devnet,
    deployment: devnet.deployment,
    store: store.store,
    signers: new MemorySignerResolver(devnet.deployment),
    owner: await devnet.createOwner(),
    golemId: 'demo',
    strategy: STRATEGY,
  })
  clock = new ManualClock(T0)
  api = await startLocalApi({ chain, store: store.store, indexerUrl: undefined, port: undefined, readApiKey: readKey, clock })
}, 120_000)

afterAll(async () => {
  await api?.stop()
  await store?.stop()
  await chain?.stop()
})

const health = (headers: Record<string, string> = {}) => fetch(`${api.url}/api/v1/golems/demo/permission-health`, { headers })

describe('the local read key', () => {
  it('is a fresh well-formed key per run, or BARDO_READ_API_KEY; a malformed one stops the start', () => {
    expect(isReadKeyShaped(readKey)).toBe(true)
    expect(localReadKey({})).not.toBe(readKey)
    const fixed = `bardo_read_${'d'.repeat(32)}`
    expect(localReadKey({ BARDO_READ_API_KEY: fixed })).toBe(fixed)
    expect(() => localReadKey({ BARDO_READ_API_KEY: 'dashboard' })).toThrow(ReadKeyConfigError)
    expect(() => localReadKey({ BARDO_READ_API_KEY: 'dashboard' })).toThrow(/^BARDO_READ_API_KEY: must be 'bardo_read_'/)
    expect(() => readKeyFromBytes(new Uint8Array(8))).toThrow(RangeError)
  })

  it('lets a polling dashboard past 30 a minute, holds it at the local budget, and refuses a forged key', async () => {
    // Without the key the public tier stops the 31st request of the minute.
    for (let i = 0; i < 30; i++) expect((await health()).status).toBe(200)
    const anonymous = await health()
    expect(anonymous.status).toBe(429)
    expect(await anonymous.json()).toMatchObject({ code: 'RATE_LIMITED', details: { tier: 'public', limit: 30 } })

    // With it, from the same address in the same minute, every poll is answered up to the budget.
    let last: Response | undefined
    for (let i = 0; i < LOCAL_READ_LIMIT; i++) {
      last = await health({ 'x-api-key': readKey })
      expect(last.status).toBe(200)
    }
    expect(last!.headers.get('x-ratelimit-limit')).toBe(String(LOCAL_READ_LIMIT))
    expect(last!.headers.get('x-ratelimit-remaining')).toBe('0')
    expect(await last!.json()).toMatchObject({ golemId: 'demo' })
    const over = await health({ 'x-api-key': readKey })
    expect(over.status).toBe(429)
    expect(await over.json()).toMatchObject({ code: 'RATE_LIMITED', details: { tier: 'read', limit: LOCAL_READ_LIMIT } })
    expect(over.headers.get('retry-after')).toBe('40')

    // Next minute: a forged key, well-formed but not this stack's, is refused and not downgraded.
    clock.advance(60_000)
    const forged = `bardo_read_${'f'.repeat(32)}`
    expect(hashApiKey(forged)).not.toBe(hashApiKey(readKey))
    const refused = await health({ 'x-api-key': forged })
    expect(refused.status).toBe(401)
    expect(await refused.json()).toMatchObject({ code: 'INVALID_API_KEY' })
    const malformed = await health({ 'x-api-key': 'bardo_read_short' })
    expect(malformed.status).toBe(400)
    // Both refusals were charged to the address's public bucket: with this request, 27 of 30 left.
    expect((await health()).headers.get('x-ratelimit-remaining')).toBe('27')
    expect((await health({ 'x-api-key': readKey })).status).toBe(200)
  })
})
