// Staggered runway redemptions through the real heartbeat and tick, on anvil and dynalite: a Golem
// redeems its first period at once; in its second period the heartbeat still hands it over every minute,
// but its tick skips the redemption ('staggered', naming the time) until the Golem's offset into the
// period, then redeems once. A key rotation that falls due before the offset waits for it, so the old
// key redeems the period before its grant hands over and no period's runway is lost.
import { parseEther, type Address } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { staggerOffset } from '../../core/lifecycle/stagger.ts'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import { runTick } from '../../app/tick/runTick.ts'
import type { TickResult } from '../../app/tick/types.ts'
import type { OwnerAccount } from '../../local/devnet.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import { LocalKeyRotation } from '../../local/rotation.ts'
import {
  DAY,
  USDC,
  allEvents,
  chainNow,
  periodAt,
  redemptionsBy,
  startHeartbeatEnv,
  type HeartbeatEnv,
  WHOLE_RUNWAY_ON_KEY,
} from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY =
  '---\nname: staggered-golem\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 30\n---\n\nSwap a little USDC into WETH every day.\n'
const PERIOD = BigInt(DAY)

/** The first id with this prefix whose offset into a daily period is at least `min` seconds. */
function idWithOffsetAtLeast(prefix: string, min: bigint): string {
  for (let i = 0; ; i++) if (staggerOffset(`${prefix}-${i}`, PERIOD) >= min) return `${prefix}-${i}`
}

let env: HeartbeatEnv
let owner: OwnerAccount
const errors: unknown[] = []

beforeAll(async () => {
  env = await startHeartbeatEnv()
  owner = await env.devnet.createOwner()
})
afterAll(async () => env?.stop())

// The key may hold every period's runway, so each period's redemption shows when the stagger let it happen.
const provision = (golemId: string): Promise<ProvisionedGolem> =>
  provisionGolemIn(env, golemId, { owner, strategy: STRATEGY, runwayDays: 30, keyCeiling: WHOLE_RUNWAY_ON_KEY })

/** Moves the chain clock to `at` (a later chain time) and mines. */
async function advanceTo(at: bigint): Promise<void> {
  const now = await chainNow(env.client)
  if (at > now) await env.devnet.increaseTime(at - now)
}

describe('a Golem in its second period, through the heartbeat', () => {
  const golemId = idWithOffsetAtLeast('stagger', 1_200n)
  const offset = staggerOffset(golemId, PERIOD)
  const invoker = new LocalInvoker((id) => env.deps(id), { onError: (_id, e) => errors.push(e) })
  let golem: ProvisionedGolem
  let secondStart: bigint

  /** One heartbeat: the Golem is handed over (due every minute, staggered or not) and its tick's result. */
  async function beat(): Promise<TickResult> {
    const before = invoker.results.length
    const hb = await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
    expect(hb.invoked).toBe(1)
    expect(errors).toEqual([])
    expect(invoker.results.length).toBe(before + 1)
    return invoker.results.at(-1)!
  }
  /** One heartbeat that observes the Golem and finds nothing to do: it is not handed over, no tick runs. */
  async function idleBeat(): Promise<void> {
    const before = invoker.results.length
    const hb = await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
    expect([hb.due, hb.idle, hb.invoked]).toEqual([1, 1, 0])
    expect(errors).toEqual([])
    expect(invoker.results.length).toBe(before)
  }
  const onChain = () => redemptionsBy(env.client, env.devnet.deployment.environment.DelegationManager, golem.golemKey)
  const redeemedEvents = async () => (await allEvents(env.store, golemId)).filter((e) => e.type === 'RunwayRedeemed')

  it('redeems its first period at once, whatever its offset', async () => {
    golem = await provision(golemId)
    secondStart = golem.profile.runway.periodStart + PERIOD
    expect((await beat()).redemption).toMatchObject({ status: 'confirmed', amount: USDC(20) })
    expect(await onChain()).toHaveLength(1)
  })

  it('skips the redemption at the start of its second period, naming the time it will redeem; the tick runs otherwise', async () => {
    await advanceTo(secondStart)
    const result = await beat()
    expect(result.outcome).toBe('ticked')
    expect(result.redemption).toEqual({ status: 'skipped', reason: 'staggered', redeemAt: secondStart + offset })
    expect(result.revocation).toBe('Active')
    expect(await onChain()).toHaveLength(1)
    expect(await redeemedEvents()).toHaveLength(1)
    // The tick finished (its next tick a minute on); nothing of the period's slot or budget was touched.
    const record = (await env.store.getGolem(golemId))!
    expect(record.lastTick).toMatchObject({ outcome: 'skipped' })
    const period = periodAt(golem.profile, secondStart)
    expect(await env.store.getSlot({ golemId, period, step: 'runway' })).toBeNull()
  })

  it('is left alone a minute before the offset (nothing to do: no tick), then redeems once at the first tick past it', async () => {
    await advanceTo(secondStart + offset - 61n)
    await idleBeat()
    await advanceTo(secondStart + offset)
    const result = await beat()
    expect(result.redemption).toMatchObject({ status: 'confirmed', amount: USDC(20) })
    const redemptions = await onChain()
    expect(redemptions).toHaveLength(2)
    expect(redemptions[1]!.timestamp).toBeGreaterThanOrEqual(secondStart + offset)
    const period = periodAt(golem.profile, secondStart)
    expect(periodAt(golem.profile, redemptions[1]!.timestamp)).toBe(period)
    expect(await env.store.getSlot({ golemId, period, step: 'runway' })).toMatchObject({ status: 'sent', claims: 1 })
    expect((await redeemedEvents()).map((e) => e.data.period)).toEqual([(period - 1n).toString(), period.toString()])
  })

  it('never redeems the period again: later minutes in it hand nothing over and send nothing', async () => {
    for (let i = 0; i < 2; i++) {
      await env.devnet.increaseTime(61)
      await idleBeat()
    }
    expect(await onChain()).toHaveLength(2)
    expect(await redeemedEvents()).toHaveLength(2)
  })
})

