// GET /api/snap/status (the Snap's cron): the owner's Golems with phase, vitality, permission health
// and last heartbeat. Guarded twice ("Metadata leakage via Snap"): a bearer token that rotates on every
// heartbeat (each successful call returns the next token and retires the one it used), and an Origin
// allowlist (the Portal).
import { vitalsOf } from '../vitals.ts'
import { createRoute, z } from '@hono/zod-openapi'
import type { Context, MiddlewareHandler } from 'hono'
import { cors } from 'hono/cors'
import type { ApiDeps } from '../deps.ts'
import type { ApiEnv } from '../env.ts'
import { ApiError } from '../errors.ts'
import { apiRouter, errors, ok, security } from '../openapi.ts'
import { snapStatusResponse } from '../schemas.ts'
import { rotateSnapTokenFrom } from '../../../core/snap/snapToken.ts'
import { permissionHealthJson } from './golems.ts'

export const NEXT_TOKEN_HEADER = 'X-Bardo-Next-Token'

const snapHeaders = z.object({
  // Optional here so that a missing token is a 401 (below), not a 400.
  authorization: z
    .string()
    .regex(/^Bearer bardo_snap_\S+$/, "must be 'Bearer bardo_snap_<token>'")
    .optional()
    .meta({ description: 'the current Snap token' }),
  origin: z.string().max(2048, 'must be at most 2048 characters').optional().meta({ description: 'must be on the allowlist (the Portal)' }),
})

/**
 * Exact-match allowlist. A missing Origin is refused too: the Snap's fetch and the Portal are browsers
 * and always send one; a caller that omits it is not the Snap. (A non-browser can forge Origin, so
 * this keeps other web pages out; the rotating token is what keeps everyone else out.)
 */
export function originAllowlist(allowed: readonly string[]): MiddlewareHandler<ApiEnv> {
  const check = originCheck(allowed)
  return async (c, next) => {
    check(c)
    await next()
  }
}

/** The allowlist as a check a handler runs where it must come after the request's validation. */
function originCheck(allowed: readonly string[]): (c: Context) => void {
  const set = new Set(allowed)
  return (c) => {
    const origin = c.req.header('origin')
    if (origin === undefined || !set.has(origin)) {
      throw new ApiError('ORIGIN_NOT_ALLOWED', `origin: ${origin === undefined ? 'is required' : `${origin} is not on the allowlist`}`, {
        origin: origin ?? null,
      })
    }
  }
}

const path = '/api/snap/status'

const statusRoute = createRoute({
  method: 'get',
  path,
  operationId: 'getSnapStatus',
  summary: "Status of the token owner's Golems for the MetaMask Snap cron",
  tags: ['snap'],
  security: security('snap'),
  request: { headers: snapHeaders },
  responses: {
    200: ok("the owner's Golems, and the next Snap token: the token of this call is no longer valid", snapStatusResponse, {
      [NEXT_TOKEN_HEADER]: 'the next Snap token (also in the body as nextToken)',
    }),
    ...errors({
      401: 'SNAP_AUTH_REQUIRED (no token) | INVALID_TOKEN (unknown or rotated token, including one rotated by a concurrent call)',
      403: 'ORIGIN_NOT_ALLOWED',
    }),
  },
})

export function snapRoutes(deps: ApiDeps) {
  const origins = originCheck(deps.config.allowedOrigins)
  const router = apiRouter()
  // CORS for the allowlisted origins only; the preflight carries no token and is answered here.
  router.use(
    path,
    cors({
      origin: (o) => (deps.config.allowedOrigins.includes(o) ? o : null),
      allowHeaders: ['Authorization'],
      allowMethods: ['GET'],
      exposeHeaders: [NEXT_TOKEN_HEADER],
      maxAge: 600,
    }),
  )
  return router.openapi(statusRoute, async (c) => {
    // After the headers are validated, as the allowlist always was.
    origins(c)
    const principal = c.get('principal')
    if (principal.kind !== 'snap') throw new ApiError('SNAP_AUTH_REQUIRED', 'authorization: must carry the current Snap token')
    const golems = await deps.golems.listGolemsByOwner(principal.owner)
    const entries = await Promise.all(
      golems.map(async (g) => {
        // One unreadable permission must not blank the whole panel; the Snap shows "unknown" for it.
        const permission = await deps.health.check(g).then(permissionHealthJson, () => null)
        const vitals = vitalsOf(g, Math.floor(deps.clock.now() / 1000))
        return {
          id: g.id,
          name: g.name,
          phase: vitals?.phase ?? (g.lifecycle === 'dead' ? 'Terminal' : g.phase),
          vitality: vitals?.vitality ?? g.vitality,
          lifecycle: g.lifecycle,
          vitals,
          lastHeartbeatAt: g.lastHeartbeatAt,
          permission,
        }
      }),
    )
    // Rotate last: if anything above failed, the Snap keeps its token and retries on its next cron.
    const presented = c.req.valid('header').authorization?.slice('Bearer '.length) ?? ''
    const nextToken = await rotateSnapTokenFrom(deps.stores.snapTokens, principal.owner, presented, deps.clock.now())
    if (nextToken === undefined) throw new ApiError('INVALID_TOKEN', 'authorization: Snap token was rotated by a concurrent call')
    c.header(NEXT_TOKEN_HEADER, nextToken)
    c.header('Cache-Control', 'no-store')
    return c.json({ owner: principal.owner, generatedAt: Math.floor(deps.clock.now() / 1000), golems: entries, nextToken }, 200)
  })
}
