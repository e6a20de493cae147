// POST /api/v1/golems/:id/adjustment: the owner lowers or shortens a Golem's runway grant without
// revoking it. The body is the owner's signed narrower grant; the signature is the authentication (no API
// key or token can stand in for the owner). It waits until the owner's transaction disables the grants it
// supersedes (listed in the answer), then takes their place at the next tick. The death rules (app.ts)
// refuse a dying or dead Golem first; a refused adjustment changes nothing.
import { createRoute } from '@hono/zod-openapi'
import type { Delegation } from '@metamask/smart-accounts-kit'
import { AdjustmentError } from '../../../core/lifecycle/adjustment.ts'
import type { ApiDeps } from '../deps.ts'
import { ApiError } from '../errors.ts'
import { apiRouter, errors, jsonBody, ok, security } from '../openapi.ts'
import { adjustmentRequest, adjustmentResponse, golemParams } from '../schemas.ts'

const adjustmentRoute = createRoute({
  method: 'post',
  path: '/api/v1/golems/{id}/adjustment',
  operationId: 'adjustGrant',
  summary:
    "Lower or shorten a Golem's runway grant with the owner's signed narrower delegation (same delegate, higher salt, starting at the next period boundary, a lower period amount or an earlier end, nothing wider)",
  tags: ['golems'],
  security: security('tier'),
  request: { params: golemParams, body: jsonBody(adjustmentRequest) },
  responses: {
    200: ok("stored: it takes over once the owner's transaction disables every grant in `supersedes`", adjustmentResponse),
    ...errors({
      404: 'GOLEM_NOT_FOUND',
      410: 'GOLEM_DEAD',
      422: 'ADJUSTMENT_REFUSED: details.field and details.rule name what is wrong (signature, delegate, salt, amount, end, period grid, attenuation)',
      501: 'NOT_IMPLEMENTED: adjustments are not wired',
      503: 'GOLEM_DYING',
    }),
  },
})

export const adjustmentRoutes = (deps: ApiDeps) =>
  apiRouter().openapi(adjustmentRoute, async (c) => {
    if (!deps.adjustments) throw new ApiError('NOT_IMPLEMENTED', 'adjustment: not configured on this deployment')
    const golem = c.get('golem')
    const { delegation } = c.req.valid('json')
    try {
      const adjusted = await deps.adjustments.adjust(golem.id, delegation as Delegation)
      return c.json(
        {
          golemId: golem.id,
          delegationHash: adjusted.delegationHash,
          supersedes: adjusted.supersedes,
          periodAmount: adjusted.periodAmount.toString(),
          periodStart: Number(adjusted.periodStart),
          grant_ends_at: Number(adjusted.expiresAt),
        },
        200,
      )
    } catch (error) {
      if (error instanceof AdjustmentError) throw new ApiError('ADJUSTMENT_REFUSED', error.message, error.details ?? {})
      throw error
    }
  })
