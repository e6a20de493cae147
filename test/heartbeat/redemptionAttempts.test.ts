// A period's redemption (the runway's, or the gas top-up's) that passed its simulation and reverted once
// mined: the owner moved the tokens or the ETH between the tick's simulation and the block. Its slot is
// completed `failed`, and a completed slot is never claimed again; before attempts, every later tick of
// the period found it so and the Golem got no runway (or no gas) until the next period. Now the
// redemption goes on under the period's next attempt, simulated first like every send, so a cause that
// persists is refused unsigned; once the owner holds the funds again, the next tick redeems under the
// next attempt, and the period's events record one redemption. After MAX_REDEMPTION_ATTEMPTS spent
// attempts the period sends nothing more.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeFunctionData, erc20Abi, parseEther, type Address, type Hex } from 'viem'
import { runTick } from '../../app/tick/runTick.ts'
import type { TickChainClient } from '../../adapters/chain/tickChainClient.ts'
import { GAS_STEP, gasPeriodAt } from '../../core/lifecycle/gasPlan.ts'
import { attemptStep, MAX_REDEMPTION_ATTEMPTS, RUNWAY_STEP } from '../../core/lifecycle/tickPlan.ts'
import type { OwnerAccount } from '../../local/devnet.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import {
  allEvents,
  chainNow,
  passStaggerOffsets,
  periodAt,
  sentCount,
  startHeartbeatEnv,
  usdcBalance,
  type HeartbeatEnv,
} from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'
import { storeWith } from '../support/storeWith.ts'

const STRATEGY =
  '---\nname: runway-retry\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 5\n---\n\nSwap a little USDC into WETH every day.\n'
/** Gas for a redemption whose simulation the stale client passes: enough for a real one. */
const STALE_GAS = 600_000n
const GAS_PER_DAY = parseEther('0.01')
/** Below half a day's gas allowance: the first tick tops the key up from the grant. */
const BOOTSTRAP = parseEther('0.004')
/** Where the owner moves its tokens. */
const PARKED: Address = '0x000000000000000000000000000000000000dEaD'

let env: HeartbeatEnv
const golems = new Map<string, { golem: ProvisionedGolem; owner: OwnerAccount }>()

beforeAll(async () => {
  env = await startHeartbeatEnv()
  for (const golemId of ['retried', 'bounded', 'crashed', 'gas']) {
    const owner = await env.devnet.createOwner()
    const gas = golemId === 'gas' ? { gas: { periodAmount: GAS_PER_DAY, bootstrap: BOOTSTRAP } } : {}
    golems.set(golemId, { owner, golem: await provisionGolemIn(env, golemId, { owner, strategy: STRATEGY, runwayDays: 5, ...gas }) })
  }
  await passStaggerOffsets(env.devnet, [...golems.keys()])
}, 120_000)
afterAll(async () => env?.stop())

const usdc = () => env.devnet.deployment.assets.usdc
const slotOf = (golemId: string, period: bigint, attempt: number, step = RUNWAY_STEP) =>
  env.store.getSlot({ golemId, period, step: attemptStep(step, attempt) })

/** The owner moves every USDC it holds away, as the owner may at any time. */
async function ownerMovesTokensAway(owner: Address): Promise<bigint> {
  const held = await usdcBalance(env.client, usdc(), owner)
  const request = env.client.request as (args: { method: string; params: unknown[] }) => Promise<unknown>
  await request({ method: 'anvil_impersonateAccount', params: [owner] })
  try {
    const hash = (await request({
      method: 'eth_sendTransaction',
      params: [{ from: owner, to: usdc(), data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [PARKED, held] }) }],
    })) as Hex
    expect((await env.client.waitForTransactionReceipt({ hash })).status).toBe('success')
  } finally {
    await request({ method: 'anvil_stopImpersonatingAccount', params: [owner] })
  }
  return held
}

/**
 * The tick's client with its simulation of the runway redemption answered from before the owner moved
 * the tokens: it passes (`times` times), and the signed redemption reverts once mined.
 */
function staleSimulation(times: number): { client: TickChainClient; passed: () => number } {
  const client = env.client as unknown as TickChainClient
  const manager = env.devnet.deployment.environment.DelegationManager.toLowerCase()
  let passed = 0
  return {
    client: {
      ...client,
      estimateGas: (args) => {
        if (args.to?.toLowerCase() !== manager || passed >= times) return client.estimateGas(args)
        passed++
        return Promise.resolve(STALE_GAS)
      },
    },
    passed: () => passed,
  }
}