describe('a key rotation due before the offset', () => {
  it('waits for the old key to redeem the period, then rotates: no period is lost', async () => {
    const golemId = idWithOffsetAtLeast('stagger-rot', 1_200n)
    const offset = staggerOffset(golemId, PERIOD)
    const rotation = new LocalKeyRotation(env.devnet.deployment, owner, env.signers, async (address: Address) => {
      await env.client.waitForTransactionReceipt({
        hash: await env.devnet.deployer.sendTransaction({ to: address, value: parseEther('1') }),
      })
    })
    const tick = (invocation: string) => runTick(env.deps(invocation, { rotation }), { golemId })
    const golem = await provision(golemId)
    expect((await tick('rot-day-0')).redemption?.status).toBe('confirmed')

    // Past the key's seven-day age, at the start of a period: the runway is staggered, so the key stays.
    const start = golem.profile.runway.periodStart + 8n * PERIOD
    await advanceTo(start)
    const early = await tick('rot-day-8-early')
    expect(early.redemption).toMatchObject({ reason: 'staggered', redeemAt: start + offset })
    expect(early.rotated).toBeUndefined()

    // Past the offset the old key redeems the period, then the key rotates in the same tick.
    await advanceTo(start + offset)
    const due = await tick('rot-day-8-due')
    expect(due.redemption?.status).toBe('confirmed')
    expect(due.rotated).toMatchObject({ from: golem.golemKey })
    const dm = env.devnet.deployment.environment.DelegationManager
    const redeemed = await redemptionsBy(env.client, dm, golem.golemKey)
    expect(redeemed.map((r) => periodAt(golem.profile, r.timestamp))).toEqual([start / PERIOD - 8n, start / PERIOD])

    // The new key's grant starts at the next boundary: its first period is staggered too (it is not the
    // Golem's first), and is redeemed once past the offset.
    const next = start + PERIOD
    await advanceTo(next)
    expect((await tick('rot-day-9-early')).redemption).toMatchObject({ reason: 'staggered', redeemAt: next + offset })
    await advanceTo(next + offset)
    expect((await tick('rot-day-9-due')).redemption?.status).toBe('confirmed')
    expect(await redemptionsBy(env.client, dm, due.rotated!.to)).toHaveLength(1)
  })
})
