// Tiers and limits as middleware: identify the caller, count in the store, put X-RateLimit-* on the
// response (errors included), refuse with 429 + Retry-After. A bearer or Snap token is charged to the
// client address before it is checked, so refused credentials never cost more checks than the budget.
import type { Context, MiddlewareHandler } from 'hono'
import * as z from 'zod'
import {
  CLADE_CHALLENGE_LIMIT,
  claimTier,
  consumeRateLimit,
  hashApiKey,
  rateLimitBucket,
  rateLimitHeaders,
  READ_KEY_PATTERN,
  READ_KEY_RULE,
  TIER_LIMITS,
  type RateLimitBucketKind,
  type RateLimitDecision,
  type Tier,
} from '../../core/ratelimit/index.ts'
import { clientAddress } from './clientAddress.ts'
import type { ApiDeps } from './deps.ts'
import type { ApiEnv, Principal } from './env.ts'
import { ApiError } from './errors.ts'
import { isSnapTokenShaped, verifySnapToken } from '../../core/snap/snapToken.ts'
import { validationError } from './validation.ts'

export const tierHeaders = z.object({
  'x-api-key': z.string().regex(READ_KEY_PATTERN, READ_KEY_RULE).optional().meta({ description: 'read key: 300 requests/min/key' }),
  authorization: z
    .string()
    .regex(/^Bearer [A-Za-z0-9._~+/=-]{1,4096}$/, "must be 'Bearer <token>'")
    .optional()
    .meta({ description: 'Bearer <token>: 1000 requests/min/user' }),
})

type Limits = {
  public: number
  read: number
  authenticated: number
  cladeChallenge: number
  clade: number
  credential: number
  cladeHandshake: number
}

/**
 * The pre-auth budgets follow the limits they guard: an address may present as many tokens as one
 * authenticated user may send, and as many CladeChallenge signatures as it may fetch challenges.
 */
export function limitsOf(deps: ApiDeps): Limits {
  const limits = { ...TIER_LIMITS, cladeChallenge: CLADE_CHALLENGE_LIMIT, clade: TIER_LIMITS.authenticated, ...deps.config.rateLimits }
  return { ...limits, credential: limits.authenticated, cladeHandshake: limits.cladeChallenge }
}

/** Counts one request, sets the headers, and throws RATE_LIMITED when the window is used up. */
export async function charge(
  c: Context,
  deps: ApiDeps,
  tier: RateLimitBucketKind,
  subject: string,
  limit: number,
): Promise<RateLimitDecision> {
  const decision = await consumeRateLimit(deps.stores.rateLimits, rateLimitBucket(tier, subject), limit, deps.clock.now())
  for (const [name, value] of Object.entries(rateLimitHeaders(decision))) c.header(name, value)
  if (!decision.allowed) {
    throw new ApiError(
      'RATE_LIMITED',
      `rate limit: ${decision.limit} requests per minute for the ${tier} tier; retry after ${decision.retryAfter} s`,
      {
        tier,
        limit: decision.limit,
        retryAfter: decision.retryAfter,
        resetAt: decision.resetAt,
      },
    )
  }
  return decision
}

/**
 * Puts the headers on the final response as well: c.header() reaches responses built with c.json(),
 * but not a Response a handler or a third-party middleware (x402's 402) constructs itself.
 */
export function keepRateLimitHeaders(c: Context, decision: RateLimitDecision): void {
  const missing = Object.entries(rateLimitHeaders(decision)).filter(([name]) => !c.res.headers.has(name))
  if (missing.length === 0) return
  try {
    for (const [name, value] of missing) c.res.headers.set(name, value)
  } catch {
    // Immutable headers (a Response from fetch): copy once, then set.
    c.res = new Response(c.res.body, c.res)
    for (const [name, value] of missing) c.res.headers.set(name, value)
  }
}

/**
 * Charges a refused credential to the caller's IP, public tier, before refusing it: the response still
 * carries the headers, and guessing keys or tokens is throttled like any anonymous traffic.
 */
async function refuse(c: Context, deps: ApiDeps, limits: Limits, ip: string, error: ApiError): Promise<never> {
  await charge(c, deps, 'public', ip, limits.public)
  throw error
}

