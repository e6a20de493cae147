// The API's real services on anvil: the Golem registry from the store, permission health from one
// batched chain read classified by core/health, current phase and spend from the chain, history from
// the indexer's routes (a stub here; test/indexer.test.ts runs the real indexer end to end), Snap status on the
// store, and Clade membership from the store. Chain time only moves when a test moves it.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { golemHealth, phaseOfName } from '../../core/health/golemHealth.ts'
import { permissionHealthResponse, phasesResponse, snapStatusResponse, spendResponse } from '../../functions/api/schemas.ts'
import { permissionFactsOf } from '../../functions/api/services/chainState.ts'
import { rotateSnapToken } from '../../core/snap/snapToken.ts'
import { snapTokensFromStore } from '../../functions/api/storeAdapters.ts'
import { readGolems } from '../../adapters/chain/readGolems.ts'
import { observationOf, readRequestOf } from '../../core/lifecycle/observation.ts'
import { runTick } from '../../app/tick/runTick.ts'
import { disableDelegationCall, sendOwnerCalls } from '../../local/ownerActions.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import { startApiStack, type ApiStack } from './harness.ts'

let stack: ApiStack
let indexer: Server
let indexerUrl: string
let indexedRedemptionAt = 0
const golems: Record<string, ProvisionedGolem> = {}

beforeAll(async () => {
  stack = await startApiStack()
  for (const id of ['atlas', 'echo', 'revoked', 'ghost']) golems[id] = await stack.provision(id)
  // A stub of the indexer's /v1 redemptions route (the only one permission health reads).
  indexer = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(
      JSON.stringify({ items: indexedRedemptionAt ? [{ timestamp: String(indexedRedemptionAt) }] : [], nextCursor: null, url: req.url }),
    )
  })
  await new Promise<void>((r) => indexer.listen(0, '127.0.0.1', r))
  indexerUrl = `http://127.0.0.1:${(indexer.address() as AddressInfo).port}`
})
afterAll(async () => {
  indexer?.closeAllConnections()
  await new Promise<void>((r) => (indexer ? indexer.close(() => r()) : r()))
  await stack?.stop()
})

const getJson = async (app: ReturnType<ApiStack['app']>, path: string, headers: Record<string, string> = {}) => {
  const res = await app.request(path, { headers })
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, res }
}

/** What core/health says for the Golem's facts read directly from the chain right now. */
async function expectedHealth(id: string, lastRedemptionAt?: bigint) {
  const profile = await stack.profile(id)
  const batch = await readGolems(stack.devnet.publicClient, stack.devnet.deployment, [readRequestOf(id, profile)])
  const read = { ...batch.golems[0]!, timestamp: batch.timestamp }
  // The API's facts are the tick's facts.
  expect(permissionFactsOf(profile, read)).toEqual(observationOf(id, profile, read, 0n).permission)
  const record = await stack.store.getGolem(id)
  const r = golemHealth({
    facts: permissionFactsOf(profile, read, lastRedemptionAt),
    lifecycle: record!.status,
    phase: phaseOfName(record!.phase),
    runwayEndsAt: profile.life.runwayEndsAt,
  })
  return {
    health: r.health,
    remaining_today: r.remaining_today,
    days_remaining: r.days_remaining,
    total_remaining: r.total_remaining,
    last_redemption_at: r.last_redemption_at,
  }
}

