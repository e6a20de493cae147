// POST /api/v1/extend and /api/v1/feed: permissionless, paid with x402. The payment
// itself lives in the payments module (deps.payments); this file fixes the order that makes it safe:
// validate the body, refuse a dying or dead Golem, only then take the payment, then credit.
import { createRoute, type RouteConfigToTypedResponse, z } from '@hono/zod-openapi'
import type { Context, Next } from 'hono'
import { every } from 'hono/combine'
import { cors } from 'hono/cors'
import { refuseWritesToDying } from '../deathRules.ts'
import type { ApiDeps, PaidRoute } from '../deps.ts'
import type { ApiEnv } from '../env.ts'
import { ApiError } from '../errors.ts'
import { apiRouter, errors, jsonBody, ok, security } from '../openapi.ts'
import { extendRequest, feedRequest } from '../schemas.ts'

/** Where the receipt signer is published. */
export const RECEIPT_SIGNER_PATH = '/.well-known/x402-receipt-signer'

const paymentHeaders = z.object({
  'payment-signature': z
    .string()
    .max(16_384, 'must be at most 16384 characters')
    .optional()
    .meta({ description: 'x402 v2 payment payload; absent -> 402 with PAYMENT-REQUIRED' }),
})

const paidResponse = z.object({ golemId: z.string() }).catchall(z.unknown())

function paidRoute<N extends 'extend' | 'feed', S extends z.ZodType<{ golemId: string }>>(name: N, schema: S, summary: string) {
  return createRoute({
    method: 'post',
    path: `/api/v1/${name}` as const,
    operationId: name,
    summary,
    tags: ['payments'],
    security: security('x402'),
    request: { body: jsonBody(schema), headers: paymentHeaders },
    responses: {
      200: ok('credited once, after settlement', paidResponse, { 'PAYMENT-RESPONSE': 'x402 settlement receipt' }),
      ...errors({
        400: 'PAYMENT_HEADER_TOO_LARGE | PAYMENT_HEADER_NOT_BASE64 | PAYMENT_HEADER_NOT_JSON | PAYMENT_HEADER_INVALID | PAYMENT_VERSION_UNSUPPORTED | PAYMENT_IDENTIFIER_INVALID',
        402: 'PAYMENT_REQUIRED and every refused payment (x402 PAYMENT-REQUIRED header; code in the body, docs/x402.md)',
        404: 'GOLEM_NOT_FOUND',
        409: 'PAYMENT_REPLAYED (already credited) | PAYMENT_IN_PROGRESS (another request is settling it) | PAYMENT_BOUND_ELSEWHERE | PAYMENT_IDENTIFIER_CONFLICT (the payment-identifier named another payment)',
        410: 'GOLEM_DEAD',
        501: 'NOT_IMPLEMENTED: payments are not wired',
        503: 'GOLEM_DYING | PAYMENT_SETTLEMENT_PENDING (Retry-After) | FACILITATOR_UNAVAILABLE | PAYMENT_LEDGER_UNAVAILABLE',
      }),
    },
  })
}

const receiptSignerSchema = z.object({
  format: z.literal('eip712'),
  address: z.string(),
  kid: z.string(),
  domains: z.object({ offer: z.record(z.string(), z.unknown()), receipt: z.record(z.string(), z.unknown()) }),
})

const receiptSignerRoute = createRoute({
  method: 'get',
  path: RECEIPT_SIGNER_PATH,
  operationId: 'getReceiptSigner',
  summary: 'Who signs the x402 offers (in every 402) and receipts (in PAYMENT-RESPONSE): the address EIP-712 signatures recover to',
  tags: ['payments'],
  security: security('tier'),
  responses: {
    200: ok('the signer: a verifier needs nothing else (docs/x402.md)', receiptSignerSchema),
    ...errors({ 501: 'NOT_IMPLEMENTED: offers and receipts are not signed on this deployment' }),
  },
})

const extendRoute = paidRoute('extend', extendRequest, "Extend a Golem's TTL, paid with x402 (minimum: one hour of runtime cost)")
const feedRoute = paidRoute('feed', feedRequest, 'Feed a Golem (reprieve funding), paid with x402 (minimum: the death reserve)')

/**
 * What runs once the request is valid, in order: the death rules, the wiring check, the payment
 * middleware, then the credit. The route's validators run before its handler, so the steps after them
 * are composed here, with Hono's own composition.
 */
function paidHandler<B extends { golemId: string }>(
  deps: ApiDeps,
  name: 'extend' | 'feed',
  route: PaidRoute<B> | undefined,
): (c: Context<ApiEnv>) => Promise<RouteConfigToTypedResponse<typeof extendRoute | typeof feedRoute>> {
  const bodyOf = (c: Context<ApiEnv>) => c.req.valid('json' as never) as B
  const steps = every(
    refuseWritesToDying(deps, (c) => bodyOf(c).golemId),
    async (_c: Context<ApiEnv>, next: Next) => {
      // Before the payment middleware: never ask for a payment the API cannot credit.
      if (!route) throw new ApiError('NOT_IMPLEMENTED', `${name}: x402 payments are not configured on this deployment`)
      await next()
    },
    ...(route?.middleware ?? []),
  )
  return async (c) => {
    await steps(c, async () => {
      c.res = await route!.handle({ body: bodyOf(c), golem: c.get('golem'), c })
    })
    // The payments module answers with finished responses (the x402 headers set): the route's documented
    // answers, which a raw Response cannot show the type system.
    return c.res as unknown as RouteConfigToTypedResponse<typeof extendRoute | typeof feedRoute>
  }
}

export function paymentRoutes(deps: ApiDeps) {
  const router = apiRouter()
  // Browsers on the allowlisted origins (the Portal) may pay; x402's headers must be readable there.
  for (const path of ['/api/v1/extend', '/api/v1/feed']) {
    router.use(
      path,
      cors({
        origin: (o) => (deps.config.allowedOrigins.includes(o) ? o : null),
        allowMethods: ['POST'],
        allowHeaders: ['Content-Type', 'PAYMENT-SIGNATURE'],
        exposeHeaders: ['PAYMENT-REQUIRED', 'PAYMENT-RESPONSE', 'Retry-After'],
        maxAge: 600,
      }),
    )
  }
  const extend = paidHandler(deps, 'extend', deps.payments?.extend)
  const feed = paidHandler(deps, 'feed', deps.payments?.feed)
  return router
    .openapi(extendRoute, (c) => extend(c))
    .openapi(feedRoute, (c) => feed(c))
    .openapi(receiptSignerRoute, (c) => {
      const signer = deps.payments?.signer
      if (signer === undefined)
        throw new ApiError('NOT_IMPLEMENTED', 'receipt signer: x402 offers and receipts are not signed on this deployment')
      return c.json(signer, 200)
    })
}
