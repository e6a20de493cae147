// POST /api/v1/extend and /feed through the HTTP app on anvil: the real in-process facilitator settles
// EIP-3009 TestUSDC transfers to the operator (submitted by a separate settlement key), the store's
// ledger credits each payment once, and the credit lands in the Golem's profile exactly once, even
// when the profile update races a tick, fails, or is replayed.
import { decodePaymentResponseHeader } from '@x402/core/http'
import { getAddress } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { paymentCreditId } from '../../core/lifecycle/credit.ts'
import { parseGolemProfile } from '../../core/lifecycle/profile.ts'
import { InMemoryStore } from '../../adapters/store/index.ts'
import type { Store } from '../../core/store/index.ts'
import { reconcileCredits } from '../../core/lifecycle/applyPaymentCredit.ts'
import { payWithX402Client, signedHeader } from '../x402.harness.ts'
import { provisionGolem } from '../../local/provision.ts'
import { postJson, PRICING, requirementsOf, startApiStack, STRATEGY, type ApiStack } from './harness.ts'
import { countedStore, storeWith } from '../support/storeWith.ts'

let stack: ApiStack

beforeAll(async () => {
  stack = await startApiStack()
  for (const id of ['atlas', 'mortal', 'hungry', 'racer', 'fragile']) await stack.provision(id)
})
afterAll(async () => stack?.stop())

type Paid = {
  golemId: string
  credit: { kind: string; amount: string; seconds?: string }
  payer: string
  txHash: string
  profile: { applied: boolean; runwayEndsAt: string; seconds?: string; reason?: string }
}

/** Asks without paying (402), then pays what PAYMENT-REQUIRED says with the standard x402 client. */
async function pay(
  app: ReturnType<ApiStack['app']>,
  path: '/api/v1/extend' | '/api/v1/feed',
  body: Record<string, unknown>,
  usdc?: bigint,
) {
  const payer = await stack.newPayer(usdc)
  const ask = await postJson(app, path, body)
  expect(ask.status).toBe(402)
  const requirements = requirementsOf(ask)
  const header = await payWithX402Client(payer, requirements, `http://localhost${path}`)
  return { payer, requirements, header, res: await postJson(app, path, body, { 'payment-signature': header }) }
}

async function paymentEvents(golemId: string) {
  return (await stack.store.listEvents({ golemId, limit: 100 })).events.filter((e) => e.type === 'PaymentCredited')
}

