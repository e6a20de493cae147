// The one Hono app: Lambda (handler.ts) and the local runner (server.ts) wrap the same thing. Its routes
// come in routers (routes/*), each route declared with createRoute; the OpenAPI document and the typed
// client (hono/client's hc, over AppType) both follow from them.
import { OpenAPIHono } from '@hono/zod-openapi'
import { bodyLimit } from 'hono/body-limit'
import { CladeSecret } from '../../core/clade/secret.ts'
import { ALCHEMY_WEBHOOK_PATH } from '../../core/webhooks/index.ts'
import { golemWriteRules } from './deathRules.ts'
import type { ApiDeps } from './deps.ts'
import type { ApiEnv } from './env.ts'
import { errorResponse, handleApiError } from './errors.ts'
import { apiRouter, registerSecuritySchemes, validationHook } from './openapi.ts'
import { tierRateLimit } from './rateLimit.ts'
import { actionRoutes } from './routes/actions.ts'
import { accessTokenBearer, authRoutes } from './routes/auth.ts'
import { cladeRoutes } from './routes/clade.ts'
import { councilRoutes } from './routes/council.ts'
import { councilFormationRoutes } from './routes/councils.ts'
import { docsRoutes } from './routes/docs.ts'
import { golemRoutes } from './routes/golems.ts'
import { metabolismRoutes } from './routes/metabolism.ts'
import { paymentRoutes } from './routes/payments.ts'
import { renewalRoutes } from './routes/renewal.ts'
import { rotationGrantRoutes } from './routes/rotationGrant.ts'
import { adjustmentRoutes } from './routes/adjustment.ts'
import { ownerDraftRoutes } from './routes/ownerDrafts.ts'
import { observerRoutes } from './routes/observers.ts'
import { fleetRoutes } from './routes/fleet.ts'
import { devicePageRoutes } from './routes/devicePage.ts'
import { eventRoutes } from './routes/events.ts'
import { revocationRoutes } from './routes/revocation.ts'
import { onboardingRoutes } from './routes/onboarding.ts'
import { snapRoutes } from './routes/snap.ts'
import { snapPairingRoutes } from './routes/snapPairing.ts'
import { webhookRoutes } from './routes/webhooks.ts'

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

/**
 * A router this deployment does not serve: an empty one with the served router's type, so that the
 * app's type (and the typed client) knows its routes while the app answers them 404.
 */
const notServed = <R>(): R => apiRouter() as R

export function createApp(given: ApiDeps) {
  // The CLI's access tokens are the API's own; every other bearer token goes to the wired verifier.
  const deps: ApiDeps = { ...given, bearer: accessTokenBearer(given) }
  const secret = new CladeSecret(deps.config.clade.hmacSecret)
  const app = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })

  app.onError(handleApiError(deps.onUnexpectedError))
  app.notFound((c) => errorResponse(c, 'NOT_FOUND', `path: no route ${c.req.method} ${c.req.path}`))

  // Order matters: rate limits first (every response carries the headers), then the body size limit (a
  // body over it is refused before it is read whole), then the death rules for writes.
  app.use('*', tierRateLimit(deps))
  const common = sizeLimit(MAX_BODY_BYTES)
  const webhook = sizeLimit(MAX_WEBHOOK_BODY_BYTES)
  // A GET or HEAD has no body (neither the Node server nor the Lambda adapter builds one with a body), so
  // it skips the check, which would otherwise build the whole Request (stream, abort signal) to find that.
  app.use('*', (c, next) =>
    c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : (c.req.path === ALCHEMY_WEBHOOK_PATH ? webhook : common)(c, next),
  )
  app.use('/api/v1/golems/:id/*', golemWriteRules(deps))
  registerSecuritySchemes(app)

  return app
    .route('/', golemRoutes(deps))
    .route('/', metabolismRoutes(deps))
    .route('/', eventRoutes(deps))
    .route('/', paymentRoutes(deps))
    .route('/', renewalRoutes(deps))
    .route('/', rotationGrantRoutes(deps))
    .route('/', adjustmentRoutes(deps))
    .route('/', ownerDraftRoutes(deps))
    .route('/', observerRoutes(deps))
    .route('/', fleetRoutes(deps))
    .route('/', revocationRoutes(deps))
    .route('/', onboardingRoutes(deps))
    .route('/', snapRoutes(deps))
    .route('/', snapPairingRoutes(deps))
    .route('/', authRoutes(deps))
    .route('/', devicePageRoutes())
    .route('/', cladeRoutes(deps, secret))
    .route('/', webhookRoutes(deps))
    .route('/', deps.actions ? actionRoutes(deps.actions) : notServed<ReturnType<typeof actionRoutes>>())
    .route('/', councilFormationRoutes(deps))
    .route('/', deps.councils ? councilRoutes(deps, deps.councils, secret) : notServed<ReturnType<typeof councilRoutes>>())
    .route('/', docsRoutes(app, API_VERSION))
}

/** The API app, with every route it can serve in its type: what hono/client's `hc` is typed from. */
export type ApiApp = ReturnType<typeof createApp>
export type AppType = ApiApp
