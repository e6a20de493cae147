// POST /api/v1/golems/:id/rotation-grant: the owner's answer to a key rotation only the owner can sign
// for. The body is the owner's signed runway grant to the new key the rotation created, and its gas grant
// to that key when the old key had one; the signatures are the authentication. The next tick's rotation installs it. A refused grant changes nothing.
import { createRoute } from '@hono/zod-openapi'
import type { Delegation } from '@metamask/smart-accounts-kit'
import { RotationGrantError } from '../../../core/lifecycle/rotationGrant.ts'
import type { ApiDeps } from '../deps.ts'
import { ApiError } from '../errors.ts'
import { apiRouter, errors, jsonBody, ok, security } from '../openapi.ts'
import { golemParams, rotationGrantRequest, rotationGrantResponse } from '../schemas.ts'

const rotationGrantRoute = createRoute({
  method: 'post',
  path: '/api/v1/golems/{id}/rotation-grant',
  operationId: 'answerRotation',
  summary:
    "Answer a key rotation with the owner's signed runway grant to the new key (the newest grant's runway and end, from the grid's next boundary), and its gas grant when the old key had one",
  tags: ['golems'],
  security: security('tier'),
  request: { params: golemParams, body: jsonBody(rotationGrantRequest) },
  responses: {
    200: ok('kept: the next tick rotates the Golem to the new key with this grant', rotationGrantResponse),
    ...errors({
      404: 'GOLEM_NOT_FOUND',
      410: 'GOLEM_DEAD',
      422: 'ROTATION_GRANT_REFUSED: details.field and details.rule name what is wrong (no rotation waits, signature, delegate, salt, amount, end, period grid, attenuation, the gas grant to the new key)',
      501: 'NOT_IMPLEMENTED: rotation grants are not wired',
      503: 'GOLEM_DYING',
    }),
  },
})

export const rotationGrantRoutes = (deps: ApiDeps) =>
  apiRouter().openapi(rotationGrantRoute, async (c) => {
    if (!deps.rotationGrants) throw new ApiError('NOT_IMPLEMENTED', 'rotation grant: not configured on this deployment')
    const golem = c.get('golem')
    const { delegation, gas } = c.req.valid('json')
    try {
      const answered = await deps.rotationGrants.answer(golem.id, delegation as Delegation, gas as Delegation | undefined)
      return c.json(
        {
          golemId: golem.id,
          delegationHash: answered.delegationHash,
          gasDelegationHash: answered.gasDelegationHash,
          to: answered.to,
          periodStart: Number(answered.periodStart),
          grant_ends_at: Number(answered.expiresAt),
        },
        200,
      )
    } catch (error) {
      if (error instanceof RotationGrantError) throw new ApiError('ROTATION_GRANT_REFUSED', error.message, error.details ?? {})
      throw error
    }
  })
