// Death-protocol rules: no new writes to a Golem whose death protocol has begun;
// reads keep working so the owner can watch the settlement.
import type { Context, MiddlewareHandler } from 'hono'
import type { ApiDeps, GolemView } from './deps.ts'
import type { ApiEnv } from './env.ts'
import { ApiError } from './errors.ts'
import { golemParams } from './schemas.ts'
import { validationError } from './validation.ts'

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

export async function findGolem(deps: ApiDeps, id: string): Promise<GolemView> {
  const golem = await deps.golems.getGolem(id)
  if (!golem) throw new ApiError('GOLEM_NOT_FOUND', `id: no Golem ${id}`, { golemId: id })
  return golem
}

/**
 * Refuses a write to a dying Golem with 503 GOLEM_DYING and to a dead one with 410
 * GOLEM_DEAD: the death protocol is irreversible, so for a dead Golem no retry can ever succeed, and
 * 410 says so where a 503 would invite retries. Puts the Golem on the context for the handler: this is
 * the request's one read of it (a paid credit compare-and-swaps on its version).
 */
export function refuseWritesToDying(deps: ApiDeps, golemIdOf: (c: Context<ApiEnv>) => string): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const golem = await findGolem(deps, golemIdOf(c))
    if (golem.lifecycle === 'dying') {
      throw new ApiError('GOLEM_DYING', `${golem.id}: the death protocol is running; writes are refused, reads still work`, {
        golemId: golem.id,
        lifecycle: golem.lifecycle,
      })
    }
    if (golem.lifecycle === 'dead') {
      throw new ApiError('GOLEM_DEAD', `${golem.id}: the Golem is dead; it accepts no writes`, {
        golemId: golem.id,
        lifecycle: golem.lifecycle,
      })
    }
    c.set('golem', golem)
    await next()
  }
}

/**
 * Drafts that take authority back stay open to the owner of a dying or dead Golem: they change nothing,
 * and a grant from the owner's account (an observer's) outlives the Golem it was given for. So does the
 * news that the owner's revocation landed: its heartbeat may have found it first and begun the death
 * protocol, and the owner is told so (woken: false) rather than refused.
 */
const TAKES_AUTHORITY_BACK = /\/revocation(-draft)?$/

/** Every non-read method under /api/v1/golems/:id/* but the drafts that take authority back. */
export function golemWriteRules(deps: ApiDeps): MiddlewareHandler<ApiEnv> {
  const guard = refuseWritesToDying(deps, (c) => {
    const params = golemParams.safeParse({ id: c.req.param('id') })
    if (!params.success) throw validationError('param', params.error.issues)
    return params.data.id
  })
  return async (c, next) => (READ_METHODS.has(c.req.method) || TAKES_AUTHORITY_BACK.test(c.req.path) ? next() : guard(c, next))
}
