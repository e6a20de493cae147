// POST /api/v1/extend and /api/v1/feed: permissionless, paid with x402. The payment
// itself lives in the payments module (deps.payments); this file fixes the order that makes it safe:
// validate the body, refuse a dying or dead Golem, only then take the payment, then credit.
import type { Context, Hono, MiddlewareHandler } from 'hono'
import { cors } from 'hono/cors'
import { z } from 'zod/v4'
import { refuseWritesToDying } from '../deathRules.ts'
import type { ApiDeps, PaidRoute } from '../deps.ts'
import type { ApiEnv } from '../env.ts'
import { ApiError } from '../errors.ts'
import type { RouteDocs } from '../openapi.ts'
import { extendRequest, feedRequest } from '../schemas.ts'
import { validate } from '../validation.ts'

const paymentHeaders = z.object({
  'payment-signature': z
    .string()
    .max(16_384, 'must be at most 16384 characters')
    .optional()
    .meta({ description: 'x402 v2 payment payload; absent -> 402 with PAYMENT-REQUIRED' }),
})

const paidResponse = z.object({ golemId: z.string() }).catchall(z.unknown())

function registerPaidRoute<S extends z.ZodType<{ golemId: string }>>(
  app: Hono<ApiEnv>,
  deps: ApiDeps,
  docs: RouteDocs,
  name: 'extend' | 'feed',
  schema: S,
  summary: string,
  route: PaidRoute<z.output<S>> | undefined,
): void {
  const path = `/api/v1/${name}`
  docs.add({
    method: 'post',
    path,
    operationId: name,
    summary,
    tags: ['payments'],
    security: 'x402',
    request: { body: schema, headers: paymentHeaders },
    responses: {
      200: {
        description: 'credited once, after settlement',
        schema: paidResponse,
        headers: { 'PAYMENT-RESPONSE': 'x402 settlement receipt' },
      },
    },
    errors: {
      400: 'PAYMENT_HEADER_TOO_LARGE | PAYMENT_HEADER_NOT_BASE64 | PAYMENT_HEADER_NOT_JSON | PAYMENT_HEADER_INVALID | PAYMENT_VERSION_UNSUPPORTED',
      402: 'PAYMENT_REQUIRED and every refused payment (x402 PAYMENT-REQUIRED header; code in the body, docs/x402.md)',
      404: 'GOLEM_NOT_FOUND',
      409: 'PAYMENT_REPLAYED (already credited) | PAYMENT_IN_PROGRESS (another request is settling it)',
      410: 'GOLEM_DEAD',
      501: 'NOT_IMPLEMENTED: payments are not wired',
      503: 'GOLEM_DYING | PAYMENT_SETTLEMENT_PENDING (Retry-After) | FACILITATOR_UNAVAILABLE | PAYMENT_LEDGER_UNAVAILABLE',
    },
  })
  // The body is read back with the schema's type: Hono's typed overloads cannot follow the x402
  // middleware list, whose length is only known at runtime.
  const bodyOf = (c: Context<ApiEnv>) => c.req.valid('json' as never) as z.output<S>
  const payment: MiddlewareHandler<ApiEnv>[] = route?.middleware ?? []
  app.post(
    path,
    validate('header', paymentHeaders),
    validate('json', schema as z.ZodType<{ golemId: string }>),
    refuseWritesToDying(deps, (c) => bodyOf(c).golemId),
    async (_c, next) => {
      // Before the payment middleware: never ask for a payment the API cannot credit.
      if (!route) throw new ApiError('NOT_IMPLEMENTED', `${name}: x402 payments are not configured on this deployment`)
      await next()
    },
    ...payment,
    async (c) => route!.handle({ body: bodyOf(c), golem: c.get('golem'), c }),
  )
}

export function registerPaymentRoutes(app: Hono<ApiEnv>, deps: ApiDeps, docs: RouteDocs): void {
  // Browsers on the allowlisted origins (the Portal) may pay; x402's headers must be readable there.
  for (const path of ['/api/v1/extend', '/api/v1/feed']) {
    app.use(
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
  registerPaidRoute(
    app,
    deps,
    docs,
    'extend',
    extendRequest,
    "Extend a Golem's TTL, paid with x402 (minimum: one hour of runtime cost)",
    deps.payments?.extend,
  )
  registerPaidRoute(
    app,
    deps,
    docs,
    'feed',
    feedRequest,
    'Feed a Golem (reprieve funding), paid with x402 (minimum: the death reserve)',
    deps.payments?.feed,
  )
}
