// The Golem pays its own way, on anvil through the real DelegationManager and the real API app: the
// tick redeems its runway to the session key, then buys its TTL from POST /api/v1/extend with an x402
// v2 payment its key signs through the GolemSigner. Chain time stays near the wall clock here (x402
// signs validity windows with it), so the beats are long instead of time being moved far.
import { parseEther, type Address, type PublicClient } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { paymentPeriod, type PaymentPolicy } from '../../core/custody/paymentPolicy.ts'
import { parseGolemProfile } from '../../core/lifecycle/profile.ts'
import { Phase } from '../../core/lifecycle/phase.ts'
import { DEFAULT_PRICING } from '../../functions/api/local.ts'
import type { RunningApi } from '../../functions/api/server.ts'
import { paymentBudgetId } from '../../app/tick/paymentBudget.ts'
import { runTick } from '../../app/tick/runTick.ts'
import { startSelfExtensionStand } from './selfExtensionStand.ts'
import { selfExtend, RUNTIME_BOUGHT_EVENT } from '../../app/tick/selfExtend.ts'
import type { SelfExtensionConfig } from '../../app/tick/types.ts'
import { slotBaseOf } from '../../app/tick/slots.ts'
import type { TickDeps } from '../../app/tick/types.ts'
import { devnetAccount } from '../../local/devnet.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import { allEvents, USDC, passStaggerOffsets, startHeartbeatEnv, usdcBalance, usdcTransfersFrom, type HeartbeatEnv } from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY = '---\nname: paying-golem\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 1\n---\n\nSwap a little USDC.\n'
const HOUR_PRICE = DEFAULT_PRICING.runtimeCostPerHour
/** Five-minute beats: a ten-minute life is within the three beats and the margin ahead, so it is due. */
const BEAT_S = 300

let env: HeartbeatEnv
let api: RunningApi
let operator: Address
let payments: PaymentPolicy

function selfExtension(o: Partial<PaymentPolicy> = {}): SelfExtensionConfig {
  return { apiUrl: api.url, runtimeCostPerHour: HOUR_PRICE, payments: { ...payments, ...o } }
}

function deps(id: string, o: Partial<PaymentPolicy> = {}): TickDeps {
  return env.deps(id, { tickIntervalSeconds: BEAT_S, selfExtension: selfExtension(o) })
}

async function provision(golemId: string, lifeSeconds: bigint): Promise<ProvisionedGolem> {
  const owner = await env.devnet.createOwner()
  return provisionGolemIn(env, golemId, {
    owner,
    strategy: STRATEGY,
    lifeSeconds,
    periodSeconds: 3600n,
    periodAmount: USDC(3),
    gas: { periodAmount: parseEther('0.01'), bootstrap: parseEther('0.01') },
  })
}

const ttlOf = async (golemId: string) => parseGolemProfile((await env.store.getGolem(golemId))!.profile).life.runwayEndsAt
const paidToOperator = async (from: Address) =>
  (await usdcTransfersFrom(env.client, env.devnet.deployment.assets.usdc, from)).filter(
    (t) => t.to.toLowerCase() === operator.toLowerCase(),
  )

beforeAll(async () => {
  env = await startHeartbeatEnv()
  const stand = await startSelfExtensionStand(env)
  ;({ api, operator, payments } = stand)
})
afterAll(async () => {
  await api?.close()
  await env?.stop()
})

