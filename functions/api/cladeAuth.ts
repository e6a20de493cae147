// Clade authentication at the edge: `CladeChallenge <sig>` + `X-Clade-Challenge` buys an
// `X-Clade-Token`; `CladeToken <token>` spends it. core/clade decides; this wires headers and limits.
import type { Context, MiddlewareHandler } from 'hono'
import type { Hex } from 'viem'
import type { RateLimitDecision } from '../../core/ratelimit/window.ts'
import * as z from 'zod'
import { cladeChallengeSchema } from '../../core/clade/challenge.ts'
import { CladeAuthError } from '../../core/clade/errors.ts'
import type { CladeSecret } from '../../core/clade/secret.ts'
import type { CladeSession, CladeSessionTokens } from '../../core/clade/sessionToken.ts'
import { verifyCladeChallenge } from '../../core/clade/verify.ts'
import { cladeSessionTokens } from '../../adapters/auth/cladeSessionTokens.ts'
import { clientAddress } from './clientAddress.ts'
import type { ApiDeps } from './deps.ts'
import type { ApiEnv } from './env.ts'
import { charge, keepRateLimitHeaders, limitsOf } from './rateLimit.ts'
import { validationError } from './validation.ts'

export const cladeAuthHeaders = z.object({
  authorization: z
    .string()
    .regex(
      /^(CladeChallenge 0x[0-9a-fA-F]{130}|CladeToken [A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/,
      "must be 'CladeChallenge <65-byte hex signature>' or 'CladeToken <token>'",
    )
    .optional()
    .meta({ description: 'CladeChallenge <sig> (first call) or CladeToken <token> (later calls)' }),
  'x-clade-challenge': z
    .string()
    .max(1024, 'must be at most 1024 characters')
    .optional()
    .meta({ description: 'the challenge JSON from GET /clade/v1/challenge, with CladeChallenge' }),
})

/** Anonymous Clade traffic (challenges and failed authentications) shares one per-IP budget. */
export async function chargeAnonymousClade(c: Context, deps: ApiDeps): Promise<RateLimitDecision> {
  return charge(c, deps, 'clade-challenge', clientAddress(c, deps.config.trustedProxyHops), limitsOf(deps).cladeChallenge)
}

async function authenticate(c: Context<ApiEnv>, deps: ApiDeps, secret: CladeSecret, tokens: CladeSessionTokens): Promise<CladeSession> {
  const headers = cladeAuthHeaders.safeParse({
    authorization: c.req.header('authorization'),
    'x-clade-challenge': c.req.header('x-clade-challenge'),
  })
  if (!headers.success) throw validationError('header', headers.error.issues)
  const auth = headers.data.authorization
  if (auth === undefined)
    throw new CladeAuthError(
      'CLADE_AUTH_REQUIRED',
      "authorization: must be 'CladeChallenge <sig>' with X-Clade-Challenge, or 'CladeToken <token>'",
    )
  const now = deps.clock.now()
  if (auth.startsWith('CladeToken ')) {
    return tokens.verify(auth.slice('CladeToken '.length), now)
  }
  const raw = headers.data['x-clade-challenge']
  if (raw === undefined) throw new CladeAuthError('CLADE_AUTH_REQUIRED', 'x-clade-challenge: is required with a CladeChallenge signature')
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch {
    throw validationError('header', [{ code: 'custom', path: ['x-clade-challenge'], message: 'must be the challenge JSON', input: raw }])
  }
  const challenge = cladeChallengeSchema.safeParse(json)
  if (!challenge.success)
    throw validationError(
      'header',
      challenge.error.issues.map((i) => ({ ...i, path: ['x-clade-challenge', ...i.path] })),
    )
  const verified = await verifyCladeChallenge({
    challenge: challenge.data,
    signature: auth.slice('CladeChallenge '.length) as Hex,
    secret,
    chainId: deps.config.chainId,
    nowMs: now,
    operators: deps.operators,
    nonces: deps.stores.nonces,
  })
  const { token, session } = await tokens.issue(
    { sub: verified.caller, aud: verified.target, op: verified.operator },
    now,
    deps.config.clade.sessionTtlSeconds,
  )
  c.header('X-Clade-Token', token)
  c.header('X-Clade-Token-Expires', String(session.exp))
  return session
}

/**
 * Authenticates a sibling Golem. A CladeChallenge signature (signature recovery, registry reads, a nonce
 * write) is charged to the caller's IP before any of that work, so a flood of forged or unregistered
 * handshakes reaches the registry no more often than the budget allows. A CladeToken is a JWT (an HMAC)
 * checked in memory, cheaper than the counter write itself: it is checked first, a refusal is charged
 * to the IP's anonymous Clade budget, and a success to the caller's address at the authenticated limit.
 */
export function cladeAuth(deps: ApiDeps, secret: CladeSecret): MiddlewareHandler<ApiEnv> {
  const tokens = cladeSessionTokens(deps.config.clade.hmacSecret)
  return async (c, next) => {
    const handshake = c.req.header('authorization')?.startsWith('CladeChallenge ') === true
    if (handshake) await charge(c, deps, 'clade-handshake', clientAddress(c, deps.config.trustedProxyHops), limitsOf(deps).cladeHandshake)
    let session: CladeSession
    try {
      session = await authenticate(c, deps, secret, tokens)
    } catch (err) {
      // A handshake already paid; anything else (no credential, a bad token) pays now.
      if (!handshake) await chargeAnonymousClade(c, deps)
      throw err
    }
    const decision = await charge(c, deps, 'clade', session.sub, limitsOf(deps).clade)
    c.set('clade', session)
    await next()
    keepRateLimitHeaders(c, decision)
  }
}
