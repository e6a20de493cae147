// POST /api/v1/golems/:id/renewal: Feed-the-Golem renewal. The body is the owner's signed superseding
// runway grant; the signature is the authentication (no API key or token can stand in for the owner).
// The death rules (app.ts) refuse a dying or dead Golem first; a refused renewal changes nothing.
import type { Hono } from 'hono'
import type { Delegation } from '@metamask/smart-accounts-kit'
import { RenewalError } from '../../../core/lifecycle/renewalCheck.ts'
import type { ApiDeps } from '../deps.ts'
import type { ApiEnv } from '../env.ts'
import { ApiError } from '../errors.ts'
import type { RouteDocs } from '../openapi.ts'
import { golemParams, renewalRequest, renewalResponse } from '../schemas.ts'
import { validate } from '../validation.ts'

export function registerRenewalRoutes(app: Hono<ApiEnv>, deps: ApiDeps, docs: RouteDocs): void {
  const path = '/api/v1/golems/:id/renewal'
  docs.add({
    method: 'post',
    path,
    operationId: 'renewGrant',
    summary:
      "Renew a Golem's runway grant with the owner's signed delegation that follows it (same delegate, higher salt, starting where the newest grant stops paying, later end, nothing wider)",
    tags: ['golems'],
    security: 'tier',
    request: { params: golemParams, body: renewalRequest },
    responses: {
      200: {
        description: 'queued: the grant it follows pays to its end, this one from its first period on; never both in one period',
        schema: renewalResponse,
      },
    },
    errors: {
      404: 'GOLEM_NOT_FOUND',
      410: 'GOLEM_DEAD',
      422: 'RENEWAL_REFUSED: details.field and details.rule name what is wrong (signature, delegate, salt, window, period grid, attenuation)',
      501: 'NOT_IMPLEMENTED: renewals are not wired',
      503: 'GOLEM_DYING',
    },
  })
  app.post(path, validate('param', golemParams), validate('json', renewalRequest), async (c) => {
    if (!deps.renewals) throw new ApiError('NOT_IMPLEMENTED', 'renewal: not configured on this deployment')
    const golem = c.get('golem')
    const { delegation } = c.req.valid('json')
    try {
      const renewed = await deps.renewals.renew(golem.id, delegation as Delegation)
      return c.json({
        golemId: golem.id,
        delegationHash: renewed.delegationHash,
        replaced: renewed.replaced,
        grant_ends_at: Number(renewed.expiresAt),
        periodStart: Number(renewed.periodStart),
      })
    } catch (error) {
      if (error instanceof RenewalError) throw new ApiError('RENEWAL_REFUSED', error.message, error.details ?? {})
      throw error
    }
  })
}
