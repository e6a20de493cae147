// The owner's dashboard reads: GET /api/v1/dashboard/config (the chain, the runway token and the tokens
// the page names, and whether the indexer is wired here) and GET /api/v1/fleet?owner= (every Golem of the
// owner's smart account with its grants in words, app/fleet.ts). Both only read; the owner's acts are
// drafted by the owner routes and signed in the owner's wallet.
import { createRoute, z } from '@hono/zod-openapi'
import { FleetError } from '../../../app/fleet.ts'
import type { ApiDeps } from '../deps.ts'
import { ApiError } from '../errors.ts'
import { apiRouter, errors, ok, security } from '../openapi.ts'
import { tierHeaders } from '../rateLimit.ts'

const anyObject = z.record(z.string(), z.unknown())

const configRoute = createRoute({
  method: 'get',
  path: '/api/v1/dashboard/config',
  operationId: 'getDashboardConfig',
  summary: "The dashboard's chain settings: chain id, CAIP-2 network, the runway token, the tokens it names, whether the indexer is wired",
  tags: ['owner'],
  security: security('tier'),
  request: { headers: tierHeaders },
  responses: {
    200: ok(
      'the settings',
      z.object({
        chainId: z.number().int(),
        network: z.string(),
        usdc: z.string(),
        tokens: z.record(z.string(), z.object({ symbol: z.string(), decimals: z.number().int() })),
        indexer: z.boolean(),
      }),
    ),
    ...errors({ 501: 'NOT_IMPLEMENTED: no fleet reads wired here' }),
  },
})

const fleetRoute = createRoute({
  method: 'get',
  path: '/api/v1/fleet',
  operationId: 'getFleet',
  summary: "Every Golem of the owner's smart account, with its grants decoded and each caveat in words",
  tags: ['owner'],
  security: security('tier'),
  request: {
    headers: tierHeaders,
    query: z.object({ owner: z.string().optional().meta({ description: "the owner's smart account address" }) }),
  },
  responses: {
    200: ok('the fleet at the chain’s latest block', z.object({ owner: z.string(), now: z.number().int(), golems: z.array(anyObject) })),
    ...errors({ 400: 'VALIDATION_FAILED naming owner', 501: 'NOT_IMPLEMENTED: no fleet reads wired here' }),
  },
})

export const fleetRoutes = (deps: ApiDeps) =>
  apiRouter()
    .openapi(configRoute, (c) => {
      if (!deps.fleet) throw new ApiError('NOT_IMPLEMENTED', 'dashboard config: not configured on this deployment')
      return c.json(deps.fleet.config(), 200)
    })
    .openapi(fleetRoute, async (c) => {
      if (!deps.fleet) throw new ApiError('NOT_IMPLEMENTED', 'fleet: not configured on this deployment')
      const owner = c.req.valid('query').owner ?? ''
      const fleet = await deps.fleet.golems(owner).catch((error: unknown) => {
        if (error instanceof FleetError) throw new ApiError('VALIDATION_FAILED', error.message, error.details ?? {})
        throw error
      })
      return c.json(fleet as never, 200)
    })