describe('self-extension through the real API', () => {
  let golem: ProvisionedGolem

  it('buys its TTL when due: redeems its runway, pays one hour to the platform from its key, and the API credits it', async () => {
    golem = await provision('payer', 600n)
    const before = await ttlOf('payer')
    const result = await runTick(deps('payer-1'), { golemId: 'payer' })
    expect(result.redemption?.status).toBe('confirmed')
    expect(result.selfExtension).toMatchObject({ status: 'confirmed', hours: 1, amount: HOUR_PRICE })
    const paid = await paidToOperator(golem.golemKey)
    expect(paid.map((t) => t.value)).toEqual([HOUR_PRICE])
    // The credit starts from the TTL (still ahead), so it lands exactly one hour later.
    expect(await ttlOf('payer')).toBe(before + 3600n)
    expect(result.selfExtension?.runwayEndsAt).toBe(before + 3600n)
    const bought = (await allEvents(env.store, 'payer')).filter((e) => e.type === RUNTIME_BOUGHT_EVENT)
    expect(bought).toHaveLength(1)
    expect(bought[0]!.data).toMatchObject({ amount: HOUR_PRICE.toString(), hours: 1 })
    const slot = await env.store.getSlot({ golemId: 'payer', period: before, step: 'extend' })
    expect(slot).toMatchObject({ status: 'confirmed', claims: 1 })
    const metabolism = (await (await fetch(`${api.url}/api/v1/golems/payer/metabolism`)).json()) as { totals: Record<string, string> }
    expect(metabolism.totals).toMatchObject({ runtimeBought: HOUR_PRICE.toString(), runwayRedeemed: result.redemption!.amount!.toString() })
  })

  it('does not buy when the TTL is ahead of the next beats', async () => {
    const result = await runTick(deps('payer-2'), { golemId: 'payer' })
    expect(result.selfExtension).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/ahead of the horizon/) })
    expect(await paidToOperator(golem.golemKey)).toHaveLength(1)
  })

  it('keeps the spent-this-period in the store: a new process sees it and refuses (no payment) over the bound', async () => {
    const budget = await env.store.getBudget(paymentBudgetId('payer'), paymentPeriod(payments, BigInt(Math.floor(Date.now() / 1000))))
    expect(budget).toMatchObject({ spent: HOUR_PRICE, reserved: 0n })
    // A fresh process: new deps, a per-period bound of what was already spent plus less than an hour.
    const fresh = env.deps('payer-fresh', {
      tickIntervalSeconds: 3 * 3600,
      selfExtension: selfExtension({ maxPerPeriod: HOUR_PRICE + HOUR_PRICE / 2n }),
    })
    // The key spent what it redeemed (just-in-time runway: one period's runtime); someone sends it more, so
    // the bound, not the money, is what refuses.
    await env.devnet.mintUsdc(golem.golemKey, HOUR_PRICE * 2n)
    const balance = await usdcBalance(env.client, env.devnet.deployment.assets.usdc, golem.golemKey)
    const result = await runTick(fresh, { golemId: 'payer' })
    expect(result.selfExtension).toMatchObject({
      status: 'refused',
      reason: expect.stringMatching(/per-period bound \(750000, 500000 already authorized\): no payment/),
    })
    expect(await paidToOperator(golem.golemKey)).toHaveLength(1)
    expect(await usdcBalance(env.client, env.devnet.deployment.assets.usdc, golem.golemKey)).toBe(balance)
  })

  it('refuses (no payment, no slot) when one hour exceeds the per-payment bound', async () => {
    const small = await provision('small', 600n)
    const result = await runTick(deps('small-1', { maxPerPayment: HOUR_PRICE - 1n }), { golemId: 'small' })
    expect(result.selfExtension).toMatchObject({ status: 'refused', reason: expect.stringMatching(/per-payment bound/) })
    expect(await paidToOperator(small.golemKey)).toEqual([])
    expect(await env.store.getSlot({ golemId: 'small', period: small.profile.life.runwayEndsAt, step: 'extend' })).toBeNull()
  })

  it('never pays a payee the API names that is not configured: nothing is signed, paid or left reserved', async () => {
    const stranger = await provision('stranger', 600n)
    const result = await runTick(deps('stranger-1', {}), { golemId: 'stranger' })
    expect(result.selfExtension?.status).toBe('confirmed')
    // Now the configured payee is someone else than the API's payTo, and the key holds money to pay with.
    await env.devnet.mintUsdc(stranger.golemKey, HOUR_PRICE * 2n)
    const other = devnetAccount(7).address
    const again = await selfExtend(
      { ...env.deps('stranger-2'), selfExtension: selfExtension({ payees: [other] }) },
      slotBaseOf(env.deps('stranger-2'), Date.now()),
      'stranger',
      { ...parseGolemProfile((await env.store.getGolem('stranger'))!.profile), life: { ...stranger.profile.life, runwayEndsAt: 0n } },
      { now: BigInt(Math.floor(Date.now() / 1000)), phase: Phase.Thriving, dying: false, beatSeconds: 300n },
    )
    expect(again).toMatchObject({ status: 'refused', reason: expect.stringMatching(/configured payee/) })
    expect(await paidToOperator(stranger.golemKey)).toHaveLength(1)
    const budget = await env.store.getBudget(paymentBudgetId('stranger'), paymentPeriod(payments, BigInt(Math.floor(Date.now() / 1000))))
    expect(budget).toMatchObject({ spent: HOUR_PRICE, reserved: 0n })
    expect(await env.store.getSlot({ golemId: 'stranger', period: 0n, step: 'extend' })).toMatchObject({ status: 'claimed' })
  })
})