describe('API services on anvil', () => {
  it('resolves a Golem by id and by its key; unknown ids and keys are 404', async () => {
    const app = stack.app()
    const byId = await getJson(app, '/api/v1/golems/atlas/permission-health')
    expect(byId.status).toBe(200)
    const byKey = await getJson(app, `/api/v1/golems/${golems.atlas!.golemKey}/permission-health`)
    expect(byKey.status).toBe(200)
    expect(byKey.body.golemId).toBe('atlas')
    expect((await getJson(app, `/api/v1/golems/${golems.atlas!.golemKey.toLowerCase()}/permission-health`)).body.golemId).toBe('atlas')
    expect((await getJson(app, '/api/v1/golems/nobody/permission-health')).body).toMatchObject({ code: 'GOLEM_NOT_FOUND' })
    expect((await getJson(app, '/api/v1/golems/0x000000000000000000000000000000000000dEaD/spend')).status).toBe(404)
  })

  it('permission health: a fresh grant is healthy with the whole period left, from one chain read', async () => {
    const app = stack.app()
    const { status, body } = await getJson(app, '/api/v1/golems/echo/permission-health')
    expect(status).toBe(200)
    expect(permissionHealthResponse.safeParse(body).error).toBeUndefined()
    expect(body).toMatchObject({
      golemId: 'echo',
      ...(await expectedHealth('echo')),
      health: 'healthy',
      remaining_today: '10000000',
      last_redemption_at: 0,
      revocation: { kind: 'Active' },
    })
  })

  it('after a tick redeems the period: healthy (its planned allowance is redeemed, nothing left today), last redemption from the store, or the indexer when newer', async () => {
    const tick = await runTick(
      {
        store: stack.store,
        client: stack.devnet.publicClient as never,
        deployment: stack.devnet.deployment,
        signers: stack.signers,
        operator: stack.devnet.operator.account as never,
        invocationId: 'test-tick',
      },
      { golemId: 'atlas' },
    )
    expect(tick.redemption).toMatchObject({ status: 'confirmed', amount: 10_000_000n })
    const lastTickAt = BigInt(Math.floor((await stack.store.getGolem('atlas'))!.lastTick!.at / 1000))
    const app = stack.app()
    const { body } = await getJson(app, '/api/v1/golems/atlas/permission-health')
    expect(body).toMatchObject({
      ...(await expectedHealth('atlas', lastTickAt)),
      health: 'healthy',
      reason: "this period's planned allowance is redeemed",
      remaining_today: '0',
      last_redemption_at: Number(lastTickAt),
    })

    const spend = await getJson(app, '/api/v1/golems/atlas/spend')
    // No indexer configured: current state answers, history does not.
    expect(spend.status).toBe(503)
    expect(spend.body).toMatchObject({ code: 'INDEXER_UNAVAILABLE' })

    indexedRedemptionAt = Number(lastTickAt) + 5
    const withIndexer = stack.app({ indexerUrl })
    expect((await getJson(withIndexer, '/api/v1/golems/atlas/permission-health')).body.last_redemption_at).toBe(indexedRedemptionAt)
    indexedRedemptionAt = 0
    // An indexer that has not caught up does not hide the store's redemption.
    expect((await getJson(withIndexer, '/api/v1/golems/atlas/permission-health')).body.last_redemption_at).toBe(Number(lastTickAt))
  })

  it('current phase and spend come from the chain', async () => {
    const stub = stack.app({ indexerUrl })
    const phases = await getJson(stub, '/api/v1/golems/atlas/phases')
    // The stub answers phases with an empty redemptions-shaped page; only `current` matters here.
    expect(phases.body.current).toMatchObject({ registered: true, phase: 'Thriving' })
    expect(phasesResponse.shape.current.safeParse(phases.body.current).error).toBeUndefined()
    const spend = await getJson(stub, '/api/v1/golems/atlas/spend')
    expect(spend.status).toBe(200)
    expect(spendResponse.safeParse(spend.body).error).toBeUndefined()
    expect(spend.body.current).toMatchObject({
      token: stack.devnet.deployment.assets.usdc,
      periodSeconds: 86_400,
      limit: '10000000',
      spent: '10000000',
      remaining: '0',
    })
    const echo = await getJson(stub, '/api/v1/golems/echo/spend')
    expect(echo.body.current).toMatchObject({ spent: '0', remaining: '10000000' })
  })

  it('an owner revocation reads as revoked', async () => {
    const g = golems.revoked!
    await sendOwnerCalls({
      publicClient: stack.devnet.publicClient as never,
      submitter: stack.devnet.deployer,
      smartAccount: stack.owner.smartAccount,
      calls: [disableDelegationCall(stack.devnet.deployment.environment.DelegationManager, g.runway.delegation)],
    })
    const { body } = await getJson(stack.app(), '/api/v1/golems/revoked/permission-health')
    expect(body).toMatchObject({ health: 'revoked', remaining_today: '0', total_remaining: '0', revocation: { kind: 'RevokedByOwner' } })
  })

  it("Snap status on the store: the owner's Golems with permission health, and the next token", async () => {
    const app = stack.app()
    const clock = { now: () => Date.now() }
    const token = await rotateSnapToken(snapTokensFromStore(stack.store, clock), stack.owner.address, clock.now())
    const { status, body, res } = await getJson(app, '/api/snap/status', { authorization: `Bearer ${token}`, origin: 'https://bardo.ai' })
    expect(status).toBe(200)
    expect(snapStatusResponse.safeParse(body).error).toBeUndefined()
    const listed = (body.golems as { id: string; permission: { health: string } | null }[]).map((g) => `${g.id}:${g.permission?.health}`)
    expect(listed.sort()).toEqual(['atlas:healthy', 'echo:healthy', 'ghost:healthy', 'revoked:revoked'])
    expect(res.headers.get('x-bardo-next-token')).toBe(body.nextToken)
    expect((await getJson(app, '/api/snap/status', { authorization: `Bearer ${token}`, origin: 'https://bardo.ai' })).status).toBe(401)
    expect(
      (await getJson(app, '/api/snap/status', { authorization: `Bearer ${String(body.nextToken)}`, origin: 'https://bardo.ai' })).status,
    ).toBe(200)
  })

  it('Clade membership from the store: two living Golems of this operator may talk; an unknown key may not', async () => {
    const app = stack.app()
    const ok = await getJson(app, `/clade/v1/challenge?caller=${golems.echo!.golemKey}&target=${golems.atlas!.golemKey}`)
    expect(ok.status).toBe(200)
    const stranger = await getJson(
      app,
      `/clade/v1/challenge?caller=${golems.echo!.golemKey}&target=0x000000000000000000000000000000000000dEaD`,
    )
    expect(stranger.status).toBe(404)
  })

  it('a dead Golem keeps its reads, by id and by its last key, but is no Clade member any more', async () => {
    const g = (await stack.store.getGolem('ghost'))!
    await stack.store.updateGolem({ golemId: 'ghost', expectedVersion: g.version, patch: { status: 'dead' }, now: g.updatedAt + 1 })
    const app = stack.app()
    const byId = await getJson(app, '/api/v1/golems/ghost/permission-health')
    expect(byId.status).toBe(200)
    expect((await getJson(app, `/api/v1/golems/${golems.ghost!.golemKey}/permission-health`)).status).toBe(200)
    const clade = await getJson(app, `/clade/v1/challenge?caller=${golems.echo!.golemKey}&target=${golems.ghost!.golemKey}`)
    expect(clade.status).toBe(404)
  })

  it('runs out of time with the chain clock: under one day left is critical', async () => {
    await stack.devnet.increaseTime(29n * 86_400n + 12n * 3600n)
    const { body } = await getJson(stack.app(), '/api/v1/golems/echo/permission-health')
    expect(body).toMatchObject({ ...(await expectedHealth('echo')), health: 'critical', days_remaining: 0 })
    expect(Number(body.remaining_today)).toBe(10_000_000)
  })
})
