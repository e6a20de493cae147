// POST /api/v1/golems/:id/renewal: Feed-the-Golem renewal. The body is the owner's signed superseding
// runway grant; the signature is the authentication (no API key or token can stand in for the owner).
// The death rules (app.ts) refuse a dying or dead Golem first; a refused renewal changes nothing.
import { createRoute } from '@hono/zod-openapi'
import type { Delegation } from '@metamask/smart-accounts-kit'
import { RenewalError } from '../../../core/lifecycle/renewalCheck.ts'
import type { ApiDeps } from '../deps.ts'
import { ApiError } from '../errors.ts'
import { apiRouter, errors, jsonBody, ok, security } from '../openapi.ts'
import { golemParams, renewalRequest, renewalResponse } from '../schemas.ts'

const renewalRoute = createRoute({
  method: 'post',
  path: '/api/v1/golems/{id}/renewal',
  operationId: 'renewGrant',
  summary:
    "Renew a Golem's runway grant with the owner's signed delegation that follows it (same delegate, higher salt, starting where the newest grant stops paying, later end, nothing wider)",
  tags: ['golems'],
  security: security('tier'),
  request: { params: golemParams, body: jsonBody(renewalRequest) },
  responses: {
    200: ok('queued: the grant it follows pays to its end, this one from its first period on; never both in one period', renewalResponse),
    ...errors({
      404: 'GOLEM_NOT_FOUND',
      410: 'GOLEM_DEAD',
      422: 'RENEWAL_REFUSED: details.field and details.rule name what is wrong (signature, delegate, salt, window, period grid, attenuation)',
      501: 'NOT_IMPLEMENTED: renewals are not wired',
      503: 'GOLEM_DYING',
    }),
  },
})

export const renewalRoutes = (deps: ApiDeps) =>
  apiRouter().openapi(renewalRoute, async (c) => {
    if (!deps.renewals) throw new ApiError('NOT_IMPLEMENTED', 'renewal: not configured on this deployment')
    const golem = c.get('golem')
    const { delegation } = c.req.valid('json')
    try {
      const renewed = await deps.renewals.renew(golem.id, delegation as Delegation)
      return c.json(
        {
          golemId: golem.id,
          delegationHash: renewed.delegationHash,
          replaced: renewed.replaced,
          grant_ends_at: Number(renewed.expiresAt),
          periodStart: Number(renewed.periodStart),
        },
        200,
      )
    } catch (error) {
      if (error instanceof RenewalError) throw new ApiError('RENEWAL_REFUSED', error.message, error.details ?? {})
      throw error
    }
  })