describe('a runway redemption that reverts once mined', () => {
  it('is redeemed again in the same period under the next attempt, once the owner holds the tokens again', async () => {
    const { golem, owner } = golems.get('retried')!
    const golemId = golem.golemId
    const period = periodAt(golem.profile, await chainNow(env.client))
    const keyBefore = await usdcBalance(env.client, usdc(), golem.golemKey)
    const held = await ownerMovesTokensAway(owner.address)

    const stale = staleSimulation(1)
    const first = await runTick(env.deps('stale', { client: stale.client }), { golemId })
    expect(stale.passed()).toBe(1)
    // The first attempt reverted; the second was simulated against the chain as it is and refused unsent.
    expect(first.redemption).toMatchObject({ status: 'refused' })
    expect(await slotOf(golemId, period, 1)).toMatchObject({ status: 'failed' })
    expect(await slotOf(golemId, period, 2)).toBeNull()
    expect(await sentCount(env.client, golem.golemKey)).toBe(1)
    expect(await usdcBalance(env.client, usdc(), golem.golemKey)).toBe(keyBefore)

    // The owner's tokens are back; a minute later, the same period.
    await env.devnet.mintUsdc(owner.address, held)
    await env.devnet.increaseTime(60)
    expect(periodAt(golem.profile, await chainNow(env.client))).toBe(period)
    const second = await runTick(env.deps('after'), { golemId })
    expect(second.redemption).toMatchObject({ status: 'confirmed' })
    const amount = second.redemption!.amount!
    expect(amount).toBeGreaterThan(0n)
    expect(await usdcBalance(env.client, usdc(), golem.golemKey)).toBe(keyBefore + amount)
    // Signed once for the second attempt: the tick started from it, not from the spent first.
    expect(await sentCount(env.client, golem.golemKey)).toBe(2)
    expect(await slotOf(golemId, period, 2)).toMatchObject({ status: 'sent', txHash: second.redemption!.txHash })
    const redeemed = (await allEvents(env.store, golemId)).filter((e) => e.type === 'RunwayRedeemed')
    expect(redeemed.map((e) => e.data)).toEqual([expect.objectContaining({ txHash: second.redemption!.txHash, period: period.toString() })])

    // The period is redeemed: a later tick of it sends nothing.
    await env.devnet.increaseTime(60)
    const third = await runTick(env.deps('later'), { golemId })
    expect(third.redemption?.status).not.toBe('confirmed')
    expect(await sentCount(env.client, golem.golemKey)).toBe(2)
  })

  it(`sends at most ${MAX_REDEMPTION_ATTEMPTS} attempts in a period, however many revert`, async () => {
    const { golem, owner } = golems.get('bounded')!
    const golemId = golem.golemId
    const period = periodAt(golem.profile, await chainNow(env.client))
    await ownerMovesTokensAway(owner.address)

    const stale = staleSimulation(Number.POSITIVE_INFINITY)
    const first = await runTick(env.deps('stale-1', { client: stale.client }), { golemId })
    expect(first.redemption).toMatchObject({ status: 'failed' })
    expect(stale.passed()).toBe(MAX_REDEMPTION_ATTEMPTS)
    for (let attempt = 1; attempt <= MAX_REDEMPTION_ATTEMPTS; attempt++)
      expect(await slotOf(golemId, period, attempt)).toMatchObject({ status: 'failed' })
    expect(await sentCount(env.client, golem.golemKey)).toBe(MAX_REDEMPTION_ATTEMPTS)

    // The next tick reads the spent attempts once and sends nothing; the one after does not read them again.
    for (const beat of [2, 3]) {
      await env.devnet.increaseTime(60)
      const reads = { slots: 0 }
      const counted = storeWith(env.store, {
        getSlot: (ref) => {
          if (ref.step.startsWith(RUNWAY_STEP)) reads.slots++
          return env.store.getSlot(ref)
        },
      })
      const next = await runTick(env.deps(`stale-${beat}`, { client: stale.client, store: counted }), { golemId })
      expect(next.redemption).toMatchObject({ status: 'attempts-spent', reason: expect.stringContaining('next period') })
      expect(reads.slots).toBe(beat === 2 ? MAX_REDEMPTION_ATTEMPTS : 0)
    }
    expect(stale.passed()).toBe(MAX_REDEMPTION_ATTEMPTS)
    expect(await sentCount(env.client, golem.golemKey)).toBe(MAX_REDEMPTION_ATTEMPTS)
    expect(await slotOf(golemId, period, MAX_REDEMPTION_ATTEMPTS + 1)).toBeNull()
    expect((await env.store.getGolem(golemId))?.lastTick).toMatchObject({ period, outcome: 'attempts-spent' })
  })

  it('whose next attempt landed but whose tick died before its outcome: the next tick settles that attempt and sends nothing', async () => {
    const { golem, owner } = golems.get('crashed')!
    const golemId = golem.golemId
    const period = periodAt(golem.profile, await chainNow(env.client))
    const held = await ownerMovesTokensAway(owner.address)
    const stale = staleSimulation(1)
    await runTick(env.deps('stale', { client: stale.client }), { golemId })
    expect(await slotOf(golemId, period, 1)).toMatchObject({ status: 'failed' })

    // Tokens back; the tick that redeems under the second attempt dies at its outcome write.
    await env.devnet.mintUsdc(owner.address, held)
    await env.devnet.increaseTime(60)
    const dies = storeWith(env.store, {
      updateGolem: (input) =>
        input.patch.lastTick && input.patch.lastTick.outcome !== 'running'
          ? Promise.reject(new Error('worker killed'))
          : env.store.updateGolem(input),
    })
    await expect(runTick(env.deps('dies', { store: dies }), { golemId })).rejects.toThrow('worker killed')
    const landed = await slotOf(golemId, period, 2)
    expect(landed).toMatchObject({ status: 'sent' })
    expect(await sentCount(env.client, golem.golemKey)).toBe(2)

    // Past the dead tick's lease: the second attempt is settled from the chain, recorded once.
    await env.devnet.increaseTime(60)
    const next = await runTick(env.deps('after', { leaseMs: 1 }), { golemId })
    expect(next.redemption).toMatchObject({ status: 'confirmed', txHash: landed!.txHash })
    expect(await sentCount(env.client, golem.golemKey)).toBe(2)
    expect(await slotOf(golemId, period, 2)).toMatchObject({ status: 'confirmed', txHash: landed!.txHash })
    expect(await slotOf(golemId, period, 3)).toBeNull()
    const redeemed = (await allEvents(env.store, golemId)).filter((e) => e.type === 'RunwayRedeemed')
    expect(redeemed.map((e) => e.data.txHash)).toEqual([landed!.txHash])
  })
})

