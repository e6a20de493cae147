// The Golem pays its runtime by delegation from its owner's grant, on anvil through the real
// DelegationManager and the real API: no runway is redeemed to its key; each payment is a delegation
// under its runway grant built by MetaMask's kit and signed through the GolemSigner, that only the API's
// settlement account may redeem, for one transfer from the owner's account to the platform. The key
// never holds runtime money, over a whole life.
import { decodePaymentSignatureHeader } from '@x402/core/http'
import { erc20Abi, getAbiItem, hexToString, parseEther, type Address, type PublicClient } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PaymentPolicy } from '../../core/custody/paymentPolicy.ts'
import { parseGolemProfile } from '../../core/lifecycle/profile.ts'
import { DEFAULT_PRICING } from '../../functions/api/local.ts'
import type { RunningApi } from '../../functions/api/server.ts'
import { startSelfExtensionStand } from './selfExtensionStand.ts'
import { runtimeByDelegation } from '../../app/tick/paymentByDelegation.ts'
import { runTick } from '../../app/tick/runTick.ts'
import { RUNTIME_BOUGHT_EVENT } from '../../app/tick/selfExtend.ts'
import type { SelfExtensionConfig, TickDeps } from '../../app/tick/types.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import { allEvents, USDC, passStaggerOffsets, startHeartbeatEnv, usdcBalance, usdcTransfersFrom, type HeartbeatEnv } from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY = '---\nname: paying-golem\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 1\n---\n\nSwap a little USDC.\n'
const HOUR_PRICE = DEFAULT_PRICING.runtimeCostPerHour
const BEAT_S = 300

let env: HeartbeatEnv
let api: RunningApi
let operator: Address
let payments: PaymentPolicy
let settlement: Address

function selfExtension(o: Partial<PaymentPolicy> = {}): SelfExtensionConfig {
  return {
    apiUrl: api.url,
    runtimeCostPerHour: HOUR_PRICE,
    payments: { ...payments, ...o },
    byDelegation: runtimeByDelegation(env.devnet.deployment.environment, [settlement]),
  }
}

const deps = (id: string, o: Partial<PaymentPolicy> = {}, beat = BEAT_S): TickDeps =>
  env.deps(id, { tickIntervalSeconds: beat, selfExtension: selfExtension(o) })

async function provision(golemId: string, lifeSeconds: bigint, periodSeconds = 3600n): Promise<ProvisionedGolem & { owner: Address }> {
  const owner = await env.devnet.createOwner()
  const golem = await provisionGolemIn(env, golemId, {
    owner,
    strategy: STRATEGY,
    lifeSeconds,
    periodSeconds,
    periodAmount: USDC(3),
    gas: { periodAmount: parseEther('0.01'), bootstrap: parseEther('0.001') },
  })
  return { ...golem, owner: owner.address }
}

const usdc = () => env.devnet.deployment.assets.usdc
const ttlOf = async (golemId: string) => parseGolemProfile((await env.store.getGolem(golemId))!.profile).life.runwayEndsAt
const paidToOperator = async (from: Address) =>
  (await usdcTransfersFrom(env.client, usdc(), from)).filter((t) => t.to.toLowerCase() === operator.toLowerCase())
/** Every USDC transfer into an account, ever. */
async function receivedBy(to: Address) {
  const logs = await (env.client as PublicClient).getLogs({
    address: usdc(),
    event: getAbiItem({ abi: erc20Abi, name: 'Transfer' }),
    args: { to },
    fromBlock: 0n,
    toBlock: 'latest',
  })
  return logs.map((l) => l.args.value!)
}

beforeAll(async () => {
  env = await startHeartbeatEnv()
  const stand = await startSelfExtensionStand(env)
  ;({ api, operator, payments, settlement } = stand)
})
afterAll(async () => {
  await api?.close()
  await env?.stop()
})

