// Permission health is never staler than one block, with the verdict and its body kept between requests:
// requests at one block with the store unchanged share one chain read and get the same answer (the same
// verdict, the same bytes); a new block is a new chain read and a fresh answer; a store change (the
// lifecycle, the profile) is a fresh answer at the same block. The chain read is faked here (readGolems
// mocked, the head a number the test moves); chainState.test.ts runs the same route on anvil.
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { PublicClient } from 'viem'
import type { BardoDeployment } from '../../../core/deployment.ts'
import { Phase } from '../../../core/lifecycle/phase.ts'
import type { GolemReadRequest } from '../../../core/lifecycle/observation.ts'
import { testProfile } from '../../../test/support/lifecycle/profile.ts'
import { createApp } from '../app.ts'
import { sampleGolem, testApiDeps } from '../testing.ts'
import { ChainGolemState } from './chainState.ts'

const chain = vi.hoisted(() => ({ head: 100n, reads: 0, available: 10n, batches: [] as string[][], failNext: false, poison: '' }))

vi.mock('../../../adapters/chain/readGolems.ts', () => ({
  readGolems: async (
    _client: unknown,
    _deployment: unknown,
    requests: GolemReadRequest[],
    block: { number: bigint; timestamp: bigint },
  ) => {
    chain.reads++
    chain.batches.push(requests.map((r) => r.golemId))
    // Let concurrent callers pile up on the read in flight, as they do on a real one.
    await new Promise((resolve) => setTimeout(resolve, 5))
    if (chain.failNext) {
      chain.failNext = false
      throw new Error('rpc down')
    }
    // A read that always reverts fails the whole multicall it is in.
    if (requests.some((r) => r.golemId === chain.poison)) throw new Error('execution reverted')
    return {
      blockNumber: block.number,
      timestamp: block.timestamp,
      golems: requests.map((r) => ({
        golemId: r.golemId,
        phase: Phase.Stable,
        registered: true,
        dead: false,
        survivalScoreBps: 6_800,
        dreaming: false,
        disabled: false,
        availableInPeriod: chain.available,
        isNewPeriod: false,
        currentPeriod: 0n,
      })),
    }
  },
}))

const born = 1_750_000_000n

const client = {
  getBlock: async ({ blockTag }: { blockTag: 'latest' }) => {
    if (blockTag !== 'latest') throw new Error(`getBlock: the head is read as 'latest', got ${String(blockTag)}`)
    return { number: chain.head, timestamp: born + 3_600n + chain.head * 2n }
  },
} as unknown as PublicClient

const golem = (overrides: Parameters<typeof sampleGolem>[0] = {}) => sampleGolem({ profile: testProfile(), version: 1, ...overrides })

function service() {
  return new ChainGolemState({ client, deployment: {} as BardoDeployment, store: { getGolem: async () => null } })
}

beforeEach(() => {
  chain.head = 100n
  chain.reads = 0
  chain.available = 10n
  chain.batches = []
  chain.failNext = false
  chain.poison = ''
})