describe('exactly once under duplicate deliveries', () => {
  it('three concurrent deliveries of one decision and a late one pay once', async () => {
    const dup = await provision('dup', 600n)
    // The runway first, so the key holds USDC; this tick's own self-extension is switched off.
    const first = await runTick(env.deps('dup-0', { tickIntervalSeconds: BEAT_S }), { golemId: 'dup' })
    expect(first.redemption?.status).toBe('confirmed')
    const profile = parseGolemProfile((await env.store.getGolem('dup'))!.profile)
    const now = (await (env.client as PublicClient).getBlock()).timestamp
    const at = { now, phase: Phase.Thriving, dying: false, beatSeconds: BigInt(BEAT_S) }
    const once = (id: string) => {
      const d = deps(id)
      return selfExtend({ ...d, selfExtension: d.selfExtension! }, slotBaseOf(d, Number(now) * 1000), 'dup', profile, at)
    }
    const results = await Promise.all([once('dup-a'), once('dup-b'), once('dup-c')])
    // One delivery pays. What the others answer depends on how far it got when they looked: claimed by
    // another (busy), or already sent, when they re-send the same payment header and the API, which
    // settles a header once, answers for the one payment (pending or confirmed). The money says once.
    const statuses = results.map((r) => r.status)
    const shown = JSON.stringify(results, (_k, v) => (typeof v === 'bigint' ? String(v) : v))
    expect(statuses, shown).toContain('confirmed')
    expect(
      statuses.filter((s) => !['busy', 'pending', 'confirmed'].includes(s)),
      shown,
    ).toEqual([])
    // A late copy with the stale profile: the decision's slot is completed.
    expect(await once('dup-late')).toMatchObject({ status: 'busy', reason: 'completed' })
    expect((await paidToOperator(dup.golemKey)).map((t) => t.value)).toEqual([HOUR_PRICE])
    expect(await ttlOf('dup')).toBe(profile.life.runwayEndsAt + 3600n)
    // Tick deliveries after it read the credited TTL: nothing is due.
    const later = await Promise.all([runTick(deps('dup-t1'), { golemId: 'dup' }), runTick(deps('dup-t2'), { golemId: 'dup' })])
    expect(later.map((r) => r.selfExtension?.status ?? r.outcome).sort()).toEqual(['busy', 'skipped'])
    expect(await paidToOperator(dup.golemKey)).toHaveLength(1)
  })
})

