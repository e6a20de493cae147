// A paid credit that was journaled but never reached the profile (the API crashed between the two
// writes, and the payer never replayed the payment) is applied by the first tick of the next period,
// once. Anvil and dynalite.
import type { Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { applyPaymentCredit } from '../../core/lifecycle/applyPaymentCredit.ts'
import { parseGolemProfile } from '../../core/lifecycle/profile.ts'
import { runTick } from '../../app/tick/runTick.ts'
import { DAY, chainNow, startHeartbeatEnv, type HeartbeatEnv } from './harness.ts'
import { storeWith } from '../support/storeWith.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const PRICE = 500_000n
let env: HeartbeatEnv

beforeAll(async () => {
  env = await startHeartbeatEnv()
  await provisionGolemIn(env, 'fed')
})
afterAll(async () => env?.stop())

const runwayEndsAt = async () => parseGolemProfile((await env.store.getGolem('fed'))!.profile).life.runwayEndsAt
const tick = () => runTick(env.deps(undefined, { credits: { runtimeCostPerHour: PRICE } }), { golemId: 'fed' })

describe('a journaled credit lost before the profile', () => {
  it('is applied by the first tick of the next period, and never again', async () => {
    expect((await tick()).outcome).toBe('ticked')
    const payer = env.devnet.deployer.account.address
    const nonce = `0x${'7'.repeat(64)}` as Hex
    const now = Number(await chainNow(env.client)) * 1000
    await env.store.creditPaymentOnce({ payer, nonce, golemId: 'fed', amount: 3n * PRICE, kind: 'extend', now })
    // The API journals the credit, then its profile write fails.
    const crashing = storeWith(env.store, { updateGolem: async () => Promise.reject(new Error('store outage')) })
    await expect(
      applyPaymentCredit(
        { store: crashing, runtimeCostPerHour: PRICE, chainNow: () => chainNow(env.client), sleep: async () => {} },
        'fed',
        { payer, nonce },
      ),
    ).rejects.toThrow('store outage')
    const before = await runwayEndsAt()

    // Same period, a minute later: nothing to repair yet.
    await env.devnet.increaseTime(60)
    expect((await tick()).outcome).toBe('ticked')
    expect(await runwayEndsAt()).toBe(before)

    await env.devnet.increaseTime(DAY)
    expect((await tick()).outcome).toBe('ticked')
    expect(await runwayEndsAt()).toBe(before + 3n * 3600n)

    await env.devnet.increaseTime(DAY)
    expect((await tick()).outcome).toBe('ticked')
    expect(await runwayEndsAt()).toBe(before + 3n * 3600n)
  })
})