describe("runtime paid by delegation from the owner's grant", () => {
  let golem: ProvisionedGolem & { owner: Address }

  it("buys its TTL with a delegation under its runway grant: the owner's account pays the platform, nothing reaches the key", async () => {
    golem = await provision('grantpay', 600n)
    const before = await ttlOf('grantpay')
    const ownerBefore = await usdcBalance(env.client, usdc(), golem.owner)
    const result = await runTick(deps('grantpay-1'), { golemId: 'grantpay' })
    expect(result.redemption).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/paid by delegation/) })
    expect(result.selfExtension).toMatchObject({ status: 'confirmed', hours: 1, amount: HOUR_PRICE, paidFrom: 'grant' })
    expect((await paidToOperator(golem.owner)).map((t) => t.value)).toEqual([HOUR_PRICE])
    expect(await paidToOperator(golem.golemKey)).toEqual([])
    expect(await receivedBy(golem.golemKey)).toEqual([])
    expect(await usdcBalance(env.client, usdc(), golem.owner)).toBe(ownerBefore - HOUR_PRICE)
    expect(await ttlOf('grantpay')).toBe(before + 3600n)
    const bought = (await allEvents(env.store, 'grantpay')).filter((e) => e.type === RUNTIME_BOUGHT_EVENT)
    expect(bought).toHaveLength(1)
    // The payment the tick recorded is an ERC-7710 one, rooted at the owner's account.
    const slot = await env.store.getSlot({ golemId: 'grantpay', period: before, step: 'extend' })
    const sent = decodePaymentSignatureHeader(hexToString(slot!.rawTx!))
    expect(sent.accepted.extra).toMatchObject({ assetTransferMethod: 'erc7710' })
    expect((sent.payload as { delegator: string }).delegator.toLowerCase()).toBe(golem.owner.toLowerCase())
    expect(slot!.txHash).toBe(bought[0]!.data.nonce)
  })

  it('the same payment sent again is refused as a replay naming the field: nothing moves, nothing is credited', async () => {
    const before = await ttlOf('grantpay')
    const slot = (await env.store.getSlot({ golemId: 'grantpay', period: before - 3600n, step: 'extend' }))!
    const res = await fetch(`${api.url}/api/v1/extend`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': hexToString(slot.rawTx!) },
      body: JSON.stringify({ golemId: 'grantpay', hours: 1 }),
    })
    expect(res.status).toBe(409)
    expect(await res.json()).toMatchObject({ code: 'PAYMENT_REPLAYED', message: expect.stringMatching(/^payload\.permissionContext: /) })
    expect(await ttlOf('grantpay')).toBe(before)
    expect(await paidToOperator(golem.owner)).toHaveLength(1)
  })

  it('signs nothing over its per-payment bound: no payment, no slot', async () => {
    const small = await provision('grantsmall', 600n)
    const ownerBefore = await usdcBalance(env.client, usdc(), small.owner)
    const result = await runTick(deps('grantsmall-1', { maxPerPayment: HOUR_PRICE - 1n }), { golemId: 'grantsmall' })
    expect(result.selfExtension).toMatchObject({ status: 'refused', reason: expect.stringMatching(/per-payment bound/) })
    expect(await paidToOperator(small.owner)).toEqual([])
    expect(await usdcBalance(env.client, usdc(), small.owner)).toBe(ownerBefore)
    expect(await env.store.getSlot({ golemId: 'grantsmall', period: small.profile.life.runwayEndsAt, step: 'extend' })).toBeNull()
  })
})

describe('a whole life paid by delegation', () => {
  it('the key never holds runtime money: owner before = owner after + paid to the platform', async () => {
    const life = await provision('grantlife', 240n, 60n)
    const start = await usdcBalance(env.client, usdc(), life.owner)
    await passStaggerOffsets(env.devnet, ['grantlife'], 60n)
    const results = []
    for (let beat = 0; beat < 20; beat++) {
      results.push(await runTick(deps(`grantlife-${beat}`, {}, 60), { golemId: 'grantlife' }))
      // After every beat: nothing of the runway on the key.
      expect(await usdcBalance(env.client, usdc(), life.golemKey)).toBe(0n)
      if ((await env.store.getGolem('grantlife'))?.status === 'dead') break
      await env.devnet.increaseTime(60)
    }
    expect(results.at(-1)!.outcome).toBe('died')
    expect(results.filter((r) => r.redemption?.status === 'confirmed')).toEqual([])
    const bought = results.filter((r) => r.selfExtension?.status === 'confirmed')
    expect(bought.length).toBeGreaterThan(0)
    const paid = (await paidToOperator(life.owner)).reduce((a, t) => a + t.value, 0n)
    expect(paid).toBe(bought.reduce((a, r) => a + r.selfExtension!.amount!, 0n))
    expect(await receivedBy(life.golemKey)).toEqual([])
    expect(await usdcBalance(env.client, usdc(), life.owner)).toBe(start - paid)
  })
})