describe('a crash after the payment is sent and before its answer is recorded', () => {
  it('the next tick re-sends the same payment: credited once, paid once, recorded once', async () => {
    const crash = await provision('crash', 600n)
    const before = await ttlOf('crash')
    const crashing = env.deps('crash-1', {
      tickIntervalSeconds: BEAT_S,
      selfExtension: selfExtension(),
      afterBroadcast: (step) => {
        if (step === 'extend') throw new Error('worker killed')
      },
    })
    await expect(runTick(crashing, { golemId: 'crash' })).rejects.toThrow('worker killed')
    // The API credited it; the tick never recorded the answer.
    expect(await ttlOf('crash')).toBe(before + 3600n)
    expect(await env.store.getSlot({ golemId: 'crash', period: before, step: 'extend' })).toMatchObject({ status: 'sent' })
    expect((await allEvents(env.store, 'crash')).filter((e) => e.type === RUNTIME_BOUGHT_EVENT)).toEqual([])

    await env.devnet.increaseTime(2)
    const retry = await runTick(env.deps('crash-2', { tickIntervalSeconds: BEAT_S, selfExtension: selfExtension(), leaseMs: 1 }), {
      golemId: 'crash',
    })
    expect(retry.outcome).toBe('ticked')
    expect(retry.selfExtension?.status).toBe('skipped')
    expect(await env.store.getSlot({ golemId: 'crash', period: before, step: 'extend' })).toMatchObject({ status: 'confirmed', claims: 1 })
    expect((await allEvents(env.store, 'crash')).filter((e) => e.type === RUNTIME_BOUGHT_EVENT)).toHaveLength(1)
    expect((await paidToOperator(crash.golemKey)).map((t) => t.value)).toEqual([HOUR_PRICE])
    expect(await ttlOf('crash')).toBe(before + 3600n)
    const budget = await env.store.getBudget(paymentBudgetId('crash'), paymentPeriod(payments, BigInt(Math.floor(Date.now() / 1000))))
    expect(budget).toMatchObject({ spent: HOUR_PRICE, reserved: 0n })
  })
})

describe('the whole-life ledger with self-extension', () => {
  it('owner before = owner after + paid to the platform; the key ends at 0 USDC', async () => {
    const owner = await env.devnet.createOwner()
    const usdc = env.devnet.deployment.assets.usdc
    const start = await usdcBalance(env.client, usdc, owner.address)
    const life = await provisionGolemIn(env, 'whole', {
      owner,
      strategy: STRATEGY,
      lifeSeconds: 240n,
      periodSeconds: 60n,
      periodAmount: USDC(1),
      // Below half the allowance: the first tick tops the key up from the grant.
      gas: { periodAmount: parseEther('0.01'), bootstrap: parseEther('0.001') },
    })
    // Each later tick falls past the Golem's stagger offset into its period, so the key's runway is topped
    // up again once its first hour of runtime is bought (the journal then spans several periods).
    await passStaggerOffsets(env.devnet, ['whole'], 60n)
    const results = []
    for (let beat = 0; beat < 20; beat++) {
      results.push(
        await runTick(env.deps(`whole-${beat}`, { tickIntervalSeconds: 60, selfExtension: selfExtension() }), { golemId: 'whole' }),
      )
      if ((await env.store.getGolem('whole'))?.status === 'dead') break
      await env.devnet.increaseTime(60)
    }
    expect(results.at(-1)!.outcome).toBe('died')
    const bought = results.filter((r) => r.selfExtension?.status === 'confirmed')
    expect(bought.length).toBeGreaterThan(0)
    const paid = (await paidToOperator(life.golemKey)).reduce((a, t) => a + t.value, 0n)
    expect(paid).toBe(bought.reduce((a, r) => a + r.selfExtension!.amount!, 0n))
    expect(await usdcBalance(env.client, usdc, life.golemKey)).toBe(0n)
    expect(await usdcBalance(env.client, usdc, owner.address)).toBe(start - paid)

    // The metabolism, from the journal through the API: runtime bought, gas redeemed, runway redeemed.
    const redeemed = results.reduce((a, r) => a + (r.redemption?.status === 'confirmed' ? r.redemption.amount! : 0n), 0n)
    const res = await fetch(`${api.url}/api/v1/golems/whole/metabolism`)
    expect(res.status).toBe(200)
    const body = (await res.json()) as { totals: Record<string, string>; periods: unknown[]; held: string }
    expect(body.totals).toEqual({
      runwayRedeemed: redeemed.toString(),
      runtimeBought: paid.toString(),
      gasRedeemed: parseEther('0.01').toString(),
    })
    expect(body.periods.length).toBeGreaterThan(1)
    expect(BigInt(body.held)).toBe(redeemed - paid)
  })
})
