// The Golem's self-extension when its settlement is reorged out, on anvil with the API at a
// confirmation depth of 3 blocks (the tick's own sends stay final at one block). The API settles the
// Golem's payment and journals it confirming: no runtime yet. The settlement's block is replaced by an
// empty one; the next tick advances the confirming credit: gone, the authorization unused and still
// valid, so the API's recorded signed settlement is broadcast again (same hash), and the tick buys
// nothing new for the same TTL. Once 3 blocks deep, a tick applies the credit: the TTL is extended
// once, and the Golem's key paid the operator once.
import { parseEther, type Address, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PaymentPolicy } from '../../core/custody/paymentPolicy.ts'
import { parseGolemProfile } from '../../core/lifecycle/profile.ts'
import { DEFAULT_PRICING } from '../../functions/api/local.ts'
import type { RunningApi } from '../../functions/api/server.ts'
import { runTick } from '../../app/tick/runTick.ts'
import { startSelfExtensionStand } from './selfExtensionStand.ts'
import type { TickDeps } from '../../app/tick/types.ts'
import { chainCreditStanding } from '../../adapters/x402/creditStanding.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import { allEvents, USDC, startHeartbeatEnv, usdcTransfersFrom, type HeartbeatEnv } from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY = '---\nname: reorg-payer\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 1\n---\n\nSwap a little USDC.\n'
const HOUR_PRICE = DEFAULT_PRICING.runtimeCostPerHour
const BEAT_S = 300
const DEPTH = 3

let env: HeartbeatEnv
let api: RunningApi
let operator: Address
let payments: PaymentPolicy
const rpc = (method: string, params: unknown[] = []) => env.client.request({ method: method as never, params: params as never })

function deps(id: string): TickDeps {
  return env.deps(id, {
    tickIntervalSeconds: BEAT_S,
    selfExtension: { apiUrl: api.url, runtimeCostPerHour: HOUR_PRICE, payments },
    credits: {
      runtimeCostPerHour: HOUR_PRICE,
      standing: chainCreditStanding({
        client: env.devnet.publicClient,
        asset: env.devnet.deployment.assets.usdc,
        depth: DEPTH,
        findSettlement: async () => null,
      }),
    },
  })
}

const ttlOf = async (golemId: string) => parseGolemProfile((await env.store.getGolem(golemId))!.profile).life.runwayEndsAt
const paidToOperator = async (from: Address) =>
  (await usdcTransfersFrom(env.client, env.devnet.deployment.assets.usdc, from)).filter(
    (t) => t.to.toLowerCase() === operator.toLowerCase(),
  )

beforeAll(async () => {
  env = await startHeartbeatEnv()
  ;({ api, operator, payments } = await startSelfExtensionStand(env, { confirmations: { 31337: DEPTH } }))
}, 120_000)
afterAll(async () => {
  await api?.close()
  await env?.stop()
})

describe('a self-extension whose settlement is reorged out', () => {
  let golem: ProvisionedGolem

  it('is sent again from its signed bytes, credited once when deep: money moved once, TTL extended once', async () => {
    const owner = await env.devnet.createOwner()
    golem = await provisionGolemIn(env, 'reorg-payer', {
      owner,
      strategy: STRATEGY,
      lifeSeconds: 600n,
      periodSeconds: 3600n,
      periodAmount: USDC(3),
      gas: { periodAmount: parseEther('0.01'), bootstrap: parseEther('0.01') },
    })
    const before = await ttlOf('reorg-payer')
    const first = await runTick(deps('reorg-payer-1'), { golemId: 'reorg-payer' })
    expect(first.selfExtension).toMatchObject({ status: 'confirmed', hours: 1, amount: HOUR_PRICE })
    // Settled one block deep: confirming, no runtime yet.
    expect(await ttlOf('reorg-payer')).toBe(before)
    const confirming = (await allEvents(env.store, 'reorg-payer')).filter((e) => e.type === 'PaymentConfirming')
    expect(confirming).toHaveLength(1)
    const txHash = confirming[0]!.data.txHash as Hex
    const { blockNumber } = await env.client.getTransactionReceipt({ hash: txHash })
    expect(await env.client.getBlockNumber({ cacheTime: 0 })).toBe(blockNumber)
    expect((await paidToOperator(golem.golemKey)).map((t) => t.value)).toEqual([HOUR_PRICE])

    // The settlement's block is replaced by an empty one: the payment is gone from the chain.
    await rpc('anvil_reorg', [1, []])
    expect(await paidToOperator(golem.golemKey)).toEqual([])

    // The next tick advances the confirming credit: the same signed settlement, broadcast again.
    const second = await runTick(deps('reorg-payer-2'), { golemId: 'reorg-payer' })
    expect(second.selfExtension?.status).not.toBe('confirmed')
    expect((await env.client.waitForTransactionReceipt({ hash: txHash })).status).toBe('success')
    expect((await paidToOperator(golem.golemKey)).map((t) => t.value)).toEqual([HOUR_PRICE])
    expect(await ttlOf('reorg-payer')).toBe(before)

    // Three blocks deep: the next tick applies the credit, once.
    const again = await env.client.getTransactionReceipt({ hash: txHash })
    const head = await env.client.getBlockNumber({ cacheTime: 0 })
    const missing = again.blockNumber + BigInt(DEPTH - 1) - head
    if (missing > 0n) await rpc('anvil_mine', [`0x${missing.toString(16)}`])
    await runTick(deps('reorg-payer-3'), { golemId: 'reorg-payer' })
    expect(await ttlOf('reorg-payer')).toBe(before + 3600n)
    await runTick(deps('reorg-payer-4'), { golemId: 'reorg-payer' })
    expect(await ttlOf('reorg-payer')).toBe(before + 3600n)
    const events = await allEvents(env.store, 'reorg-payer')
    expect(events.filter((e) => e.type === 'PaymentCredited').map((e) => e.data.txHash)).toEqual([txHash])
    expect(events.filter((e) => e.type === 'RuntimeBought')).toHaveLength(1)
    expect((await paidToOperator(golem.golemKey)).map((t) => t.value)).toEqual([HOUR_PRICE])
  }, 180_000)
})
