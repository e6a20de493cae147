// Paying /feed and /extend by ERC-7710 through the API on anvil with the real MetaMask framework: an
// owner's MetaMask smart account (a HybridDeleGator) pays from a delegation built and signed by the
// kit's createx402DelegationProvider, sent by @metamask/x402's x402Erc7710Client inside the stock
// @x402/fetch client, all unmodified. Bardo's settlement account redeems it through the
// DelegationManager; the Golem is credited once. A replayed payload, a delegation bounded below the
// price, a payload for a smaller amount, a delegation another account may redeem and another
// DelegationManager are refused naming the field, and nothing moves or is credited.
import { createx402DelegationProvider } from '@metamask/smart-accounts-kit/experimental'
import { x402Erc7710Client, type x402DelegationProvider } from '@metamask/x402'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, decodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentRequirements } from '@x402/core/types'
import { wrapFetchWithPayment, x402Client } from '@x402/fetch'
import { createWalletClient, http, type Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_MAX_REDEMPTION_GAS } from '../../adapters/x402/erc7710.ts'
import { createInProcessFacilitator } from '../../adapters/x402/settlement.ts'
import type { OwnerAccount } from '../../local/devnet.ts'
import { postJson, PRICING, startApiStack, type ApiStack } from './harness.ts'
import { storeWith } from '../support/storeWith.ts'

let stack: ApiStack
let payerOwner: OwnerAccount

beforeAll(async () => {
  stack = await startApiStack()
  for (const id of ['atlas', 'borg', 'cygnus', 'dara']) await stack.provision(id)
  // The payer is another owner's smart account: 100 USDC, no ETH needed (the settlement account pays gas).
  payerOwner = await stack.devnet.createOwner({ usdc: 100_000_000n, eth: 0n })
}, 180_000)
afterAll(async () => stack?.stop())

type App = ReturnType<ApiStack['app']>
const BASE = 'http://localhost'
const ERC7710 = (r: PaymentRequirements) => r.extra?.assetTransferMethod === 'erc7710'

/** A fetch onto the in-process API that remembers every request's PAYMENT-SIGNATURE. */
function fetchOnto(app: App) {
  const sent: string[] = []
  const fetcher: typeof fetch = async (input, init) => {
    const request = new Request(input, init)
    const header = request.headers.get('payment-signature')
    if (header !== null) sent.push(header)
    return app.request(request)
  }
  return { fetcher, sent }
}

/** The kit's provider for the payer's smart account on the local framework (no storage service: the account signs). */
function kitProvider(owner: OwnerAccount = payerOwner): x402DelegationProvider {
  return createx402DelegationProvider({ account: owner.smartAccount, environment: stack.devnet.deployment.environment })
}

/** The stock client paying by delegation only: MetaMask's scheme client, a policy that picks the ERC-7710 offer, TestUSDC allowed. */
function delegationClient(provider: x402DelegationProvider) {
  const client = new x402Client()
  client.register('eip155:*', new x402Erc7710Client({ delegationProvider: provider }))
  client.registerPolicy((_version, accepts) => accepts.filter(ERC7710))
  client.setSpendControls({
    allowedAssets: [{ network: 'eip155:31337', asset: stack.devnet.deployment.assets.usdc, maxAmountPerPayment: '20000000' }],
  })
  return client
}

const feedInit = (golemId: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ golemId }),
})

async function paymentsOf(app: App, golemId: string) {
  const res = await app.request(`/api/v1/golems/${golemId}/payments`)
  return ((await res.json()) as { payments: unknown[] }).payments
}

/** What must not change when a payment is refused: balances, the Golem's runway, its payments. */
async function snapshot(app: App, golemId: string) {
  return {
    payer: await stack.usdcBalance(payerOwner.address),
    operator: await stack.usdcBalance(stack.operator),
    runway: (await stack.profile(golemId)).life.runwayEndsAt,
    payments: (await paymentsOf(app, golemId)).length,
  }
}

