// Permission health on anvil, with reads shared per block: the route's answer is what a fresh chain read
// at the same block says, concurrent requests at one block share one multicall, and a block that changes
// the Golem (a redemption, a revocation) is seen by the next request after it, on the same app.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPublicClient, type Chain, type PublicClient, type Transport } from 'viem'
import { golemHealth, phaseOfName } from '../../../core/health/golemHealth.ts'
import { readRequestOf } from '../../../core/lifecycle/observation.ts'
import { readGolems } from '../../../adapters/chain/readGolems.ts'
import { runTick } from '../../tick/runTick.ts'
import { disableDelegationCall, sendOwnerCalls } from '../../../local/ownerActions.ts'
import { countingTransport } from '../../../bench/lib/countingTransport.ts'
import type { ProvisionedGolem } from '../../../local/provision.ts'
import { startApiStack, type ApiStack } from '../../../test/api/harness.ts'
import { permissionFactsOf } from './chainState.ts'

let stack: ApiStack
let app: ReturnType<ApiStack['app']>
let atlas: ProvisionedGolem
const counts = new Map<string, number>()

beforeAll(async () => {
  stack = await startApiStack()
  atlas = await stack.provision('atlas')
  // One app for the whole suite, so its per-block reads carry over from request to request.
  const publicClient = createPublicClient({
    chain: stack.devnet.publicClient.chain,
    transport: countingTransport(stack.devnet.rpcUrl, counts),
  }) as PublicClient<Transport, Chain>
  app = stack.app({ publicClient })
})
afterAll(async () => {
  await stack?.stop()
})

const head = () => stack.devnet.publicClient.getBlockNumber({ cacheTime: 0 })

/** What core/health says from a fresh read of the chain at `blockNumber` (not through the API's cache). */
async function healthAt(id: string, blockNumber: bigint) {
  const profile = await stack.profile(id)
  const block = await stack.devnet.publicClient.getBlock({ blockNumber })
  const batch = await readGolems(stack.devnet.publicClient as PublicClient, stack.devnet.deployment, [readRequestOf(id, profile)], block)
  const record = (await stack.store.getGolem(id))!
  const lastTick = record.lastTick?.outcome === 'confirmed' ? BigInt(Math.floor(record.lastTick.at / 1000)) : undefined
  const r = golemHealth({
    facts: permissionFactsOf(profile, { ...batch.golems[0]!, timestamp: batch.timestamp }, lastTick),
    lifecycle: record.status,
    phase: phaseOfName(record.phase),
    runwayEndsAt: profile.life.runwayEndsAt,
  })
  return {
    health: r.health,
    reason: r.reason,
    remaining_today: r.remaining_today,
    days_remaining: r.days_remaining,
    total_remaining: r.total_remaining,
    last_redemption_at: r.last_redemption_at,
    revocation: { kind: r.revocation.kind },
  }
}

/** GET permission-health at a block nobody moves meanwhile; returns the body and that block. */
async function healthNow(id: string) {
  const before = await head()
  const res = await app.request(`/api/v1/golems/${id}/permission-health`)
  expect(res.status).toBe(200)
  const body = (await res.json()) as Record<string, unknown>
  expect(await head()).toBe(before)
  return { body, block: before }
}

describe('permission health shared per block (anvil)', () => {
  it('answers what a fresh chain read at the same block says', async () => {
    const { body, block } = await healthNow('atlas')
    expect(body).toMatchObject({ ...(await healthAt('atlas', block)), health: 'healthy', remaining_today: '10000000' })
  })

  it('concurrent requests at one block share one multicall; every answer is the same', async () => {
    counts.clear()
    const block = await head()
    const bodies = await Promise.all(
      Array.from({ length: 20 }, async () => (await app.request('/api/v1/golems/atlas/permission-health')).json()),
    )
    expect(await head()).toBe(block)
    for (const b of bodies) expect(b).toEqual(bodies[0])
    // The Golem was already read at this block by the test before: no new multicall, no block read.
    expect(counts.get('eth_call') ?? 0).toBe(0)
    expect(counts.get('eth_getBlockByNumber') ?? 0).toBe(0)
    expect(counts.get('eth_blockNumber')).toBeLessThan(20)
  })

  it('a redemption is seen by the next request after its block', async () => {
    const tick = await runTick(
      {
        store: stack.store,
        client: stack.devnet.publicClient as never,
        deployment: stack.devnet.deployment,
        signers: stack.signers,
        operator: stack.devnet.operator.account as never,
        invocationId: 'shared-read-tick',
      },
      { golemId: 'atlas' },
    )
    expect(tick.redemption).toMatchObject({ status: 'confirmed', amount: 10_000_000n })
    counts.clear()
    const { body, block } = await healthNow('atlas')
    expect(body).toMatchObject({ ...(await healthAt('atlas', block)), remaining_today: '0' })
    expect(counts.get('eth_call')).toBe(1)
  })

  it('an owner revocation is seen by the next request after its block', async () => {
    await sendOwnerCalls({
      publicClient: stack.devnet.publicClient as never,
      submitter: stack.devnet.deployer,
      smartAccount: stack.owner.smartAccount,
      calls: [disableDelegationCall(stack.devnet.deployment.environment.DelegationManager, atlas.runway.delegation)],
    })
    const { body, block } = await healthNow('atlas')
    expect(body).toMatchObject({ ...(await healthAt('atlas', block)), health: 'revoked', revocation: { kind: 'RevokedByOwner' } })
  })
})