describe('x402 extend and feed through the API on anvil', () => {
  it('extend: a fresh payer pays with a real EIP-3009 authorization; USDC moves to the operator, runway extended once, PAYMENT-RESPONSE present', async () => {
    const app = stack.app()
    const before = await stack.profile('atlas')
    const golemRecordBefore = await stack.store.getGolem('atlas')
    const operatorBefore = await stack.usdcBalance(stack.operator)
    const { payer, requirements, header, res } = await pay(app, '/api/v1/extend', { golemId: 'atlas', hours: 2 })
    expect(requirements).toMatchObject({
      scheme: 'exact',
      amount: '1000000',
      payTo: stack.operator,
      asset: getAddress(stack.devnet.deployment.assets.usdc),
      network: `eip155:${stack.devnet.deployment.chainId}`,
    })

    expect(res.status).toBe(200)
    const body = (await res.json()) as Paid
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!)
    expect(settlement).toMatchObject({ success: true, payer: payer.address, transaction: body.txHash })
    expect(res.headers.get('x-ratelimit-limit')).not.toBeNull()
    expect(body).toMatchObject({
      golemId: 'atlas',
      credit: { kind: 'extend', seconds: '7200', amount: '1000000' },
      profile: { applied: true, seconds: '7200' },
    })

    // The settlement key sent it and paid the gas; the operator received the USDC.
    const receipt = await stack.devnet.publicClient.getTransactionReceipt({ hash: body.txHash as `0x${string}` })
    expect(receipt.from.toLowerCase()).toBe(stack.settlement.address.toLowerCase())
    expect(await stack.usdcBalance(stack.operator)).toBe(operatorBefore + 1_000_000n)
    expect(await stack.usdcBalance(payer.address)).toBe(100_000_000n - 1_000_000n)

    const after = await stack.profile('atlas')
    expect(after.life.runwayEndsAt).toBe(before.life.runwayEndsAt + 7200n)
    expect(after.life.runwayTotalSeconds).toBe(before.life.runwayTotalSeconds)
    expect(after.runway.expiresAt).toBe(before.runway.expiresAt)
    expect(body.profile.runwayEndsAt).toBe(after.life.runwayEndsAt.toString())
    expect(after.credits?.applied.map((c) => c.id)).toEqual([
      paymentCreditId(payer.address, JSON.parse(Buffer.from(header, 'base64').toString()).payload.authorization.nonce),
    ])
    expect(
      await stack.store.getPayment({
        payer: payer.address,
        nonce: JSON.parse(Buffer.from(header, 'base64').toString()).payload.authorization.nonce,
      }),
    ).toMatchObject({ status: 'settled', golemId: 'atlas', kind: 'extend', amount: 1_000_000n })
    expect(await paymentEvents('atlas')).toHaveLength(1)
    expect((await stack.store.getGolem('atlas'))!.version).toBe(golemRecordBefore!.version + 1)

    // Replay: 409 PAYMENT_REPLAYED, no second transfer, no second extension.
    const replay = await postJson(app, '/api/v1/extend', { golemId: 'atlas', hours: 2 }, { 'payment-signature': header })
    expect(replay.status).toBe(409)
    expect(await replay.json()).toMatchObject({ code: 'PAYMENT_REPLAYED' })
    expect(await stack.usdcBalance(payer.address)).toBe(99_000_000n)
    expect((await stack.profile('atlas')).life.runwayEndsAt).toBe(after.life.runwayEndsAt)
    expect(await paymentEvents('atlas')).toHaveLength(1)
    // The replay against another Golem is refused the same way and credits nothing there either.
    const elsewhere = await postJson(app, '/api/v1/extend', { golemId: 'hungry', hours: 2 }, { 'payment-signature': header })
    expect(elsewhere.status).toBe(409)
  })

  it('dying Golem: 503 GOLEM_DYING before any payment is asked or taken; dead: 410', async () => {
    const app = stack.app()
    const record = (await stack.store.getGolem('mortal'))!
    const payer = await stack.newPayer()
    // A valid payment for the price, signed before the Golem started dying.
    const requirements = requirementsOf(await postJson(app, '/api/v1/extend', { golemId: 'mortal', hours: 1 }))
    const header = await signedHeader(payer, requirements)
    await stack.store.updateGolem({
      golemId: 'mortal',
      expectedVersion: record.version,
      patch: { status: 'dying' },
      now: record.updatedAt + 1,
    })
    const profileBefore = await stack.profile('mortal')
    for (const [path, body] of [
      ['/api/v1/extend', { golemId: 'mortal', hours: 1 }],
      ['/api/v1/feed', { golemId: 'mortal' }],
    ] as const) {
      const res = await postJson(app, path, body, { 'payment-signature': header })
      expect(res.status, path).toBe(503)
      expect(await res.json()).toMatchObject({ code: 'GOLEM_DYING' })
      expect(res.headers.get('payment-required')).toBeNull()
    }
    expect(await stack.usdcBalance(payer.address)).toBe(100_000_000n)
    expect(
      await stack.store.getPayment({
        payer: payer.address,
        nonce: JSON.parse(Buffer.from(header, 'base64').toString()).payload.authorization.nonce,
      }),
    ).toBeNull()
    expect((await stack.profile('mortal')).life).toEqual(profileBefore.life)
    const dying = (await stack.store.getGolem('mortal'))!
    await stack.store.updateGolem({
      golemId: 'mortal',
      expectedVersion: dying.version,
      patch: { status: 'dead' },
      now: dying.updatedAt + 1,
    })
    const dead = await postJson(app, '/api/v1/feed', { golemId: 'mortal' }, { 'payment-signature': header })
    expect(dead.status).toBe(410)
    expect(await stack.usdcBalance(payer.address)).toBe(100_000_000n)
  })

  it('feed: at least the death reserve; runway extended at the runtime rate and a reprieve requested for the tick', async () => {
    const app = stack.app()
    const before = await stack.profile('hungry')
    const { payer, res } = await pay(app, '/api/v1/feed', { golemId: 'hungry' })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({
      credit: { kind: 'feed', amount: '5000000' },
      profile: { applied: true, seconds: '36000', reprieveRequested: true },
    })
    const after = await stack.profile('hungry')
    expect(after.life.runwayEndsAt).toBe(before.life.runwayEndsAt + 36_000n)
    expect(after.reprieve).toMatchObject({ amount: 5_000_000n, payer: payer.address })
    expect(after.reprieve!.requestedAt).toBeGreaterThan(0n)
    // Underpaying the feed is refused before anything is claimed.
    const cheap = await stack.newPayer()
    const requirements = requirementsOf(await postJson(app, '/api/v1/feed', { golemId: 'hungry' }))
    const low = await postJson(
      app,
      '/api/v1/feed',
      { golemId: 'hungry' },
      { 'payment-signature': await signedHeader(cheap, requirements, { value: 4_999_999n }) },
    )
    expect(low.status).toBe(402)
    expect(await low.json()).toMatchObject({ code: 'PAYMENT_UNDERPAID' })
    expect((await stack.profile('hungry')).reprieve).toEqual(after.reprieve)
  })

  it('credits concurrent payments from different payers to one Golem each exactly once (compare-and-swap retries)', async () => {
    const app = stack.app()
    const before = await stack.profile('racer')
    const requirements = requirementsOf(await postJson(app, '/api/v1/extend', { golemId: 'racer', hours: 1 }))
    const payers = await Promise.all(Array.from({ length: 4 }, () => stack.newPayer()))
    const headers = await Promise.all(payers.map((p) => signedHeader(p, requirements)))
    // The same header twice as well: one of those two is refused.
    const results = await Promise.all(
      [...headers, headers[0]!].map((h) => postJson(app, '/api/v1/extend', { golemId: 'racer', hours: 1 }, { 'payment-signature': h })),
    )
    const statuses = results.map((r) => r.status)
    expect(statuses.filter((s) => s === 200)).toHaveLength(4)
    expect(statuses.filter((s) => s === 409)).toHaveLength(1)
    expect((await stack.profile('racer')).life.runwayEndsAt).toBe(before.life.runwayEndsAt + 4n * 3600n)
    expect(await paymentEvents('racer')).toHaveLength(4)
  })
})

