// The heartbeat anomaly, on anvil with the real heartbeat and tick: with the limit at 3, a Golem whose
// signer throws at three ticks in a row is halted (the HeartbeatAnomaly event recorded and served by the
// API, no tick and no redemption after it, even once its signer works again), while a Golem whose
// failures are broken by a successful tick keeps ticking and redeeming.
import type { Address } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import { runTick } from '../../app/tick/runTick.ts'
import { resumeGolem } from '../../cli/lifecycle.ts'
import type { TickResult } from '../../app/tick/types.ts'
import type { SignerResolver } from '../../core/custody/signerResolver.ts'
import { createLocalApi } from '../../functions/api/local.ts'
import { devnetAccount, type OwnerAccount } from '../../local/devnet.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import {
  DAY,
  WHOLE_RUNWAY_ON_KEY,
  allEvents,
  passStaggerOffsets,
  redemptionsBy,
  revokeAsOwner,
  startHeartbeatEnv,
  usdcBalance,
  type HeartbeatEnv,
} from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const LIMIT = 3
let env: HeartbeatEnv
let broken: ProvisionedGolem
let brokenOwner: OwnerAccount
let flaky: ProvisionedGolem
let invoker: LocalInvoker
let api: ReturnType<typeof createLocalApi>
/** Golem keys whose signer cannot be resolved at the moment. */
const failing = new Set<Address>()
const errors: unknown[] = []

const dm = () => env.devnet.deployment.environment.DelegationManager
const redeemed = async (g: ProvisionedGolem) => (await redemptionsBy(env.client, dm(), g.profile.golemKey)).length
const failuresOf = async (id: string) => (await env.store.getGolem(id))!.lastTick?.failures
const outcomeOf = async (id: string) => (await env.store.getGolem(id))!.lastTick?.outcome

/** A day later (a new period: each Golem has a redemption to make), one whole heartbeat; its tick results by Golem. */
async function beat(): Promise<{ results: Map<string, TickResult>; skipped: number; idle: number; errors: number }> {
  await env.devnet.increaseTime(DAY)
  const before = invoker.results.length
  const errorsBefore = errors.length
  const run = await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
  return {
    results: new Map(invoker.results.slice(before).map((r) => [r.golemId, r])),
    skipped: run.skipped,
    idle: run.idle,
    errors: errors.length - errorsBefore,
  }
}

beforeAll(async () => {
  env = await startHeartbeatEnv()
  brokenOwner = await env.devnet.createOwner()
  broken = await provisionGolemIn(env, 'broken', { keyCeiling: WHOLE_RUNWAY_ON_KEY, owner: brokenOwner })
  flaky = await provisionGolemIn(env, 'flaky', { keyCeiling: WHOLE_RUNWAY_ON_KEY })
  await passStaggerOffsets(env.devnet, ['broken', 'flaky'])
  const signers: SignerResolver = {
    resolve: async (profile, options) => {
      if (failing.has(profile.golemKey)) throw new Error(`signer unavailable for ${profile.golemKey}`)
      return env.signers.resolve(profile, options)
    },
    retire: (profile) => env.signers.retire(profile),
  }
  invoker = new LocalInvoker((id) => env.deps(id, { signers, maxConsecutiveFailures: LIMIT }), {
    onError: (_id, e) => errors.push(e),
  })
  api = createLocalApi({
    store: env.store,
    publicClient: env.devnet.publicClient,
    deployment: env.devnet.deployment,
    operator: env.devnet.operator.account,
    settlement: devnetAccount(2),
  })
}, 120_000)
afterAll(async () => env?.stop())

