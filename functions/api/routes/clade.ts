// /clade/v1/*: Golem-to-Golem routes. Clade auth stays active while a Golem dies
// (siblings must receive the death testament), so no death rules here.
import type { Hono } from 'hono'
import { z } from 'zod/v4'
import { cladeDomain, cladeChallengeTypes, issueCladeChallenge } from '../../../core/clade/challenge.ts'
import type { CladeSecret } from '../../../core/clade/secret.ts'
import { chargeAnonymousClade, cladeAuth, cladeAuthHeaders } from '../cladeAuth.ts'
import { keepRateLimitHeaders } from '../rateLimit.ts'
import { cladeAlertRequest, cladeEntriesQuery, cladeEntrySchema, cladeIngestRequest, cladeSyncQuery } from '../cladeService.ts'
import type { ApiDeps } from '../deps.ts'
import type { ApiEnv } from '../env.ts'
import { ApiError } from '../errors.ts'
import type { RouteDocs } from '../openapi.ts'
import { addressSchema } from '../schemas.ts'
import { validate } from '../validation.ts'

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
  types: z.record(z.string(), z.array(z.object({ name: z.string(), type: z.string() }))),
})

const entryJson = cladeEntrySchema.extend({ from: z.string() })
const tokenHeaders = {
  'X-Clade-Token': 'session token (HMAC-SHA256, 5 min) when this call authenticated with CladeChallenge',
  'X-Clade-Token-Expires': 'unix seconds',
}
const authErrors = {
  401: 'CLADE_AUTH_REQUIRED | CLADE_CHALLENGE_NOT_ISSUED | CLADE_BAD_SIGNATURE | CLADE_CHALLENGE_EXPIRED | CLADE_NONCE_REUSED | CLADE_UNKNOWN_AGENT | CLADE_OPERATOR_MISMATCH | CLADE_TOKEN_INVALID | CLADE_TOKEN_EXPIRED',
}

export function registerCladeRoutes(app: Hono<ApiEnv>, deps: ApiDeps, docs: RouteDocs, secret: CladeSecret): void {
  const auth = cladeAuth(deps, secret)
  const common = { tags: ['clade'], security: 'clade' as const, errors: authErrors }

  docs.add({
    method: 'get',
    path: '/clade/v1/challenge',
    operationId: 'getCladeChallenge',
    summary: 'Issue an EIP-712 CladeChallenge for the caller to sign (30 requests/min per IP)',
    tags: ['clade'],
    security: 'none',
    request: { query: challengeQuery },
    responses: { 200: { description: 'the challenge and the typed-data domain and types to sign it with', schema: challengeResponse } },
    errors: { 404: 'GOLEM_NOT_FOUND: the target is not a Clade member here' },
  })
  app.get(
    '/clade/v1/challenge',
    async (c, next) => {
      const decision = await chargeAnonymousClade(c, deps)
      await next()
      keepRateLimitHeaders(c, decision)
    },
    validate('query', challengeQuery),
    async (c) => {
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
      return c.json({
        challenge,
        domain: cladeDomain(deps.config.chainId),
        primaryType: 'CladeChallenge' as const,
        types: cladeChallengeTypes,
      })
    },
  )

  docs.add({
    ...common,
    method: 'post',
    path: '/clade/v1/ingest',
    operationId: 'cladeIngest',
    summary: 'Receive knowledge entries from a sibling',
    request: { headers: cladeAuthHeaders, body: cladeIngestRequest },
    responses: {
      200: { description: 'accepted', schema: z.object({ accepted: z.number().int(), lastSeq: z.number().int() }), headers: tokenHeaders },
    },
  })
  app.post('/clade/v1/ingest', auth, validate('json', cladeIngestRequest), async (c) => {
    const s = c.get('clade')
    return c.json(await deps.clade.ingest(s.aud, s.sub, c.req.valid('json').entries, Math.floor(deps.clock.now() / 1000)))
  })

  docs.add({
    ...common,
    method: 'get',
    path: '/clade/v1/entries',
    operationId: 'cladeEntries',
    summary: 'Query shared entries, newest first',
    request: { headers: cladeAuthHeaders, query: cladeEntriesQuery },
    responses: {
      200: {
        description: 'entries',
        schema: z.object({ entries: z.array(entryJson), nextCursor: z.string().nullable() }),
        headers: tokenHeaders,
      },
    },
  })
  app.get('/clade/v1/entries', auth, validate('query', cladeEntriesQuery), async (c) => {
    return c.json(await deps.clade.entries(c.get('clade').aud, c.req.valid('query')))
  })

  docs.add({
    ...common,
    method: 'get',
    path: '/clade/v1/status',
    operationId: 'cladeStatus',
    summary: 'Peer status and specialization',
    request: { headers: cladeAuthHeaders },
    responses: {
      200: {
        description: 'status',
        schema: z.object({
          golem: z.string(),
          name: z.string().nullable(),
          phase: z.string().nullable(),
          vitality: z.number().nullable(),
          lifecycle: z.enum(['alive', 'dying', 'dead']).nullable(),
          specialization: z.string().nullable(),
          entryCount: z.number().int(),
          lastIngestAt: z.number().int().nullable(),
        }),
        headers: tokenHeaders,
      },
    },
  })
  app.get('/clade/v1/status', auth, async (c) => {
    const target = c.get('clade').aud
    const [golem, status] = await Promise.all([deps.golems.getGolem(target), deps.clade.status(target)])
    return c.json({
      golem: target,
      name: golem?.name ?? null,
      phase: golem?.phase ?? null,
      vitality: golem?.vitality ?? null,
      lifecycle: golem?.lifecycle ?? null,
      ...status,
    })
  })

  docs.add({
    ...common,
    method: 'get',
    path: '/clade/v1/sync',
    operationId: 'cladeSync',
    summary: 'Catch-up sync: entries after a sequence number, oldest first',
    request: { headers: cladeAuthHeaders, query: cladeSyncQuery },
    responses: {
      200: {
        description: 'entries',
        schema: z.object({ entries: z.array(entryJson), lastSeq: z.number().int(), hasMore: z.boolean() }),
        headers: tokenHeaders,
      },
    },
  })
  app.get('/clade/v1/sync', auth, validate('query', cladeSyncQuery), async (c) => {
    const q = c.req.valid('query')
    return c.json(await deps.clade.sync(c.get('clade').aud, q.since, q.limit))
  })

  docs.add({
    ...common,
    method: 'post',
    path: '/clade/v1/alert',
    operationId: 'cladeAlert',
    summary: 'Real-time alert from a sibling',
    request: { headers: cladeAuthHeaders, body: cladeAlertRequest },
    responses: {
      202: { description: 'accepted', schema: z.object({ id: z.string(), receivedAt: z.number().int() }), headers: tokenHeaders },
    },
  })
  app.post('/clade/v1/alert', auth, validate('json', cladeAlertRequest), async (c) => {
    const s = c.get('clade')
    const receivedAt = Math.floor(deps.clock.now() / 1000)
    const { id } = await deps.clade.alert(s.aud, s.sub, c.req.valid('json'), receivedAt)
    return c.json({ id, receivedAt }, 202)
  })
}
