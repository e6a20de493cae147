// x402's idempotency extension through the API on anvil, paid by the stock @x402/fetch client: the 402
// declares payment-identifier; a client that lost its answer retries under the same identifier (with a
// freshly signed authorization, as a stock client does) and is answered the first outcome again, paying
// once; the same identifier for another payment, a malformed one, and one held by a live request are
// refused, writing nothing. The identifier lives in the shared store: the retry reaches another
// instance of the API.
import { decodePaymentRequiredHeader, decodePaymentSignatureHeader } from '@x402/core/http'
import { registerExactEvmScheme } from '@x402/evm/exact/client'
import { appendPaymentIdentifierToExtensions, generatePaymentId, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier'
import { wrapFetchWithPayment, x402Client } from '@x402/fetch'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { payWithX402Client } from '../x402.harness.ts'
import { postJson, startApiStack, type ApiStack } from './harness.ts'

let stack: ApiStack

beforeAll(async () => {
  stack = await startApiStack()
  await stack.provision('atlas')
  await stack.provision('borg')
}, 120_000)
afterAll(async () => stack?.stop())

type App = ReturnType<ApiStack['app']>
const URL_BASE = 'http://localhost'

/** A fetch onto in-process API instances: the i-th call goes to `route(i)`; `drop(i)` loses its answer after the server made it. */
function fetchOnto(route: (call: number) => App, drop: (call: number, init: Request) => boolean = () => false) {
  const seen: Response[] = []
  let calls = 0
  const fetcher: typeof fetch = async (input, init) => {
    const request = new Request(input, init)
    const call = calls++
    const res = await route(call).request(request)
    seen.push(res.clone())
    if (drop(call, request)) throw new Error('timeout: the answer was lost on the way back')
    return res
  }
  return { fetcher, seen }
}

/** The stock client, with the identifier appended the way the extension's own example does. */
function stockClient(payer: PrivateKeyAccount, paymentId: string) {
  const client = new x402Client()
  registerExactEvmScheme(client, { signer: payer })
  // TestUSDC is a local asset: allow it explicitly (docs/x402.md).
  client.setSpendControls({
    allowedAssets: [{ network: 'eip155:31337', asset: stack.devnet.deployment.assets.usdc, maxAmountPerPayment: '20000000' }],
  })
  client.onBeforePaymentCreation(async ({ paymentRequired }) => {
    paymentRequired.extensions ??= {}
    appendPaymentIdentifierToExtensions(paymentRequired.extensions, paymentId)
  })
  return client
}

const extendInit = (golemId: string, hours = 1): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ golemId, hours }),
})

async function paymentsOf(app: App, golemId: string) {
  const res = await app.request(`/api/v1/golems/${golemId}/payments`)
  return ((await res.json()) as { payments: { nonce: string; transactionHash: string }[] }).payments
}

/** A PAYMENT-SIGNATURE header from the stock client carrying `paymentId`. */
async function headerWithId(payer: PrivateKeyAccount, app: App, body: Record<string, unknown>, paymentId: string) {
  const required = decodePaymentRequiredHeader((await postJson(app, '/api/v1/extend', body)).headers.get('payment-required')!)
  const extensions = structuredClone(required.extensions ?? {})
  appendPaymentIdentifierToExtensions(extensions, paymentId)
  const header = await payWithX402Client(payer, required.accepts[0]!, `${URL_BASE}/api/v1/extend`)
  const payload = decodePaymentSignatureHeader(header)
  return Buffer.from(JSON.stringify({ ...payload, extensions })).toString('base64')
}

