// Read routes per Golem: permission health, phases, redemptions, spend, payments. History from the
// indexer, payments from the Golem's journal, current state from the chain. Reads work in every lifecycle state, dying and dead included.
import { createRoute, type z } from '@hono/zod-openapi'
import type { TypedResponse } from 'hono'
import type { GolemHealth } from '../../../core/health/golemHealth.ts'
import { findGolem } from '../deathRules.ts'
import type { ApiDeps } from '../deps.ts'
import { apiRouter, errors, ok, security } from '../openapi.ts'
import {
  golemParams,
  pageQuery,
  paymentsResponse,
  permissionHealthResponse,
  phasesResponse,
  redemptionsResponse,
  spendResponse,
} from '../schemas.ts'
import { tierHeaders } from '../rateLimit.ts'

const notFound = { 404: 'GOLEM_NOT_FOUND', 401: 'INVALID_API_KEY | INVALID_TOKEN' } as const
const history = { ...notFound, 503: 'INDEXER_UNAVAILABLE: the indexer did not answer; see Retry-After' } as const

/** core/health's result as JSON: bigints in the revocation state become decimal strings. */
export function permissionHealthJson(r: GolemHealth) {
  const revocation = Object.fromEntries(Object.entries(r.revocation).map(([k, v]) => [k, typeof v === 'bigint' ? v.toString() : v])) as {
    kind: GolemHealth['revocation']['kind']
  } & Record<string, string>
  return {
    health: r.health,
    reason: r.reason,
    remaining_today: r.remaining_today,
    days_remaining: r.days_remaining,
    last_redemption_at: r.last_redemption_at,
    total_remaining: r.total_remaining,
    revocation,
    grant_ends_at: r.grant_ends_at,
    runway_ends_at: r.runway_ends_at,
    renewal: r.renewal,
    rotation: r.rotation,
  }
}

/**
 * The body of a verdict, serialized once: the health service returns the same verdict object while
 * nothing it was computed from changed (the block, the store's record), so every request answered by
 * it gets the same bytes. Keyed by the verdict and the Golem it was asked for.
 */
const healthBodies = new WeakMap<GolemHealth, { golemId: string; body: string }>()

type PermissionHealthBody = z.infer<typeof permissionHealthResponse>

function permissionHealthBody(golemId: string, health: GolemHealth): string {
  const kept = healthBodies.get(health)
  if (kept?.golemId === golemId) return kept.body
  const body = JSON.stringify({ golemId, ...permissionHealthJson(health) } satisfies PermissionHealthBody)
  healthBodies.set(health, { golemId, body })
  return body
}

const base = '/api/v1/golems/{id}'
const common = { tags: ['golems'], security: security('tier') }
const page = { params: golemParams, query: pageQuery, headers: tierHeaders }

const permissionHealthRoute = createRoute({
  ...common,
  method: 'get',
  path: `${base}/permission-health`,
  operationId: 'getPermissionHealth',
  summary: 'Permission health: healthy / low / critical / revoked',
  request: { params: golemParams, headers: tierHeaders },
  responses: { 200: ok('the classification and the numbers behind it', permissionHealthResponse), ...errors(notFound) },
})

const phasesRoute = createRoute({
  ...common,
  method: 'get',
  path: `${base}/phases`,
  operationId: 'getPhases',
  summary: 'Current phase (chain) and phase transitions, newest first, across key rotations (indexer)',
  request: page,
  responses: { 200: ok('current phase and history', phasesResponse), ...errors(history) },
})

const redemptionsRoute = createRoute({
  ...common,
  method: 'get',
  path: `${base}/redemptions`,
  operationId: 'getRedemptions',
  summary: 'Delegation redemptions by this Golem, newest first (indexer)',
  request: page,
  responses: { 200: ok('redemptions', redemptionsResponse), ...errors(history) },
})

const spendRoute = createRoute({
  ...common,
  method: 'get',
  path: `${base}/spend`,
  operationId: 'getSpend',
  summary: "Spend in the runway's current period (chain) and per enforcer period (indexer)",
  request: page,
  responses: { 200: ok('spend', spendResponse), ...errors(history) },
})

