// GET /api/v1/golems/:id/metabolism: what the Golem's life costs, per period and by kind, the runway it
// redeemed, and the lifespan its money projects. Read from its journal; works in every lifecycle state.
import { createRoute, z } from '@hono/zod-openapi'
import type { Metabolism } from '../../../core/lifecycle/metabolism.ts'
import { findGolem } from '../deathRules.ts'
import type { ApiDeps } from '../deps.ts'
import { ApiError } from '../errors.ts'
import { apiRouter, errors, ok, security } from '../openapi.ts'
import { tierHeaders } from '../rateLimit.ts'
import { golemParams } from '../schemas.ts'

const decimal = z.string().regex(/^\d+$/)
const usdc = decimal.meta({ description: "the payment asset's atomic units (USDC: 6 decimals)" })
const wei = decimal.meta({ description: 'wei' })
const costs = { runwayRedeemed: usdc, runtimeBought: usdc, gasRedeemed: wei }

export const metabolismResponse = z.object({
  golemId: z.string(),
  periodSeconds: decimal.meta({ description: "the runway's period" }),
  periods: z.array(z.object({ start: decimal.meta({ description: 'period start, unix seconds' }), ...costs })),
  totals: z.object(costs),
  held: usdc.meta({ description: 'runway redeemed and not yet spent on runtime' }),
  projectedEnd: decimal.meta({ description: "unix seconds: the TTL plus what `held` buys, never past the owner's grant" }),
  projectedLifespanSeconds: decimal,
})

export function metabolismJson(golemId: string, m: Metabolism): z.infer<typeof metabolismResponse> {
  const costsJson = (c: Metabolism['totals']) => ({
    runwayRedeemed: c.runwayRedeemed.toString(),
    runtimeBought: c.runtimeBought.toString(),
    gasRedeemed: c.gasRedeemed.toString(),
  })
  return {
    golemId,
    periodSeconds: m.periodSeconds.toString(),
    periods: m.periods.map((p) => ({ start: p.start.toString(), ...costsJson(p) })),
    totals: costsJson(m.totals),
    held: m.held.toString(),
    projectedEnd: m.projectedEnd.toString(),
    projectedLifespanSeconds: m.projectedLifespanSeconds.toString(),
  }
}

const metabolismRoute = createRoute({
  method: 'get',
  path: '/api/v1/golems/{id}/metabolism',
  operationId: 'getMetabolism',
  tags: ['golems'],
  security: security('tier'),
  summary: 'Costs per period by kind (runtime bought, gas redeemed), runway redeemed and the projected lifespan (journal)',
  request: { params: golemParams, headers: tierHeaders },
  responses: {
    200: ok('the metabolism', metabolismResponse),
    ...errors({ 404: 'GOLEM_NOT_FOUND', 401: 'INVALID_API_KEY | INVALID_TOKEN', 501: 'NOT_IMPLEMENTED: no runtime price is configured' }),
  },
})

export const metabolismRoutes = (deps: ApiDeps) =>
  apiRouter().openapi(metabolismRoute, async (c) => {
    const golem = await findGolem(deps, c.req.valid('param').id)
    if (!deps.metabolism) throw new ApiError('NOT_IMPLEMENTED', 'metabolism: no runtime price is configured on this deployment')
    return c.json(metabolismJson(golem.id, await deps.metabolism.metabolism(golem)), 200)
  })