describe('the health verdict, kept per Golem and block', () => {
  it('concurrent checks at one block make one chain read and share one verdict', async () => {
    const state = service()
    const view = golem()
    const verdicts = await Promise.all(Array.from({ length: 8 }, () => state.check(view)))
    expect(chain.reads).toBe(1)
    for (const v of verdicts) expect(v).toBe(verdicts[0])
    expect(await state.check(view)).toBe(verdicts[0])
    expect(chain.reads).toBe(1)
  })

  it('a new block makes a new chain read and a fresh verdict', async () => {
    const state = service()
    const view = golem()
    const first = await state.check(view)
    expect(first.remaining_today).toBe('10')
    chain.head = 101n
    chain.available = 3n
    const next = await state.check(view)
    expect(chain.reads).toBe(2)
    expect(next).not.toBe(first)
    expect(next.remaining_today).toBe('3')
  })

  it('a store change at the same block gives a fresh verdict from the same chain read', async () => {
    const state = service()
    const first = await state.check(golem())
    expect(first.health).toBe('healthy')
    const dying = await state.check(golem({ lifecycle: 'dying', version: 2 }))
    expect(chain.reads).toBe(1)
    expect(dying).not.toBe(first)
    expect(dying).toMatchObject({ health: 'critical', reason: 'the death protocol is running' })
    // A new profile (a renewal, a rotation) is a new verdict as well.
    const renewed = await state.check(golem({ version: 3 }))
    expect(renewed).not.toBe(dying)
    expect(renewed.health).toBe('healthy')
  })

  it('a verdict from an older head does not replace a newer one', async () => {
    const state = service()
    const view = golem()
    chain.head = 101n
    const newer = await state.check(view)
    // A request that learned an older head is answered from the newer read (never older than its own head).
    chain.head = 100n
    expect(await state.check(view)).toBe(newer)
    expect(chain.reads).toBe(1)
  })

  it("a new block reads the Golems asked about at the head before it in one multicall, before anyone's request reads", async () => {
    const state = service()
    const atlas = golem()
    const boreas = golem({ id: 'boreas' })
    await Promise.all([state.check(atlas), state.check(boreas)])
    expect(chain.batches).toEqual([['atlas'], ['boreas']])
    chain.head = 101n
    chain.available = 3n
    // The head read finds block 101 and reads both at it; neither request reads again.
    const [a, b] = await Promise.all([state.check(atlas), state.check(boreas)])
    expect(chain.batches).toEqual([['atlas'], ['boreas'], ['boreas', 'atlas']])
    expect(a.remaining_today).toBe('3')
    expect(b.remaining_today).toBe('3')
    // Asked at 101 only: cyrene is read ahead at the next block, and atlas, asked at 101, with it.
    const cyrene = golem({ id: 'cyrene' })
    await state.check(cyrene)
    expect(chain.batches).toHaveLength(4)
    chain.head = 103n
    await state.check(atlas)
    expect(chain.batches.at(-1)).toEqual(['cyrene', 'boreas', 'atlas'])
    expect(chain.batches).toHaveLength(5)
  })

  it('a read ahead that fails leaves each request to read its own Golem', async () => {
    const state = service()
    const view = golem()
    await state.check(view)
    chain.head = 101n
    chain.available = 3n
    chain.failNext = true
    const next = await state.check(view)
    expect(next.remaining_today).toBe('3')
    // The read ahead (failed), then the request's own.
    expect(chain.batches).toEqual([['atlas'], ['atlas'], ['atlas']])
  })

  it('a Golem whose read keeps failing is left out of the read ahead, so the others are still read ahead', async () => {
    const state = service()
    const atlas = golem()
    const broken = golem({ id: 'broken' })
    chain.poison = 'broken'
    await state.check(atlas)
    await expect(state.check(broken)).rejects.toThrow('execution reverted')
    chain.head = 101n
    await state.check(atlas)
    // Read ahead at 101: atlas alone; its request found it read.
    expect(chain.batches.slice(2)).toEqual([['atlas']])
  })
})

describe('GET permission-health with the verdict kept', () => {
  function app() {
    const deps = testApiDeps({ golems: [golem()], config: { trustedProxyHops: 0 } })
    return { app: createApp({ ...deps, health: service() }), golems: deps.golems }
  }

  it('answers requests at one block with one chain read and the same body, as JSON', async () => {
    const { app: api } = app()
    const responses = await Promise.all(Array.from({ length: 5 }, () => api.request('/api/v1/golems/atlas/permission-health')))
    const bodies = await Promise.all(responses.map((r) => r.text()))
    expect(chain.reads).toBe(1)
    for (const r of responses) {
      expect(r.status).toBe(200)
      expect(r.headers.get('content-type')).toBe('application/json')
      expect(r.headers.get('x-ratelimit-limit')).toBe('30')
    }
    for (const b of bodies) expect(b).toBe(bodies[0])
    expect(JSON.parse(bodies[0]!)).toMatchObject({
      golemId: 'atlas',
      health: 'healthy',
      remaining_today: '10',
      revocation: { kind: 'Active' },
    })
    // Each answer still counts against the caller's limit.
    expect(responses.map((r) => r.headers.get('x-ratelimit-remaining')).sort()).toEqual(['25', '26', '27', '28', '29'])
  })

  it('a new block or a store change gives a fresh body', async () => {
    const { app: api, golems } = app()
    const first = await (await api.request('/api/v1/golems/atlas/permission-health')).json()
    expect(first).toMatchObject({ remaining_today: '10' })
    chain.head = 101n
    chain.available = 4n
    const afterBlock = await (await api.request('/api/v1/golems/atlas/permission-health')).json()
    expect(afterBlock).toMatchObject({ health: 'healthy', remaining_today: '4' })
    expect(chain.reads).toBe(2)
    golems.put(golem({ lifecycle: 'dead', version: 2 }))
    const afterStore = await (await api.request('/api/v1/golems/atlas/permission-health')).json()
    expect(afterStore).toMatchObject({ health: 'dead', reason: 'the Golem is dead' })
    expect(chain.reads).toBe(2)
  })

  it('checks its headers once, in the tier middleware, and still documents them', async () => {
    const { app: api } = app()
    const bad = await api.request('/api/v1/golems/atlas/permission-health', { headers: { authorization: 'Basic abc' } })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { issues: [{ location: 'header', path: 'authorization' }] },
    })
    expect(chain.reads).toBe(0)
    const doc = (await (await api.request('/openapi.json')).json()) as {
      paths: Record<string, { get: { parameters: { in: string; name: string }[] } }>
    }
    const parameters = doc.paths['/api/v1/golems/{id}/permission-health']!.get.parameters.map((p) => `${p.in}:${p.name}`)
    expect(parameters).toEqual(expect.arrayContaining(['path:id', 'header:x-api-key', 'header:authorization']))
  })
})
