// Permission health on anvil, with reads shared per block: the route's answer is what a fresh chain read
// at the same block says, concurrent requests at one block share one multicall, and a block that changes
// the Golem (a redemption, a revocation) is seen by the next request after it, on the same app. With the
// deployed freshness rule (a chain with 2-second blocks, head reads reused for half of that), an answer
// is never staler than one block and a state change is seen once the reused head has aged out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPublicClient, type Chain, type Hex, type PublicClient, type Transport } from 'viem'
import { golemHealth, phaseOfName } from '../../../core/health/golemHealth.ts'
import { readRequestOf } from '../../../core/lifecycle/observation.ts'
import { readGolems } from '../../../adapters/chain/readGolems.ts'
import { runTick } from '../../../app/tick/runTick.ts'
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

/** One real tick of the Golem, as the heartbeat runs it. */
const tickOnce = (golemId: string, invocationId: string) =>
  runTick(
    {
      store: stack.store,
      client: stack.devnet.publicClient as never,
      deployment: stack.devnet.deployment,
      signers: stack.signers,
      operator: stack.devnet.operator.account as never,
      invocationId,
    },
    { golemId },
  )

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
    // The Golem was already read at this block by the test before: no new multicall. The head (the
    // latest block, its number and timestamp in one read) is shared by requests that arrive together.
    expect(counts.get('eth_call') ?? 0).toBe(0)
    expect(counts.get('eth_blockNumber') ?? 0).toBe(0)
    expect(counts.get('eth_getBlockByNumber')).toBeLessThan(20)
  })

  it('a redemption is seen by the next request after its block', async () => {
    const tick = await tickOnce('atlas', 'shared-read-tick')
    expect(tick.redemption).toMatchObject({ status: 'confirmed', amount: 10_000_000n })
    counts.clear()
    const { body, block } = await healthNow('atlas')
    expect(body).toMatchObject({ ...(await healthAt('atlas', block)), remaining_today: '0' })
    expect(counts.get('eth_call')).toBe(1)
  })

  it("an owner revocation is seen by the next request after its block, dated by the owner's transaction", async () => {
    const receipt = await sendOwnerCalls({
      publicClient: stack.devnet.publicClient as never,
      submitter: stack.devnet.deployer,
      smartAccount: stack.owner.smartAccount,
      calls: [disableDelegationCall(stack.devnet.deployment.environment.DelegationManager, atlas.runway.delegation)],
    })
    const revokedAt = String((await stack.devnet.publicClient.getBlock({ blockNumber: receipt.blockNumber })).timestamp)
    const revocation = { kind: 'RevokedByOwner', revokedAt, txHash: receipt.transactionHash }
    // Requests at one block share one lookup of the owner's transaction, as they share one read.
    counts.clear()
    const block = await head()
    const bodies = await Promise.all(
      Array.from({ length: 10 }, async () => (await app.request('/api/v1/golems/atlas/permission-health')).json()),
    )
    expect(await head()).toBe(block)
    for (const b of bodies) expect(b).toMatchObject({ ...(await healthAt('atlas', block)), health: 'revoked', revocation })
    expect(counts.get('eth_getLogs')).toBe(1)
    // Blocks later, the same time and transaction: found once, never the time of the read.
    for (let i = 0; i < 3; i++) await stack.devnet.increaseTime(2)
    counts.clear()
    expect((await healthNow('atlas')).body).toMatchObject({ health: 'revoked', revocation })
    expect(counts.get('eth_getLogs') ?? 0).toBe(0)
  })

  describe('the deployed freshness rule: 2-second blocks, a head read reused for 1 second', () => {
    let deployedApp: ReturnType<ApiStack['app']>
    const deployedCounts = new Map<string, number>()
    const request = async () => {
      const res = await deployedApp.request('/api/v1/golems/boreas/permission-health')
      expect(res.status).toBe(200)
      return (await res.json()) as Record<string, unknown>
    }
    /** The fields a block's state decides (time-dependent ones move with every block). */
    const stateOf = (b: Record<string, unknown>) => ({ health: b.health, remaining_today: b.remaining_today, revocation: b.revocation })

    beforeAll(async () => {
      await stack.provision('boreas')
      // The API learns the block interval from its chain (Base states 2,000 ms), as the deployed one does.
      const chain = { ...stack.devnet.publicClient.chain, blockTime: 2_000 } as Chain
      deployedApp = stack.app({
        publicClient: createPublicClient({ chain, transport: countingTransport(stack.devnet.rpcUrl, deployedCounts) }),
      })
      await stack.devnet.publicClient.request({ method: 'evm_setAutomine' as never, params: [false] as never })
      await stack.devnet.publicClient.request({ method: 'evm_setIntervalMining' as never, params: [2] as never })
    })
    afterAll(async () => {
      await stack.devnet.publicClient.request({ method: 'evm_setIntervalMining' as never, params: [0] as never })
      await stack.devnet.publicClient.request({ method: 'evm_setAutomine' as never, params: [true] as never })
    })

    it('requests inside one second share a head read; the answer is a fresh read at a block at most one behind', async () => {
      deployedCounts.clear()
      const before = await head()
      const bodies = await Promise.all(Array.from({ length: 30 }, request))
      const after = await head()
      for (const b of bodies) expect(stateOf(b)).toEqual(stateOf(bodies[0]!))
      expect(deployedCounts.get('eth_getBlockByNumber') ?? 0).toBeLessThan(30)
      // No state changes between these blocks: every block's fresh read says the same.
      for (let n = before - 1n; n <= after; n++) expect(stateOf(await healthAt('boreas', n))).toEqual(stateOf(bodies[0]!))
      expect(bodies[0]).toMatchObject({ health: 'healthy', remaining_today: '10000000' })
    })

    it('a redemption is seen at most one block late, and by every request once the reused head has aged out', async () => {
      const tick = await tickOnce('boreas', 'deployed-freshness-tick')
      expect(tick.redemption).toMatchObject({ status: 'confirmed' })
      const mined = (await stack.devnet.publicClient.getTransactionReceipt({ hash: tick.redemption!.txHash as Hex })).blockNumber
      // Right after the receipt: the reused head may still be the block before the redemption's, never older.
      const soon = stateOf(await request())
      const allowed = [stateOf(await healthAt('boreas', mined - 1n)), stateOf(await healthAt('boreas', mined))]
      expect(allowed).toContainEqual(soon)
      // Past the reuse window every answer reads a head sent after the redemption was mined.
      await new Promise((resolve) => setTimeout(resolve, 1_100))
      expect(stateOf(await request())).toEqual({ ...stateOf(await healthAt('boreas', mined)), remaining_today: '0' })
    })
  })
})
