// The payments panel: x402 extend and feed paid with the standard x402 client on anvil, then read back
// through GET /api/v1/golems/:id/payments from the Golem's journal, with payer, kind, amount, runway
// seconds and the settlement transaction, each exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { payWithX402Client } from '../x402.harness.ts'
import { postJson, requirementsOf, startApiStack, type ApiStack } from './harness.ts'

let stack: ApiStack

beforeAll(async () => {
  stack = await startApiStack()
  await stack.provision('atlas')
}, 120_000)
afterAll(async () => stack?.stop())

async function pay(app: ReturnType<ApiStack['app']>, path: '/api/v1/extend' | '/api/v1/feed', body: Record<string, unknown>) {
  const payer = await stack.newPayer()
  const header = await payWithX402Client(payer, requirementsOf(await postJson(app, path, body)), `http://localhost${path}`)
  const res = await postJson(app, path, body, { 'payment-signature': header })
  expect(res.status).toBe(200)
  return { payer, paid: (await res.json()) as { txHash: string } }
}

describe('payments', () => {
  it('lists each x402 credit once, newest first, with payer, kind and amount', async () => {
    const app = stack.app()
    const extend = await pay(app, '/api/v1/extend', { golemId: 'atlas', hours: 2 })
    const feed = await pay(app, '/api/v1/feed', { golemId: 'atlas' })

    const res = await app.request('/api/v1/golems/atlas/payments')
    expect(res.status).toBe(200)
    const body = (await res.json()) as { golemId: string; payments: Record<string, unknown>[]; nextCursor: string | null }
    expect(body.golemId).toBe('atlas')
    expect(body.nextCursor).toBeNull()
    expect(body.payments).toEqual([
      {
        kind: 'feed',
        payer: feed.payer.address,
        amount: '5000000',
        seconds: '36000',
        nonce: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        txHash: feed.paid.txHash,
        creditedAt: expect.any(Number),
      },
      {
        kind: 'extend',
        payer: extend.payer.address,
        amount: '1000000',
        seconds: '7200',
        nonce: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        txHash: extend.paid.txHash,
        creditedAt: expect.any(Number),
      },
    ])

    // Paged one at a time, the same two; a cursor the API did not issue is a 400 naming it.
    const first = (await (await app.request('/api/v1/golems/atlas/payments?limit=1')).json()) as typeof body
    const second = (await (await app.request(`/api/v1/golems/atlas/payments?limit=1&cursor=${first.nextCursor}`)).json()) as typeof body
    expect([...first.payments, ...second.payments].map((p) => p.kind)).toEqual(['feed', 'extend'])
    const bad = await app.request('/api/v1/golems/atlas/payments?cursor=forged')
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'cursor: must be a nextCursor value returned by this API',
    })
    expect((await app.request('/api/v1/golems/nobody/payments')).status).toBe(404)
  })
})
