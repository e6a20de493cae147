// The owner's one act of revocation. GET /api/v1/golems/:id/revocation answers the calls that disable
// every grant the owner signed for the Golem and the chain still holds enabled, for the owner's wallet to
// send as one batch (public data: every hash is on-chain once used). POST tells the API that the
// revocation landed: once the chain confirms the runway disabled, the Golem is due at once and its next
// heartbeat runs the death protocol. Anyone may POST; only a revocation that happened wakes anything.
import { createRoute } from '@hono/zod-openapi'
import { BardoError } from '../../../core/errors.ts'
import { findGolem } from '../deathRules.ts'
import type { ApiDeps } from '../deps.ts'
import { ApiError } from '../errors.ts'
import { apiRouter, errors, ok, security } from '../openapi.ts'
import { golemParams, revocationResponse, revocationWakeResponse } from '../schemas.ts'

const path = '/api/v1/golems/{id}/revocation'

const revocationRoute = createRoute({
  method: 'get',
  path,
  operationId: 'getRevocation',
  summary: "The owner's revocation of a Golem: one batch of disableDelegation calls covering every grant the owner signed for it",
  tags: ['golems'],
  security: security('tier'),
  request: { params: golemParams },
  responses: {
    200: ok('the calls still needed (empty once everything is disabled)', revocationResponse),
    ...errors({ 404: 'GOLEM_NOT_FOUND', 501: 'NOT_IMPLEMENTED: revocations are not wired' }),
  },
})

const wakeRoute = createRoute({
  method: 'post',
  path,
  operationId: 'wakeRevoked',
  summary: "Tell the API an owner's revocation landed: the Golem is due now and dies at its next heartbeat",
  tags: ['golems'],
  security: security('tier'),
  request: { params: golemParams },
  responses: {
    202: ok('the chain reports the runway disabled, or the death protocol already runs or ran (woken: false)', revocationWakeResponse),
    ...errors({
      404: 'GOLEM_NOT_FOUND',
      409: 'GOLEM_NOT_REVOKED: the chain does not report the runway disabled; nothing changed',
      501: 'NOT_IMPLEMENTED: revocations are not wired',
    }),
  },
})

export const revocationRoutes = (deps: ApiDeps) =>
  apiRouter()
    .openapi(revocationRoute, async (c) => {
      if (!deps.revocations) throw new ApiError('NOT_IMPLEMENTED', 'revocation: not configured on this deployment')
      const golem = await findGolem(deps, c.req.valid('param').id)
      const plan = await deps.revocations.plan(golem.id).catch((error: unknown) => {
        if (error instanceof BardoError && error.code === 'GOLEM_NOT_FOUND')
          throw new ApiError('GOLEM_NOT_FOUND', error.message, { golemId: golem.id })
        throw error
      })
      return c.json(
        {
          golemId: golem.id,
          owner: plan.owner,
          calls: plan.calls.map((call) => ({
            to: call.to,
            value: '0',
            data: call.data,
            delegationHash: call.hash,
            kind: call.kind,
            label: call.label,
          })),
          alreadyDisabled: plan.alreadyDisabled,
        },
        200,
      )
    })
    .openapi(wakeRoute, async (c) => {
      if (!deps.revocations) throw new ApiError('NOT_IMPLEMENTED', 'revocation: not configured on this deployment')
      const golem = await findGolem(deps, c.req.valid('param').id)
      // Its death protocol already runs (or ran): the revocation needs nothing more from the API.
      if (golem.lifecycle !== 'alive') return c.json({ golemId: golem.id, woken: false }, 202)
      try {
        const { woken } = await deps.revocations.wake(golem.id)
        return c.json({ golemId: golem.id, woken }, 202)
      } catch (error) {
        if (error instanceof BardoError && error.code === 'GOLEM_NOT_REVOKED')
          throw new ApiError('GOLEM_NOT_REVOKED', error.message, { golemId: golem.id })
        throw error
      }
    })
