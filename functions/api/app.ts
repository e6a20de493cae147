// The one Hono app: Lambda (handler.ts) and the local runner (server.ts) wrap the same thing.
import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { CladeSecret } from '../../core/clade/secret.ts'
import { ALCHEMY_WEBHOOK_PATH } from '../../core/webhooks/index.ts'
import { golemWriteRules } from './deathRules.ts'
import type { ApiDeps } from './deps.ts'
import type { ApiEnv } from './env.ts'
import { errorResponse, handleApiError } from './errors.ts'
import { buildOpenApiDocument, RouteDocs } from './openapi.ts'
import { tierRateLimit } from './rateLimit.ts'
import { registerActionRoutes } from './routes/actions.ts'
import { accessTokenBearer, registerAuthRoutes } from './routes/auth.ts'
import { registerCladeRoutes } from './routes/clade.ts'
import { registerCouncilRoutes } from './routes/council.ts'
import { registerGolemRoutes } from './routes/golems.ts'
import { registerMetabolismRoutes } from './routes/metabolism.ts'
import { registerPaymentRoutes } from './routes/payments.ts'
import { registerRenewalRoutes } from './routes/renewal.ts'
import { registerRevocationRoutes } from './routes/revocation.ts'
import { registerSnapRoutes } from './routes/snap.ts'
import { registerSnapPairingRoutes } from './routes/snapPairing.ts'
import { registerWebhookRoutes } from './routes/webhooks.ts'

export const API_VERSION = '1.0.0'

/**
 * The largest request body any route accepts, in bytes. The biggest legitimate body (a renewal carrying
 * a signed delegation chain) is a few KiB; everything above this is refused before it is read whole.
 */
export const MAX_BODY_BYTES = 64 * 1024

/**
 * The Alchemy webhook's limit: a delivery is one block's custody logs, and a busy block's may exceed
 * the common limit; refusing it whole would drop the owner's revocation it holds with the rest. The
 * signature over the body is checked before it is parsed.
 */
export const MAX_WEBHOOK_BODY_BYTES = 1024 * 1024

const sizeLimit = (maxSize: number) =>
  bodyLimit({
    maxSize,
    onError: (c) => errorResponse(c, 'PAYLOAD_TOO_LARGE', `body: must be at most ${maxSize} bytes`, { limitBytes: maxSize }),
  })

export type ApiApp = Hono<ApiEnv> & { routeDocs: RouteDocs }

export function createApp(given: ApiDeps): ApiApp {
  // The CLI's access tokens are the API's own; every other bearer token goes to the wired verifier.
  const deps: ApiDeps = { ...given, bearer: accessTokenBearer(given) }
  const secret = new CladeSecret(deps.config.clade.hmacSecret)
  const app = new Hono<ApiEnv>()
  const docs = new RouteDocs()

  app.onError(handleApiError(deps.onUnexpectedError))
  app.notFound((c) => errorResponse(c, 'NOT_FOUND', `path: no route ${c.req.method} ${c.req.path}`))

  // Order matters: rate limits first (every response carries the headers), then the body size limit (a
  // body over it is refused before it is read whole), then the death rules for writes.
  app.use('*', tierRateLimit(deps))
  const common = sizeLimit(MAX_BODY_BYTES)
  const webhook = sizeLimit(MAX_WEBHOOK_BODY_BYTES)
  app.use('*', (c, next) => (c.req.path === ALCHEMY_WEBHOOK_PATH ? webhook : common)(c, next))
  app.use('/api/v1/golems/:id/*', golemWriteRules(deps))

  registerGolemRoutes(app, deps, docs)
  registerMetabolismRoutes(app, deps, docs)
  registerPaymentRoutes(app, deps, docs)
  registerRenewalRoutes(app, deps, docs)
  registerRevocationRoutes(app, deps, docs)
  registerSnapRoutes(app, deps, docs)
  registerSnapPairingRoutes(app, deps, docs)
  registerAuthRoutes(app, deps, docs)
  registerCladeRoutes(app, deps, docs, secret)
  registerWebhookRoutes(app, deps, docs)
  if (deps.actions) registerActionRoutes(app, deps.actions, docs)
  if (deps.council) registerCouncilRoutes(app, deps, deps.council, docs, secret)

  docs.add({
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApi',
    summary: 'This document',
    tags: ['meta'],
    security: 'tier',
    responses: { 200: { description: 'OpenAPI 3.1 document' } },
  })
  let document: unknown
  app.get('/openapi.json', (c) =>
    c.json((document ??= buildOpenApiDocument(docs.routes, { title: 'Bardo Custody API', version: API_VERSION }))),
  )

  return Object.assign(app, { routeDocs: docs })
}
