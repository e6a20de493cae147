// /clade/v1/*: Golem-to-Golem routes. Clade auth stays active while a Golem dies
// (siblings must receive the death testament), so no death rules here.
import { vitalsOf } from '../vitals.ts'
import { createRoute, z } from '@hono/zod-openapi'
import type { MiddlewareHandler } from 'hono'
import { cladeDomain, cladeChallengeTypes, issueCladeChallenge } from '../../../core/clade/challenge.ts'
import type { CladeSecret } from '../../../core/clade/secret.ts'
import { chargeAnonymousClade, cladeAuth, cladeAuthHeaders } from '../cladeAuth.ts'
import { keepRateLimitHeaders } from '../rateLimit.ts'
import { cladeAlertRequest, cladeEntriesQuery, cladeEntrySchema, cladeIngestRequest, cladeSyncQuery } from '../cladeService.ts'
import type { ApiDeps } from '../deps.ts'
import type { ApiEnv } from '../env.ts'
import { ApiError } from '../errors.ts'
import { apiRouter, errors, jsonBody, ok, security } from '../openapi.ts'
import { addressSchema } from '../schemas.ts'

const challengeQuery = z.strictObject({
  caller: addressSchema.meta({ description: 'the address that will sign (your Golem)' }),
  target: addressSchema.optional().meta({ description: 'the Golem you want to talk to; defaults to the Golem this API answers for' }),
})

const challengeResponse = z.object({
  challenge: z.object({
    nonce: z.string(),
    issuedAt: z.number().int(),
    expiresAt: z.number().int(),
    target: z.string(),
    caller: z.string(),
  }),
  domain: z.object({ name: z.string(), version: z.string(), chainId: z.number().int() }),
  primaryType: z.literal('CladeChallenge'),
  types: z.record(z.string(), z.array(z.object({ name: z.string(), type: z.string() })).readonly()),
})

const entryJson = cladeEntrySchema.extend({ from: z.string() })
const tokenHeaders = {
  'X-Clade-Token': 'session token (HMAC-SHA256, 5 min) when this call authenticated with CladeChallenge',
  'X-Clade-Token-Expires': 'unix seconds',
}
const authErrors = {
  401: 'CLADE_AUTH_REQUIRED | CLADE_CHALLENGE_NOT_ISSUED | CLADE_BAD_SIGNATURE | CLADE_CHALLENGE_EXPIRED | CLADE_NONCE_REUSED | CLADE_UNKNOWN_AGENT | CLADE_OPERATOR_MISMATCH | CLADE_TOKEN_INVALID | CLADE_TOKEN_EXPIRED',
} as const

const common = { tags: ['clade'], security: security('clade') }

const challengeRoute = createRoute({
  method: 'get',
  path: '/clade/v1/challenge',
  operationId: 'getCladeChallenge',
  summary: 'Issue an EIP-712 CladeChallenge for the caller to sign (30 requests/min per IP)',
  tags: ['clade'],
  security: security('none'),
  request: { query: challengeQuery },
  responses: {
    200: ok('the challenge and the typed-data domain and types to sign it with', challengeResponse),
    ...errors({ 404: 'GOLEM_NOT_FOUND: the target is not a Clade member here' }),
  },
})

const ingestRoute = createRoute({
  ...common,
  method: 'post',
  path: '/clade/v1/ingest',
  operationId: 'cladeIngest',
  summary: 'Receive knowledge entries from a sibling',
  request: { headers: cladeAuthHeaders, body: jsonBody(cladeIngestRequest) },
  responses: {
    200: ok('accepted', z.object({ accepted: z.number().int(), lastSeq: z.number().int() }), tokenHeaders),
    ...errors(authErrors),
  },
})

const entriesRoute = createRoute({
  ...common,
  method: 'get',
  path: '/clade/v1/entries',
  operationId: 'cladeEntries',
  summary: 'Query shared entries, newest first',
  request: { headers: cladeAuthHeaders, query: cladeEntriesQuery },
  responses: {
    200: ok('entries', z.object({ entries: z.array(entryJson), nextCursor: z.string().nullable() }), tokenHeaders),
    ...errors(authErrors),
  },
})

