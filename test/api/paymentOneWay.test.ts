// A paid request runs one way: the death rules read the Golem's record once and its profile is parsed
// once; core decides and takes the payment; the credit is decided once and applied from the outcome on
// that same record; the edge answers. Counted through the real API app on anvil, for one paid extend and
// one paid feed: the store's record reads, and the profile parses and credit decisions through the
// modules everyone imports parseGolemProfile and applyCredit from.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { payWithX402Client } from '../x402.harness.ts'
import { postJson, requirementsOf, startApiStack, type ApiStack } from './harness.ts'
import { countedStore } from '../support/storeWith.ts'

const calls = vi.hoisted(() => ({ parse: 0, applyCredit: 0 }))

vi.mock('../../core/lifecycle/profile.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../core/lifecycle/profile.ts')>()
  return {
    ...original,
    parseGolemProfile: (...args: Parameters<typeof original.parseGolemProfile>) => {
      calls.parse++
      return original.parseGolemProfile(...args)
    },
  }
})

vi.mock('../../core/lifecycle/credit.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../core/lifecycle/credit.ts')>()
  return {
    ...original,
    applyCredit: (...args: Parameters<typeof original.applyCredit>) => {
      calls.applyCredit++
      return original.applyCredit(...args)
    },
  }
})

let stack: ApiStack

beforeAll(async () => {
  stack = await startApiStack()
  await stack.provision('oneway')
})
afterAll(async () => stack?.stop())

/**
 * Asks for the price (402), then pays it through a fresh app, so nothing the asking request read is
 * remembered: what is counted is the paid request alone, from a cold start.
 */
async function paidRequest(path: '/api/v1/extend' | '/api/v1/feed', body: Record<string, unknown>) {
  const requirements = requirementsOf(await postJson(stack.app(), path, body))
  const header = await payWithX402Client(await stack.newPayer(), requirements, `http://localhost${path}`)
  const counts: Record<string, number> = {}
  const app = stack.app({ store: countedStore(stack.store, counts) })
  calls.parse = 0
  calls.applyCredit = 0
  const res = await postJson(app, path, body, { 'payment-signature': header })
  return { res, counts, parses: calls.parse, credits: calls.applyCredit }
}

describe('a paid request, one way', () => {
  it.each([
    ['extend', '/api/v1/extend', { golemId: 'oneway', hours: 1 }],
    ['feed', '/api/v1/feed', { golemId: 'oneway' }],
  ] as const)('a paid %s reads, parses and decides its credit once each, and credits it', async (_, path, body) => {
    const before = await stack.profile('oneway')
    const { res, counts, parses, credits } = await paidRequest(path, body)
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ golemId: 'oneway', profile: { applied: true } })
    expect({ getGolem: counts.getGolem ?? 0, parses, credits }).toEqual({ getGolem: 1, parses: 1, credits: 1 })
    // The credit was written once, from the outcome: no read-back of the payment.
    expect({ getPayment: counts.getPayment ?? 0, creditPaymentOnce: counts.creditPaymentOnce, updateGolem: counts.updateGolem }).toEqual({
      getPayment: 0,
      creditPaymentOnce: 1,
      updateGolem: 1,
    })
    expect((await stack.profile('oneway')).life.runwayEndsAt).toBeGreaterThan(before.life.runwayEndsAt)
  })
})
