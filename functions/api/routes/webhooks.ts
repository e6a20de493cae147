// POST /api/v1/webhooks/alchemy: Alchemy Notify's deliveries of the custody events of the
// DelegationManager (for watched owners) and the VitalityOracle. The body may be up to
// MAX_WEBHOOK_BODY_BYTES (functions/api/app.ts); the signature over the raw body is checked before
// anything is parsed; a delivery id is acted on once; the Golems the logs concern are ticked at once, so
// an owner's revocation shows in their health within seconds instead of at the next beat. A refused
// delivery runs nothing.
import { createRoute, z } from '@hono/zod-openapi'
import {
  ALCHEMY_WEBHOOK_PATH,
  alchemyNotificationSchema,
  checkNotificationAge,
  decodeCustodySignals,
  parseAlchemyNotification,
  WebhookBodyError,
  WebhookSignatureError,
} from '../../../core/webhooks/index.ts'
import type { ApiDeps } from '../deps.ts'
import { ApiError } from '../errors.ts'
import { apiRouter, checkedByHandler, errors, jsonBody, ok, security } from '../openapi.ts'

const signatureHeaders = z.object({
  'x-alchemy-signature': z.string().meta({ description: "hex HMAC-SHA256 of the raw body under the webhook's signing key" }),
})

export const webhookResponse = z.object({
  id: z.string().meta({ description: 'the delivery id' }),
  duplicate: z.boolean().meta({ description: 'true: this id was acted on before, nothing ran now' }),
  signals: z.number().int().meta({ description: 'custody events in the delivery' }),
  ignored: z.number().int().meta({ description: "logs that are not custody events (other contracts, the Golems' own posts)" }),
  woken: z.array(z.object({ golemId: z.string(), reasons: z.array(z.string()) })).meta({ description: 'Golems ticked now' }),
})

function bodyError(e: WebhookBodyError): ApiError {
  return new ApiError('VALIDATION_FAILED', e.message, { issues: [{ location: 'json', path: e.field, rule: e.rule, code: 'custom' }] })
}

const webhookRoute = createRoute({
  method: 'post',
  path: ALCHEMY_WEBHOOK_PATH,
  operationId: 'alchemyNotify',
  summary:
    "Alchemy Notify delivery of the DelegationManager's (watched owners') and VitalityOracle's custody events: the Golems they concern are ticked at once",
  tags: ['webhooks'],
  security: security('alchemy'),
  request: { headers: signatureHeaders, body: jsonBody(alchemyNotificationSchema) },
  responses: {
    200: ok('verified; the concerned Golems ticked (or the id was seen before)', webhookResponse),
    ...errors({
      400: 'VALIDATION_FAILED: the body is not a custom-webhook delivery, or createdAt is older than 24 hours (details name the field)',
      401: "WEBHOOK_BAD_SIGNATURE: X-Alchemy-Signature is missing or is not the body's HMAC-SHA256 under the signing key",
      413: 'PAYLOAD_TOO_LARGE: a body over 1 MiB (this route only; 64 KiB elsewhere)',
      501: 'NOT_IMPLEMENTED: no Alchemy webhook signing key is configured',
    }),
  },
})

export function webhookRoutes(deps: ApiDeps) {
  const router = apiRouter()
  // The signature is checked over the raw body before anything is parsed, so the handler reads the request itself.
  return router.openapi(checkedByHandler(router, webhookRoute), async (c) => {
    const hook = deps.alchemyWebhook
    if (!hook) throw new ApiError('NOT_IMPLEMENTED', 'webhooks: no Alchemy webhook signing key is configured on this deployment')
    const raw = await c.req.text()
    try {
      hook.signingKey.verify(raw, c.req.header('x-alchemy-signature'))
    } catch (e) {
      if (e instanceof WebhookSignatureError) throw new ApiError('WEBHOOK_BAD_SIGNATURE', e.message, { field: 'x-alchemy-signature' })
      throw e
    }
    let json: unknown
    try {
      json = JSON.parse(raw)
    } catch {
      throw bodyError(new WebhookBodyError('body', 'must be JSON'))
    }
    let notification: ReturnType<typeof parseAlchemyNotification>
    const now = deps.clock.now()
    try {
      notification = parseAlchemyNotification(json)
      checkNotificationAge(notification, now)
    } catch (e) {
      if (e instanceof WebhookBodyError) throw bodyError(e)
      throw e
    }
    const { signals, ignored } = decodeCustodySignals(notification.logs, hook.contracts)
    const base = { id: notification.id, signals: signals.length, ignored }
    // Claimed before the ticks run: a retry that arrives while they run wakes nothing twice.
    if (!(await hook.claimDelivery(notification.id, now))) return c.json({ ...base, duplicate: true, woken: [] }, 200)
    const woken = signals.length === 0 ? [] : await hook.wake(signals)
    return c.json({ ...base, duplicate: false, woken }, 200)
  })
}