const paymentsRoute = createRoute({
  ...common,
  method: 'get',
  path: `${base}/payments`,
  operationId: 'getPayments',
  summary: 'x402 credits (extend and feed) with payer, kind, amount and runway seconds, newest first (journal)',
  request: page,
  responses: { 200: ok('payments', paymentsResponse), ...errors(notFound) },
})

/**
 * The health route as served: documented (and typed for the client) with its tier headers, validated
 * for its path parameter only. The tier middleware (rateLimit.ts) checks the same headers against the
 * same schema on every request before any route runs, and refuses a bad one with the same 400
 * VALIDATION_FAILED naming the header, so checking them again here would only parse them twice.
 */
function servedWithoutHeaderCheck(router: ReturnType<typeof apiRouter>) {
  router.openAPIRegistry.registerPath(permissionHealthRoute)
  // The request type stays the documented one (the handler and the typed client see the headers).
  const request = { params: golemParams } as (typeof permissionHealthRoute)['request']
  return { ...permissionHealthRoute, request, hide: true }
}

export const golemRoutes = (deps: ApiDeps) => {
  const router = apiRouter()
  return router
    .openapi(servedWithoutHeaderCheck(router), async (c) => {
      const golem = await findGolem(deps, c.req.valid('param').id)
      // The answer c.json would give (same bytes, same Content-Type), from the body serialized once.
      const body = permissionHealthBody(golem.id, await deps.health.check(golem))
      return c.body(body, 200, { 'Content-Type': 'application/json' }) as unknown as TypedResponse<PermissionHealthBody, 200, 'json'>
    })
    .openapi(phasesRoute, async (c) => {
      const golem = await findGolem(deps, c.req.valid('param').id)
      const [current, history] = await Promise.all([
        deps.chain.currentPhase(golem),
        deps.history.phaseTransitions(golem, c.req.valid('query')),
      ])
      return c.json(
        {
          golemId: golem.id,
          current: { ...current, blockNumber: current.blockNumber.toString() },
          transitions: history.items.map((t) => ({ ...t, blockNumber: t.blockNumber.toString() })),
          nextCursor: history.nextCursor,
        },
        200,
      )
    })
    .openapi(redemptionsRoute, async (c) => {
      const golem = await findGolem(deps, c.req.valid('param').id)
      const history = await deps.history.redemptions(golem, c.req.valid('query'))
      return c.json(
        {
          golemId: golem.id,
          redemptions: history.items.map((r) => ({
            ...r,
            transfers: r.transfers.map((t) => ({ token: t.token, amount: t.amount.toString() })),
            usd6: r.usd6?.toString() ?? null,
            blockNumber: r.blockNumber.toString(),
          })),
          nextCursor: history.nextCursor,
        },
        200,
      )
    })
    .openapi(spendRoute, async (c) => {
      const golem = await findGolem(deps, c.req.valid('param').id)
      const [current, history] = await Promise.all([
        deps.chain.currentSpend(golem),
        deps.history.spendByPeriod(golem, c.req.valid('query')),
      ])
      return c.json(
        {
          golemId: golem.id,
          current: {
            ...current,
            spent: current.spent.toString(),
            limit: current.limit.toString(),
            remaining: current.remaining.toString(),
            blockNumber: current.blockNumber.toString(),
          },
          periods: history.items.map((p) => ({ ...p, amount: p.amount.toString() })),
          nextCursor: history.nextCursor,
        },
        200,
      )
    })
    .openapi(paymentsRoute, async (c) => {
      const golem = await findGolem(deps, c.req.valid('param').id)
      const credits = await deps.journal.payments(golem, c.req.valid('query'))
      return c.json(
        {
          golemId: golem.id,
          payments: credits.items.map((p) => ({
            kind: p.kind,
            payer: p.payer,
            amount: p.amount.toString(),
            seconds: p.seconds.toString(),
            nonce: p.nonce,
            txHash: p.txHash,
            creditedAt: p.creditedAt,
          })),
          nextCursor: credits.nextCursor,
        },
        200,
      )
    })
}