describe('payment-identifier', () => {
  it('the 402 declares the extension, not required', async () => {
    const res = await postJson(stack.app(), '/api/v1/extend', { golemId: 'atlas', hours: 1 })
    expect(res.status).toBe(402)
    const required = decodePaymentRequiredHeader(res.headers.get('payment-required')!)
    expect(required.extensions?.[PAYMENT_IDENTIFIER]).toMatchObject({ info: { required: false }, schema: { type: 'object' } })
  })

  it('a stock client that lost its answer retries under the same identifier on another instance: the first answer again, one settlement, one credit', async () => {
    const [first, second] = [stack.app(), stack.app()]
    const payer = await stack.newPayer(10_000_000n)
    const paymentId = generatePaymentId()
    const runwayBefore = (await stack.profile('atlas')).life.runwayEndsAt
    const paymentsBefore = await paymentsOf(first, 'atlas')

    // Call 0 is the unpaid request (402), call 1 the paid one: the server settles, the answer is lost.
    const lost = fetchOnto(
      () => first,
      (call) => call === 1,
    )
    await expect(
      wrapFetchWithPayment(lost.fetcher, stockClient(payer, paymentId))(`${URL_BASE}/api/v1/extend`, extendInit('atlas')),
    ).rejects.toThrow(/timeout/)
    const firstAnswer = lost.seen[1]!
    expect(firstAnswer.status).toBe(200)
    expect(await stack.usdcBalance(payer.address)).toBe(9_500_000n)

    const retry = fetchOnto(() => second)
    const res = await wrapFetchWithPayment(retry.fetcher, stockClient(payer, paymentId))(`${URL_BASE}/api/v1/extend`, extendInit('atlas'))
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual(await firstAnswer.clone().json())
    expect(res.headers.get('payment-response')).toBe(firstAnswer.headers.get('payment-response'))
    // The retry signed a new authorization: a different nonce, never settled.
    const [sentFirst, sentRetry] = [lost, retry].map((f) => f.seen.length)
    expect([sentFirst, sentRetry]).toEqual([2, 2])

    expect(await stack.usdcBalance(payer.address)).toBe(9_500_000n)
    expect(await paymentsOf(second, 'atlas')).toHaveLength(paymentsBefore.length + 1)
    expect((await stack.profile('atlas')).life.runwayEndsAt).toBe(runwayBefore + 3600n)
  })

  it('the same identifier for another payment is refused naming payment-identifier, writing nothing', async () => {
    const app = stack.app()
    const payer = await stack.newPayer(10_000_000n)
    const paymentId = generatePaymentId()
    const paid = await wrapFetchWithPayment(fetchOnto(() => app).fetcher, stockClient(payer, paymentId))(
      `${URL_BASE}/api/v1/extend`,
      extendInit('atlas'),
    )
    expect(paid.status).toBe(200)
    const stored = await stack.store.getPaymentId({ payer: payer.address, paymentId, now: Date.now() })
    const [atlasBefore, borgBefore, balanceBefore] = [
      await paymentsOf(app, 'atlas'),
      await paymentsOf(app, 'borg'),
      await stack.usdcBalance(payer.address),
    ]

    for (const [golemId, hours, term] of [
      ['borg', 1, 'golemId'],
      ['atlas', 2, 'amount'],
    ] as const) {
      const header = await headerWithId(payer, app, { golemId, hours }, paymentId)
      const res = await postJson(app, '/api/v1/extend', { golemId, hours }, { 'payment-signature': header })
      expect(res.status).toBe(409)
      const body = (await res.json()) as { code: string; message: string; details: Record<string, unknown> }
      expect(body.code).toBe('PAYMENT_IDENTIFIER_CONFLICT')
      expect(body.message).toMatch(/^payment-identifier: .* first used for another payment \(its \w+ differs\)/)
      expect(body.details).toEqual({ field: 'payment-identifier', term })
    }
    expect(await stack.usdcBalance(payer.address)).toBe(balanceBefore)
    expect([await paymentsOf(app, 'atlas'), await paymentsOf(app, 'borg')]).toEqual([atlasBefore, borgBefore])
    expect(await stack.store.getPaymentId({ payer: payer.address, paymentId, now: Date.now() })).toEqual(stored)
  })

  it('a malformed identifier is a 400 naming the field and the rule, writing nothing', async () => {
    const app = stack.app()
    const payer = await stack.newPayer(10_000_000n)
    const header = await headerWithId(payer, app, { golemId: 'atlas', hours: 1 }, 'pay_0123456789abcdef')
    const payload = decodePaymentSignatureHeader(header)
    const nonce = (payload.payload as { authorization: { nonce: `0x${string}` } }).authorization.nonce
    const before = await paymentsOf(app, 'atlas')
    for (const id of ['short', 'has spaces, and more than sixteen', 42]) {
      const bad = { ...payload, extensions: { [PAYMENT_IDENTIFIER]: { info: { required: false, id } } } }
      const res = await postJson(
        app,
        '/api/v1/extend',
        { golemId: 'atlas', hours: 1 },
        { 'payment-signature': Buffer.from(JSON.stringify(bad)).toString('base64') },
      )
      expect(res.status).toBe(400)
      expect(await res.json()).toMatchObject({
        code: 'PAYMENT_IDENTIFIER_INVALID',
        message: "extensions.payment-identifier.info.id: must be 16-128 letters, digits, '_' or '-'",
        details: { field: 'payment-identifier' },
      })
    }
    expect(await stack.usdcBalance(payer.address)).toBe(10_000_000n)
    expect(await stack.store.getPayment({ payer: payer.address, nonce })).toBeNull()
    expect(await paymentsOf(app, 'atlas')).toEqual(before)
  })

  it('an identifier a live request holds answers 409 PAYMENT_IN_PROGRESS with Retry-After, taking nothing', async () => {
    const app = stack.app()
    const payer = await stack.newPayer(10_000_000n)
    const paymentId = generatePaymentId()
    const header = await headerWithId(payer, app, { golemId: 'atlas', hours: 1 }, paymentId)
    await stack.store.bindPaymentId({
      payer: payer.address,
      paymentId,
      golemId: 'atlas',
      kind: 'extend',
      amount: 500_000n,
      header: 'another-request-holds-it',
      owner: 'another-request',
      now: Date.now(),
      leaseMs: 60_000,
      ttlMs: 3_600_000,
    })
    const res = await postJson(app, '/api/v1/extend', { golemId: 'atlas', hours: 1 }, { 'payment-signature': header })
    expect(res.status).toBe(409)
    expect(await res.json()).toMatchObject({ code: 'PAYMENT_IN_PROGRESS', details: { field: 'payment-identifier' } })
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(await stack.usdcBalance(payer.address)).toBe(10_000_000n)
  })

  it('a retry after a crash settles the payment the identifier first named, not the retry’s new authorization', async () => {
    const app = stack.app()
    const payer = await stack.newPayer(10_000_000n)
    const paymentId = generatePaymentId()
    const firstHeader = await headerWithId(payer, app, { golemId: 'atlas', hours: 1 }, paymentId)
    const firstNonce = (decodePaymentSignatureHeader(firstHeader).payload as { authorization: { nonce: string } }).authorization.nonce
    // The first request bound the identifier and crashed before paying; its lease has lapsed.
    await stack.store.bindPaymentId({
      payer: payer.address,
      paymentId,
      golemId: 'atlas',
      kind: 'extend',
      amount: 500_000n,
      header: firstHeader,
      owner: 'crashed-request',
      now: Date.now() - 3_600_000,
      leaseMs: 60_000,
      ttlMs: 24 * 3_600_000,
    })
    const res = await wrapFetchWithPayment(fetchOnto(() => app).fetcher, stockClient(payer, paymentId))(
      `${URL_BASE}/api/v1/extend`,
      extendInit('atlas'),
    )
    expect(res.status).toBe(200)
    const credited = (await paymentsOf(app, 'atlas')).filter((p) => p.nonce === firstNonce.toLowerCase() || p.nonce === firstNonce)
    expect(credited).toHaveLength(1)
    expect(await stack.usdcBalance(payer.address)).toBe(9_500_000n)
    // Answered: a further retry is the same answer.
    const again = await wrapFetchWithPayment(fetchOnto(() => app).fetcher, stockClient(payer, paymentId))(
      `${URL_BASE}/api/v1/extend`,
      extendInit('atlas'),
    )
    expect(again.headers.get('payment-response')).toBe(res.headers.get('payment-response'))
    expect(await stack.usdcBalance(payer.address)).toBe(9_500_000n)
  })
})
