// The bazaar listing (x402's discovery extension) of POST /api/v1/extend and /feed, read from the 402
// as a client or facilitator reads it: a JSON POST, the body's schema (the route's own validator) with
// an example that satisfies it, and what a credited payment answers; valid by the package's own check,
// and found by the facilitator-side extractor in a stock client's payment, which echoes it.
import { decodePaymentRequiredHeader } from '@x402/core/http'
import { z } from '@hono/zod-openapi'
import { extractDiscoveryInfo, validateDiscoveryExtension, type DiscoveryExtension } from '@x402/extensions/bazaar'
import { decodePaymentSignatureHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { extendRequest, feedRequest } from '../../functions/api/schemas.ts'
import { payWithX402Client } from '../x402.harness.ts'
import { postJson, startApiStack, type ApiStack } from './harness.ts'

let stack: ApiStack

beforeAll(async () => {
  stack = await startApiStack()
  await stack.provision('atlas')
}, 120_000)
afterAll(async () => stack?.stop())

const routes = [
  { path: '/api/v1/extend', body: { golemId: 'atlas', hours: 1 }, schema: extendRequest, example: { golemId: 'atlas', hours: 1 } },
  { path: '/api/v1/feed', body: { golemId: 'atlas' }, schema: feedRequest, example: { golemId: 'atlas' } },
] as const

describe('bazaar listing', () => {
  for (const route of routes) {
    it(`${route.path}: the 402 lists it for discovery, valid by the package's check`, async () => {
      const res = await postJson(stack.app(), route.path, route.body)
      expect(res.status).toBe(402)
      const required = decodePaymentRequiredHeader(res.headers.get('payment-required')!)
      const listing = required.extensions?.bazaar as DiscoveryExtension
      expect(validateDiscoveryExtension(listing)).toEqual({ valid: true })
      expect(listing.info.input).toEqual({ type: 'http', method: 'POST', bodyType: 'json', body: route.example })
      const { $schema: _, ...bodySchema } = z.toJSONSchema(route.schema) as Record<string, unknown>
      expect((listing.schema.properties.input as { properties: { body: unknown } }).properties.body).toEqual(bodySchema)
      // The example answer is one a credited payment gives (the output schema's required fields).
      expect(listing.info.output).toMatchObject({
        type: 'json',
        example: { golemId: 'atlas', credit: { kind: route.path.endsWith('extend') ? 'extend' : 'feed' } },
      })
      expect(route.schema.safeParse(route.example).success).toBe(true)
    })
  }

  it('a stock client echoes the listing in its payment, where a facilitator finds the resource', async () => {
    const app = stack.app()
    const res = await postJson(app, '/api/v1/extend', { golemId: 'atlas', hours: 1 })
    const required = decodePaymentRequiredHeader(res.headers.get('payment-required')!)
    const payer = await stack.newPayer(10_000_000n)
    const header = await payWithX402Client(payer, required.accepts[0]!, 'http://localhost/api/v1/extend')
    const payload = { ...decodePaymentSignatureHeader(header), extensions: required.extensions, resource: required.resource }
    // Everything the 402 declares rides along in the payment header: it stays well under the 16 KiB cap.
    expect(encodePaymentSignatureHeader(payload).length).toBeLessThan(8192)
    const discovered = extractDiscoveryInfo(payload, required.accepts[0]!)
    expect(discovered).toMatchObject({
      resourceUrl: 'http://localhost/api/v1/extend',
      method: 'POST',
      description: "Extend a Golem's life by runtime hours",
      mimeType: 'application/json',
    })
  })
})