const gasPeriodNow = async (golem: ProvisionedGolem) => gasPeriodAt(golem.profile.gas!, await chainNow(env.client))

describe('a gas top-up that reverts once mined', () => {
  it('tops the key up in the same gas period under the next attempt, once the owner holds the ETH again', async () => {
    const { golem, owner } = golems.get('gas')!
    const golemId = golem.golemId
    const request = env.client.request as (args: { method: string; params: unknown[] }) => Promise<unknown>
    const ownerEth = await env.client.getBalance({ address: owner.address })
    // The owner's ETH is gone after the tick's simulation of the top-up (the first redemption it simulates).
    await request({ method: 'anvil_setBalance', params: [owner.address, '0x0'] })
    const stale = staleSimulation(1)
    const first = await runTick(env.deps('stale', { client: stale.client }), { golemId })
    expect(stale.passed()).toBe(1)
    expect(first.gas).toMatchObject({ status: 'refused' })
    const period = await gasPeriodNow(golem)
    expect(await slotOf(golemId, period, 1, GAS_STEP)).toMatchObject({ status: 'failed' })
    expect(await slotOf(golemId, period, 2, GAS_STEP)).toBeNull()

    await request({ method: 'anvil_setBalance', params: [owner.address, `0x${ownerEth.toString(16)}`] })
    await env.devnet.increaseTime(60)
    expect(await gasPeriodNow(golem)).toBe(period)
    const keyBefore = await env.client.getBalance({ address: golem.golemKey })
    const second = await runTick(env.deps('after'), { golemId })
    expect(second.gas).toMatchObject({ status: 'confirmed', amount: GAS_PER_DAY })
    // Topped up by the period's amount, less what the key paid for the top-up itself.
    const keyAfter = await env.client.getBalance({ address: golem.golemKey })
    expect(keyAfter > keyBefore && keyAfter < keyBefore + GAS_PER_DAY).toBe(true)
    expect(await slotOf(golemId, period, 2, GAS_STEP)).toMatchObject({ status: 'confirmed' })
    const topUps = (await allEvents(env.store, golemId)).filter((e) => e.type === 'GasRedeemed')
    expect(topUps.map((e) => e.data)).toEqual([expect.objectContaining({ amount: GAS_PER_DAY.toString(), period: period.toString() })])
  })
})