/** The 402's ERC-7710 offer for `path`. */
async function erc7710Offer(app: App, path: string, body: Record<string, unknown>): Promise<PaymentRequirements> {
  const res = await postJson(app, path, body)
  expect(res.status).toBe(402)
  return decodePaymentRequiredHeader(res.headers.get('payment-required')!).accepts.find(ERC7710)!
}

/** A PAYMENT-SIGNATURE carrying `payload` for `accepted`, as the stock client encodes it. */
function headerOf(accepted: PaymentRequirements, payload: Record<string, unknown>) {
  return Buffer.from(JSON.stringify({ x402Version: 2, resource: { url: `${BASE}/api/v1/feed` }, accepted, payload })).toString('base64')
}

describe('x402 by ERC-7710 delegation', () => {
  it('the 402 offers EIP-3009 first, then ERC-7710 naming the settlement account as the only facilitator', async () => {
    const res = await postJson(stack.app(), '/api/v1/feed', { golemId: 'atlas' })
    const { accepts } = decodePaymentRequiredHeader(res.headers.get('payment-required')!)
    expect(accepts).toHaveLength(2)
    expect(ERC7710(accepts[0]!)).toBe(false)
    expect(accepts[1]).toEqual({
      ...accepts[0],
      extra: { assetTransferMethod: 'erc7710', facilitatorAddresses: [stack.settlement.address] },
    })
  })

  it("MetaMask's client pays feed from the owner's smart account by delegation: credited once, exactly the price moved; the same payload again is refused", async () => {
    const app = stack.app()
    const before = await snapshot(app, 'atlas')
    const { fetcher, sent } = fetchOnto(app)
    const res = await wrapFetchWithPayment(fetcher, delegationClient(kitProvider()))(`${BASE}/api/v1/feed`, feedInit('atlas'))
    const body = (await res.json()) as Record<string, unknown>
    expect(res.status, JSON.stringify(body)).toBe(200)
    expect(body).toMatchObject({
      golemId: 'atlas',
      credit: { kind: 'feed', amount: '5000000' },
      payer: payerOwner.address,
      reconciled: false,
    })
    const receipt = decodePaymentResponseHeader(res.headers.get('payment-response')!)
    expect(receipt).toMatchObject({ success: true, payer: payerOwner.address, transaction: body.txHash })
    // The settlement account sent the redemption through the DelegationManager.
    const tx = await stack.devnet.publicClient.getTransaction({ hash: body.txHash as `0x${string}` })
    expect(tx.from.toLowerCase()).toBe(stack.settlement.address.toLowerCase())
    expect(tx.to?.toLowerCase()).toBe(stack.devnet.deployment.environment.DelegationManager.toLowerCase())
    // The default gas bound admits the kit's delegation with room to spare.
    const { gasUsed } = await stack.devnet.publicClient.getTransactionReceipt({ hash: tx.hash })
    expect(gasUsed).toBeLessThan(DEFAULT_MAX_REDEMPTION_GAS / 2n)

    const after = await snapshot(app, 'atlas')
    expect(after.payer).toBe(before.payer - PRICING.deathReserve)
    expect(after.operator).toBe(before.operator + PRICING.deathReserve)
    expect(after.payments).toBe(before.payments + 1)
    expect(after.runway).toBeGreaterThan(before.runway)

    // The payload the client sent, presented again: already credited, nothing moves.
    expect(sent).toHaveLength(1)
    const header = sent[0]!
    expect(decodePaymentSignatureHeader(header).payload).toMatchObject({ delegator: payerOwner.address })
    const replay = await postJson(app, '/api/v1/feed', { golemId: 'atlas' }, { 'payment-signature': header })
    expect(replay.status).toBe(409)
    expect(await replay.json()).toMatchObject({ code: 'PAYMENT_REPLAYED', message: expect.stringMatching(/^payload\.permissionContext: /) })
    // Presented for another Golem: bound to the first.
    const elsewhere = await postJson(app, '/api/v1/feed', { golemId: 'borg' }, { 'payment-signature': header })
    expect(elsewhere.status).toBe(409)
    expect(await elsewhere.json()).toMatchObject({ code: 'PAYMENT_BOUND_ELSEWHERE', message: expect.stringMatching(/^golemId: /) })
    expect(await snapshot(app, 'atlas')).toEqual(after)
  })

  it('a delegation whose transfer bound is below the price is refused (402 PAYMENT_UNDERPAID) with nothing credited', async () => {
    const app = stack.app()
    const before = await snapshot(app, 'borg')
    const kit = kitProvider()
    // The kit scopes the delegation to the amount it is shown: show it one unit less than the price.
    const short: x402DelegationProvider = (requirements) => kit({ ...requirements, amount: (BigInt(requirements.amount) - 1n).toString() })
    const { fetcher, sent } = fetchOnto(app)
    const res = await wrapFetchWithPayment(fetcher, delegationClient(short))(`${BASE}/api/v1/feed`, feedInit('borg'))
    expect(res.status).toBe(402)
    const body = (await res.json()) as { code: string; message: string }
    expect(body).toMatchObject({
      code: 'PAYMENT_UNDERPAID',
      message: expect.stringMatching(/^payload\.permissionContext: .*allowance-exceeded/),
    })
    expect(sent).toHaveLength(1)
    expect(await snapshot(app, 'borg')).toEqual(before)
  })

  it('a payload for less than the price is refused naming accepted.amount, before the chain is asked', async () => {
    const app = stack.app()
    const before = await snapshot(app, 'borg')
    const offer = await erc7710Offer(app, '/api/v1/feed', { golemId: 'borg' })
    const smaller = { ...offer, amount: (PRICING.deathReserve - 1n).toString() }
    const header = headerOf(smaller, { ...(await kitProvider()(smaller)) })
    const res = await postJson(app, '/api/v1/feed', { golemId: 'borg' }, { 'payment-signature': header })
    expect(res.status).toBe(402)
    expect(await res.json()).toMatchObject({
      code: 'PAYMENT_UNDERPAID',
      message: 'accepted.amount: must be at least 5000000 for feed, got 4999999',
    })
    expect(await snapshot(app, 'borg')).toEqual(before)
  })

  it('a delegation another account may redeem, and one through another DelegationManager, are refused naming the field', async () => {
    const app = stack.app()
    const before = await snapshot(app, 'borg')
    const offer = await erc7710Offer(app, '/api/v1/feed', { golemId: 'borg' })
    const stranger = privateKeyToAccount(generatePrivateKey()).address
    const otherRedeemer = await kitProvider()({ ...offer, extra: { ...offer.extra, facilitatorAddresses: [stranger] } })
    const res = await postJson(app, '/api/v1/feed', { golemId: 'borg' }, { 'payment-signature': headerOf(offer, { ...otherRedeemer }) })
    expect(res.status).toBe(402)
    expect(await res.json()).toMatchObject({
      code: 'PAYMENT_INVALID',
      message: expect.stringMatching(/^payload\.permissionContext: its leaf delegation must name Bardo's settlement account/),
    })

    const good = await kitProvider()(offer)
    const otherManager = { ...good, delegationManager: stranger as Address }
    const wrong = await postJson(app, '/api/v1/feed', { golemId: 'borg' }, { 'payment-signature': headerOf(offer, otherManager) })
    expect(wrong.status).toBe(402)
    expect(await wrong.json()).toMatchObject({ code: 'PAYMENT_INVALID', message: expect.stringMatching(/^payload\.delegationManager: /) })
    expect(await snapshot(app, 'borg')).toEqual(before)
  })

  it('extend by delegation: pro rata runway for the paid hours, credited once', async () => {
    const app = stack.app()
    const before = await snapshot(app, 'dara')
    const { fetcher } = fetchOnto(app)
    const res = await wrapFetchWithPayment(fetcher, delegationClient(kitProvider()))(`${BASE}/api/v1/extend`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ golemId: 'dara', hours: 3 }),
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ credit: { kind: 'extend', seconds: '10800', amount: '1500000' }, profile: { applied: true } })
    const after = await snapshot(app, 'dara')
    expect(after).toEqual({
      ...before,
      payer: before.payer - 1_500_000n,
      operator: before.operator + 1_500_000n,
      runway: before.runway + 10_800n,
      payments: before.payments + 1,
    })
  })

  it('a smart account without the price is refused (402 PAYMENT_INSUFFICIENT_BALANCE) with nothing credited', async () => {
    const app = stack.app()
    const poor = await stack.devnet.createOwner({ usdc: 1_000_000n, eth: 0n })
    const before = await snapshot(app, 'borg')
    const { fetcher } = fetchOnto(app)
    const res = await wrapFetchWithPayment(fetcher, delegationClient(kitProvider(poor)))(`${BASE}/api/v1/feed`, feedInit('borg'))
    expect(res.status).toBe(402)
    expect(await res.json()).toMatchObject({
      code: 'PAYMENT_INSUFFICIENT_BALANCE',
      message: expect.stringMatching(/^payload\.permissionContext: /),
    })
    expect(await stack.usdcBalance(poor.address)).toBe(1_000_000n)
    expect(await snapshot(app, 'borg')).toEqual(before)
  })

  it('a redemption that would use more gas than the bound is refused by the facilitator, unsent', async () => {
    const offer = await erc7710Offer(stack.app(), '/api/v1/feed', { golemId: 'borg' })
    const settlement = createWalletClient({
      account: stack.settlement,
      chain: stack.devnet.publicClient.chain,
      transport: http(stack.devnet.rpcUrl),
    })
    const facilitator = createInProcessFacilitator({
      publicClient: stack.devnet.publicClient,
      walletClient: settlement,
      networks: [offer.network],
      erc7710: { delegationManager: stack.devnet.deployment.environment.DelegationManager, maxRedemptionGas: 50_000n },
    })
    const payload = { x402Version: 2, accepted: offer, payload: { ...(await kitProvider()(offer)) } }
    const verified = await facilitator.verify(payload, offer)
    expect(verified).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_erc7710_redemption',
      invalidMessage: expect.stringMatching(/more than 50000$/),
    })
    const nonce = await stack.devnet.publicClient.getTransactionCount({ address: stack.settlement.address })
    expect(await facilitator.settle(payload, offer)).toMatchObject({ success: false, transaction: '' })
    expect(await stack.devnet.publicClient.getTransactionCount({ address: stack.settlement.address })).toBe(nonce)
  })

  it('crash after the redemption: recording fails (503), and after the lease the same payload is reconciled from the chain and credited once', async () => {
    let failures = 1
    const crashing = storeWith(stack.store, {
      creditPaymentOnce: async (input) => {
        if (failures-- > 0) throw new Error('store outage')
        return stack.store.creditPaymentOnce(input)
      },
    })
    let now = Date.now()
    const app = stack.app({ store: crashing, clock: { now: () => now } })
    const before = await snapshot(app, 'cygnus')
    const offer = await erc7710Offer(app, '/api/v1/feed', { golemId: 'cygnus' })
    const header = headerOf(offer, { ...(await kitProvider()(offer)) })
    const first = await postJson(app, '/api/v1/feed', { golemId: 'cygnus' }, { 'payment-signature': header })
    expect(first.status).toBe(503)
    expect(await first.json()).toMatchObject({ code: 'PAYMENT_SETTLEMENT_PENDING' })
    expect(await stack.usdcBalance(payerOwner.address)).toBe(before.payer - PRICING.deathReserve)

    now += 5 * 60_000 + 1 // the claim's lease lapsed
    const retry = await postJson(app, '/api/v1/feed', { golemId: 'cygnus' }, { 'payment-signature': header })
    const retried = (await retry.json()) as Record<string, unknown>
    expect(retry.status, JSON.stringify(retried)).toBe(200)
    expect(retried).toMatchObject({ golemId: 'cygnus', reconciled: true, credit: { kind: 'feed', amount: '5000000' } })
    const again = await postJson(app, '/api/v1/feed', { golemId: 'cygnus' }, { 'payment-signature': header })
    expect(again.status).toBe(409)
    const after = await snapshot(app, 'cygnus')
    expect(after.payer).toBe(before.payer - PRICING.deathReserve)
    expect(after.payments).toBe(before.payments + 1)
  })
})