async function identify(
  c: Context<ApiEnv>,
  deps: ApiDeps,
  limits: Limits,
  ip: string,
): Promise<{ principal: Principal; tier: Tier; subject: string }> {
  const apiKey = c.req.header('x-api-key')
  const authorization = c.req.header('authorization')
  // Neither header: the public tier, with nothing to check (both are optional).
  if (apiKey === undefined && authorization === undefined) return { principal: { kind: 'public', ip }, tier: 'public', subject: ip }
  const parsed = tierHeaders.safeParse({ 'x-api-key': apiKey, authorization })
  if (!parsed.success) return refuse(c, deps, limits, ip, validationError('header', parsed.error.issues))
  const claim = claimTier({ apiKey: parsed.data['x-api-key'], bearerToken: parsed.data.authorization?.slice('Bearer '.length) })
  if (claim.tier === 'read') {
    const hash = hashApiKey(claim.apiKey)
    if (!deps.config.readApiKeyHashes.some((h) => h.toLowerCase() === hash)) {
      return refuse(c, deps, limits, ip, new ApiError('INVALID_API_KEY', 'x-api-key: is not a known read key'))
    }
    const keyId = hash.slice(2, 18)
    return { principal: { kind: 'read', keyId }, tier: 'read', subject: keyId }
  }
  if (claim.tier === 'authenticated') {
    // Charged before the store read or the verifier call: past this budget a token is not even looked at.
    await charge(c, deps, 'credential', ip, limits.credential)
    // Snap tokens are bearer tokens too; they authenticate one owner's Snap.
    if (isSnapTokenShaped(claim.bearerToken)) {
      const owner = await verifySnapToken(deps.stores.snapTokens, claim.bearerToken)
      if (!owner)
        return refuse(c, deps, limits, ip, new ApiError('INVALID_TOKEN', 'authorization: Snap token is unknown or was rotated away'))
      return { principal: { kind: 'snap', owner }, tier: 'authenticated', subject: `snap:${owner}` }
    }
    const user = await deps.bearer?.verifyBearer(claim.bearerToken)
    if (!user) return refuse(c, deps, limits, ip, new ApiError('INVALID_TOKEN', 'authorization: bearer token is not valid'))
    // Subjects come from an identity provider in any shape; the bucket holds a short hash of it.
    return {
      principal: { kind: 'user', subject: user.subject },
      tier: 'authenticated',
      subject: `user:${hashApiKey(user.subject).slice(2, 18)}`,
    }
  }
  return { principal: { kind: 'public', ip }, tier: 'public', subject: ip }
}

/** The Clade routes authenticate Golems, not users, and limit themselves (cladeAuth.ts). */
const CLADE_ROUTES = /^\/clade\/v1\/(challenge|ingest|entries|status|sync|alert)$/
/**
 * The council's member routes are Clade authenticated the same way, when a council is served here; its
 * list (GET /council/v1/proposals) is the owner's view and goes through the tiers like any read.
 */
const COUNCIL_ROUTES = /^\/council\/v1\/proposals(\/[^/]+(\/signatures)?)?$/
const isCouncilMemberRoute = (method: string, path: string) =>
  COUNCIL_ROUTES.test(path) && !(method === 'GET' && path === '/council/v1/proposals')

/** Every other path, unknown ones (404) included, so that every response carries the headers. */
export function tierRateLimit(deps: ApiDeps): MiddlewareHandler<ApiEnv> {
  // The limits are the deployment's, fixed for the app's life: worked out once, not on every request.
  const limits = limitsOf(deps)
  return async (c, next) => {
    if (CLADE_ROUTES.test(c.req.path) || (deps.councils !== undefined && isCouncilMemberRoute(c.req.method, c.req.path))) return next()
    const ip = clientAddress(c, deps.config.trustedProxyHops)
    const { principal, tier, subject } = await identify(c, deps, limits, ip)
    const decision = await charge(c, deps, tier, subject, limits[tier])
    c.set('principal', principal)
    await next()
    keepRateLimitHeaders(c, decision)
  }
}