const statusRoute = createRoute({
  ...common,
  method: 'get',
  path: '/clade/v1/status',
  operationId: 'cladeStatus',
  summary: 'Peer status and specialization',
  request: { headers: cladeAuthHeaders },
  responses: {
    200: ok(
      'status',
      z.object({
        golem: z.string(),
        name: z.string().nullable(),
        phase: z.string().nullable(),
        vitality: z.number().nullable(),
        lifecycle: z.enum(['alive', 'dying', 'dead']).nullable(),
        specialization: z.string().nullable(),
        entryCount: z.number().int(),
        lastIngestAt: z.number().int().nullable(),
      }),
      tokenHeaders,
    ),
    ...errors(authErrors),
  },
})

const syncRoute = createRoute({
  ...common,
  method: 'get',
  path: '/clade/v1/sync',
  operationId: 'cladeSync',
  summary: 'Catch-up sync: entries after a sequence number, oldest first',
  request: { headers: cladeAuthHeaders, query: cladeSyncQuery },
  responses: {
    200: ok('entries', z.object({ entries: z.array(entryJson), lastSeq: z.number().int(), hasMore: z.boolean() }), tokenHeaders),
    ...errors(authErrors),
  },
})

const alertRoute = createRoute({
  ...common,
  method: 'post',
  path: '/clade/v1/alert',
  operationId: 'cladeAlert',
  summary: 'Real-time alert from a sibling',
  request: { headers: cladeAuthHeaders, body: jsonBody(cladeAlertRequest) },
  responses: {
    202: ok('accepted', z.object({ id: z.string(), receivedAt: z.number().int() }), tokenHeaders),
    ...errors(authErrors),
  },
})

export function cladeRoutes(deps: ApiDeps, secret: CladeSecret) {
  // Authentication, and its charge to the caller's budget, before the request is validated.
  const middleware = cladeAuth(deps, secret)
  // The anonymous challenge is charged to the caller's IP (its own budget), before its query is read.
  const charged: MiddlewareHandler<ApiEnv> = async (c, next) => {
    const decision = await chargeAnonymousClade(c, deps)
    await next()
    keepRateLimitHeaders(c, decision)
  }

  return apiRouter()
    .openapi({ ...challengeRoute, middleware: charged }, async (c) => {
      const q = c.req.valid('query')
      const target = q.target ?? deps.config.clade.self
      if (target === undefined)
        throw new ApiError('VALIDATION_FAILED', 'target: is required (this API answers for several Golems)', { issues: [] })
      if ((await deps.operators.operatorOf(target)) === undefined)
        throw new ApiError('GOLEM_NOT_FOUND', `target: ${target} is not a Clade member here`, { target })
      const challenge = issueCladeChallenge({
        secret,
        chainId: deps.config.chainId,
        caller: q.caller,
        target,
        nowMs: deps.clock.now(),
        ttlSeconds: deps.config.clade.challengeTtlSeconds,
      })
      return c.json(
        {
          challenge,
          domain: cladeDomain(deps.config.chainId),
          primaryType: 'CladeChallenge' as const,
          types: cladeChallengeTypes,
        },
        200,
      )
    })
    .openapi({ ...ingestRoute, middleware }, async (c) => {
      const s = c.get('clade')
      return c.json(await deps.clade.ingest(s.aud, s.sub, c.req.valid('json').entries, Math.floor(deps.clock.now() / 1000)), 200)
    })
    .openapi({ ...entriesRoute, middleware }, async (c) => {
      return c.json(await deps.clade.entries(c.get('clade').aud, c.req.valid('query')), 200)
    })
    .openapi({ ...statusRoute, middleware }, async (c) => {
      const target = c.get('clade').aud
      const [golem, status] = await Promise.all([deps.golems.getGolem(target), deps.clade.status(target)])
      // The vital signs every surface states (Terminal and 0 once dead), where the profile can be read.
      const vitals = golem ? vitalsOf(golem, Math.floor(deps.clock.now() / 1000)) : null
      return c.json(
        {
          golem: target,
          name: golem?.name ?? null,
          phase: vitals?.phase ?? golem?.phase ?? null,
          vitality: vitals?.vitality ?? golem?.vitality ?? null,
          lifecycle: golem?.lifecycle ?? null,
          ...status,
        },
        200,
      )
    })
    .openapi({ ...syncRoute, middleware }, async (c) => {
      const q = c.req.valid('query')
      return c.json(await deps.clade.sync(c.get('clade').aud, q.since, q.limit), 200)
    })
    .openapi({ ...alertRoute, middleware }, async (c) => {
      const s = c.get('clade')
      const receivedAt = Math.floor(deps.clock.now() / 1000)
      const { id } = await deps.clade.alert(s.aud, s.sub, c.req.valid('json'), receivedAt)
      return c.json({ id, receivedAt }, 202)
    })
}