describe('one direction for a payment', () => {
  it('credits the payment it just recorded without reading it back, and reads the Golem once to apply it', async () => {
    const counts: Record<string, number> = {}
    const counted = countedStore(stack.store, counts)
    const { res } = await pay(stack.app({ store: counted }), '/api/v1/extend', { golemId: 'atlas', hours: 1 })
    expect(res.status).toBe(200)
    expect(counts.getPayment ?? 0).toBe(0)
    expect(counts.creditPaymentOnce).toBe(1)
    expect(counts.updateGolem).toBe(1)
  })
})

describe('exactly once when the profile update is retried or interrupted', () => {
  /** A store whose updateGolem runs `before` first on the calls it selects (a racing tick, an outage). */
  function interfering(store: Store, before: (call: number) => Promise<void>): Store {
    let calls = 0
    return storeWith(store, {
      updateGolem: async (input) => {
        await before(++calls)
        return store.updateGolem(input)
      },
    })
  }

  it('a tick writing the Golem between read and write: the credit retries on the version conflict and applies once', async () => {
    const base = stack.store
    const store = interfering(base, async (call) => {
      if (call > 2) return
      // A tick bumps the version (lastTick) right before each of the first two credit writes.
      const g = (await base.getGolem('fragile'))!
      await base.updateGolem({
        golemId: 'fragile',
        expectedVersion: g.version,
        patch: { nextTickAt: g.nextTickAt + 1 },
        now: g.updatedAt + 1,
      })
    })
    const app = stack.app({ store })
    const before = await stack.profile('fragile')
    const nextTickBefore = (await base.getGolem('fragile'))!.nextTickAt
    const { res } = await pay(app, '/api/v1/extend', { golemId: 'fragile', hours: 1 })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ profile: { applied: true } })
    const after = await stack.profile('fragile')
    expect(after.life.runwayEndsAt).toBe(before.life.runwayEndsAt + 3600n)
    expect(after.credits!.applied).toHaveLength(1)
    // The tick's own writes survived too: the credit re-read the record each time instead of overwriting it.
    expect((await base.getGolem('fragile'))!.nextTickAt).toBe(nextTickBefore + 2)
  })

  it('an update that fails after the ledger credited: 200 with the profile pending, then the replay repairs it once; reconcile finds nothing left', async () => {
    const local = await startApiStackOnSameChain()
    const failing = interfering(local.store, async (call) => {
      if (call === 1) throw new Error('store outage')
    })
    const app = stack.app({ store: failing })
    const before = await local.profile('phoenix')
    const { header, res } = await pay(app, '/api/v1/extend', { golemId: 'phoenix', hours: 3 })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ profile: { applied: false, reason: 'pending' } })
    expect((await local.profile('phoenix')).life.runwayEndsAt).toBe(before.life.runwayEndsAt)
    expect(stack.unexpected.some((e) => e instanceof Error && e.message === 'store outage')).toBe(true)

    // The payer (or a client retrying) sends the same payment again: 409, and the credit is applied now.
    for (let i = 0; i < 3; i++) {
      const replay = await postJson(app, '/api/v1/extend', { golemId: 'phoenix', hours: 3 }, { 'payment-signature': header })
      expect(replay.status).toBe(409)
    }
    const repaired = await local.profile('phoenix')
    expect(repaired.life.runwayEndsAt).toBe(before.life.runwayEndsAt + 3n * 3600n)
    expect(repaired.credits!.applied).toHaveLength(1)
    const credit = { store: local.store, runtimeCostPerHour: PRICING.runtimeCostPerHour, chainNow: async () => 0n }
    expect(await reconcileCredits(credit, 'phoenix', 0)).toEqual({ checked: 1, applied: 0 })
    expect((await local.profile('phoenix')).life.runwayEndsAt).toBe(repaired.life.runwayEndsAt)
  })

  it("crash then replay through the API: recording fails after settlement (503), the lease lapses, the payment presented for another Golem is 409 PAYMENT_BOUND_ELSEWHERE; the payer's retry is credited to its Golem", async () => {
    const local = await startApiStackOnSameChain()
    await provisionGolem({
      clients: stack.devnet,
      deployment: stack.devnet.deployment,
      store: local.store,
      signers: stack.signers,
      owner: stack.owner,
      golemId: 'thief',
      strategy: STRATEGY,
      runwayDays: 30,
      periodAmount: 10_000_000n,
    })
    let failures = 1
    const crashing = new Proxy(local.store, {
      get(target, prop, receiver) {
        if (prop === 'creditPaymentOnce') {
          return async (input: Parameters<Store['creditPaymentOnce']>[0]) => {
            if (failures-- > 0) throw new Error('store outage')
            return target.creditPaymentOnce(input)
          }
        }
        const value = Reflect.get(target, prop, receiver) as unknown
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
      },
    })
    let now = Date.now()
    const app = stack.app({ store: crashing, clock: { now: () => now } })
    const phoenixBefore = await local.profile('phoenix')
    const thiefBefore = await local.profile('thief')
    const { header, res } = await pay(app, '/api/v1/extend', { golemId: 'phoenix', hours: 2 })
    expect(res.status).toBe(503)
    expect(await res.json()).toMatchObject({ code: 'PAYMENT_SETTLEMENT_PENDING' })

    now += 5 * 60_000 + 1 // the claim's lease lapsed
    const attack = await postJson(app, '/api/v1/extend', { golemId: 'thief', hours: 2 }, { 'payment-signature': header })
    expect(attack.status).toBe(409)
    expect(await attack.json()).toMatchObject({ code: 'PAYMENT_BOUND_ELSEWHERE', message: expect.stringMatching(/^golemId: /) })
    expect((await local.profile('thief')).life.runwayEndsAt).toBe(thiefBefore.life.runwayEndsAt)

    const retry = await postJson(app, '/api/v1/extend', { golemId: 'phoenix', hours: 2 }, { 'payment-signature': header })
    expect(retry.status).toBe(200)
    expect(await retry.json()).toMatchObject({ golemId: 'phoenix', reconciled: true, profile: { applied: true, seconds: '7200' } })
    expect((await local.profile('phoenix')).life.runwayEndsAt).toBe(phoenixBefore.life.runwayEndsAt + 7200n)
    expect((await local.profile('thief')).life.runwayEndsAt).toBe(thiefBefore.life.runwayEndsAt)
  })

  it('reconcileCredits applies a journaled credit that never reached the profile, once', async () => {
    const local = await startApiStackOnSameChain()
    const failing = interfering(local.store, async () => {
      throw new Error('store outage')
    })
    const before = await local.profile('phoenix')
    const { res } = await pay(stack.app({ store: failing }), '/api/v1/feed', { golemId: 'phoenix' })
    expect(res.status).toBe(200)
    expect((await local.profile('phoenix')).reprieve).toBeUndefined()
    const credit = {
      store: local.store,
      runtimeCostPerHour: PRICING.runtimeCostPerHour,
      chainNow: async () => (await stack.devnet.publicClient.getBlock()).timestamp,
    }
    expect(await reconcileCredits(credit, 'phoenix', 0)).toEqual({ checked: 1, applied: 1 })
    expect(await reconcileCredits(credit, 'phoenix', 0)).toEqual({ checked: 1, applied: 0 })
    const after = await local.profile('phoenix')
    expect(after.life.runwayEndsAt).toBe(before.life.runwayEndsAt + 36_000n)
    expect(after.reprieve?.amount).toBe(5_000_000n)
  })
})

/** A second store on the same chain with one fresh Golem 'phoenix' (so a broken store harms no other test). */
async function startApiStackOnSameChain() {
  const store = new InMemoryStore()
  await provisionGolem({
    clients: stack.devnet,
    deployment: stack.devnet.deployment,
    store,
    signers: stack.signers,
    owner: stack.owner,
    golemId: 'phoenix',
    strategy: STRATEGY,
    runwayDays: 30,
    periodAmount: 10_000_000n,
  })
  return { store, profile: async (id: string) => parseGolemProfile((await store.getGolem(id))!.profile) }
}