describe('a Golem whose ticks keep failing', () => {
  it('redeems while its ticks work', async () => {
    const { results } = await beat()
    expect(results.get('broken')?.redemption?.status).toBe('confirmed')
    expect(results.get('flaky')?.redemption?.status).toBe('confirmed')
    expect(await redeemed(broken)).toBe(1)
    expect(await redeemed(flaky)).toBe(1)
  })

  it(`is halted when ${LIMIT} ticks in a row failed, and its owner told`, async () => {
    failing.add(broken.profile.golemKey)
    failing.add(flaky.profile.golemKey)
    for (let n = 1; n < LIMIT; n++) {
      expect((await beat()).errors).toBe(2)
      expect(await failuresOf('broken')).toBe(n)
      expect(await failuresOf('flaky')).toBe(n)
      expect(await outcomeOf('broken')).toBe('running')
    }
    // Flaky's next tick works: its count is cleared. Broken's fails the third time in a row.
    failing.delete(flaky.profile.golemKey)
    const third = await beat()
    expect(third.errors).toBe(1)
    expect(third.results.get('flaky')?.redemption?.status).toBe('confirmed')
    expect(await failuresOf('flaky')).toBeUndefined()
    expect(await failuresOf('broken')).toBe(LIMIT)
    expect(await outcomeOf('broken')).toBe('halted')

    const anomalies = (await allEvents(env.store, 'broken')).filter((e) => e.type === 'HeartbeatAnomaly')
    expect(anomalies).toHaveLength(1)
    expect(anomalies[0]!.data).toEqual({
      failures: LIMIT,
      maxConsecutiveFailures: LIMIT,
      reason: `Error: signer unavailable for ${broken.profile.golemKey}`,
    })
    expect((await allEvents(env.store, 'flaky')).some((e) => e.type === 'HeartbeatAnomaly')).toBe(false)

    // The owner reads it from the API, as the Snap does.
    const res = await api.request('/api/v1/golems/broken/events?limit=5')
    expect(res.status).toBe(200)
    const page = (await res.json()) as { events: { type: string; data: Record<string, unknown> }[] }
    expect(page.events[0]).toMatchObject({ type: 'HeartbeatAnomaly', data: { failures: LIMIT, maxConsecutiveFailures: LIMIT } })
  })

  it('is never ticked again, so nothing more is redeemed, even once its signer works', async () => {
    failing.delete(broken.profile.golemKey)
    for (let day = 0; day < 2; day++) {
      const next = await beat()
      expect(next.errors).toBe(0)
      // Observed with the rest, and handed to no tick: nothing but its death is due.
      expect(next.results.has('broken')).toBe(false)
      expect(next.idle).toBe(1)
      expect(next.skipped).toBe(0)
      expect(next.results.get('flaky')?.redemption?.status).toBe('confirmed')
    }
    expect(await redeemed(broken)).toBe(1)
    expect(await redeemed(flaky)).toBe(4)
    expect(await outcomeOf('broken')).toBe('halted')
    // Asked directly, the tick refuses it too.
    expect((await runTick(env.deps(), { golemId: 'broken' })).outcome).toBe('halted')
  })

  it('a failure count that never reaches the limit halts nothing', async () => {
    failing.add(flaky.profile.golemKey)
    for (let n = 1; n < LIMIT; n++) expect((await beat()).errors).toBe(1)
    expect(await failuresOf('flaky')).toBe(LIMIT - 1)
    failing.delete(flaky.profile.golemKey)
    expect((await beat()).results.get('flaky')?.redemption?.status).toBe('confirmed')
    expect(await failuresOf('flaky')).toBeUndefined()
    expect(await outcomeOf('flaky')).toBe('confirmed')
    expect((await allEvents(env.store, 'flaky')).some((e) => e.type === 'HeartbeatAnomaly')).toBe(false)
  })

  it("its owner's revocation still ends it: the next beat runs its death, and what its key holds goes home", async () => {
    const usdc = env.devnet.deployment.assets.usdc
    const { receipt } = await revokeAsOwner(env, brokenOwner, 'broken')
    expect(receipt.status).toBe('success')
    const held = await usdcBalance(env.client, usdc, broken.golemKey)
    expect(held).toBeGreaterThan(0n)
    const ownerBefore = await usdcBalance(env.client, usdc, brokenOwner.address)
    const next = await beat()
    expect(next.errors).toBe(0)
    expect(next.results.get('broken')).toMatchObject({ outcome: 'died', redemption: { status: 'revoke' } })
    expect(await usdcBalance(env.client, usdc, broken.golemKey)).toBe(0n)
    expect(await usdcBalance(env.client, usdc, brokenOwner.address)).toBe(ownerBefore + held)
    expect((await env.store.getGolem('broken'))!.status).toBe('dead')
    expect((await env.store.getDeathSettlement('broken'))?.settlement).toMatchObject({
      expiryCause: 'OwnerRevocation',
      sessionKeyZeroed: true,
    })
    const types = (await allEvents(env.store, 'broken')).map((e) => e.type)
    expect(types).toEqual(expect.arrayContaining(['HeartbeatAnomaly', 'DelegationRevoked', 'DeathProtocolStarted', 'DeathCompleted']))
    // Nothing was redeemed on the way: the halt still held for its work.
    expect(await redeemed(broken)).toBe(1)
  })

  it('resumed once its cause is fixed, it ticks again: the halt lifted, the next beat redeems, the owner told', async () => {
    failing.add(flaky.profile.golemKey)
    for (let n = 0; n < LIMIT; n++) await beat()
    expect(await outcomeOf('flaky')).toBe('halted')
    const before = await redeemed(flaky)
    expect((await beat()).results.has('flaky')).toBe(false)
    failing.delete(flaky.profile.golemKey)
    // Refused, with nothing written, for a Golem that is not halted.
    const version = (await env.store.getGolem('flaky'))!.version
    await expect(resumeGolem({ store: env.store, golemId: 'broken', now: Date.now() })).rejects.toThrow(/^--golem: names a dead Golem/)
    expect(await resumeGolem({ store: env.store, golemId: 'flaky', now: Date.now() })).toEqual({ golemId: 'flaky', failures: LIMIT })
    expect((await env.store.getGolem('flaky'))!.version).toBe(version + 1)
    await expect(resumeGolem({ store: env.store, golemId: 'flaky', now: Date.now() })).rejects.toThrow(
      '--golem: must name a Golem the heartbeat anomaly halted',
    )
    const next = await beat()
    expect(next.errors).toBe(0)
    expect(next.results.get('flaky')?.redemption?.status).toBe('confirmed')
    expect(await redeemed(flaky)).toBe(before + 1)
    expect(await failuresOf('flaky')).toBeUndefined()
    const resumed = (await allEvents(env.store, 'flaky')).find((e) => e.type === 'HeartbeatResumed')
    expect(resumed?.data).toEqual({ failures: LIMIT })
  })
})
