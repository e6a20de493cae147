// /council/v1/*: the Coordination Council. Members are sibling Golems, so every route is Clade
// authenticated (the caller is the Golem's current session key); the service decides membership and
// signatures from fresh standings. A refused request writes nothing.
import type { Hono } from 'hono'
import { z } from 'zod/v4'
import type { CladeSecret } from '../../../core/clade/secret.ts'
import type { CouncilService } from '../../council/councilService.ts'
import { cladeAuth, cladeAuthHeaders } from '../cladeAuth.ts'
import type { ApiDeps } from '../deps.ts'
import type { ApiEnv } from '../env.ts'
import { ApiError } from '../errors.ts'
import { tierHeaders } from '../rateLimit.ts'
import type { RouteDocs } from '../openapi.ts'
import { addressSchema } from '../schemas.ts'
import { validate } from '../validation.ts'

const uint = z.string().regex(/^\d{1,78}$/, 'must be a decimal integer string')
const hexBytes = z.string().regex(/^0x([0-9a-fA-F]{2})*$/, 'must be 0x-prefixed hex bytes')

export const councilProposeRequest = z.strictObject({
  action: z.strictObject({
    target: addressSchema,
    value: uint.default('0'),
    callData: hexBytes.max(2 + 2 * 4096, 'must be at most 4096 bytes'),
  }),
  deadline: z.number().int().positive().meta({ description: 'unix seconds; no signature is taken and nothing runs after it' }),
})
export const councilSignRequest = z.strictObject({
  signature: z.string().regex(/^0x[0-9a-fA-F]{130}$/, 'must be a 65-byte hex signature over the proposal’s typed data'),
})
const proposalParams = z.object({ id: z.string().regex(/^0x[0-9a-fA-F]{32}$/, 'must be 0x and 16 bytes of hex') })
export const councilListQuery = z.strictObject({
  limit: z.coerce
    .number('must be a number')
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(100, 'must be at most 100')
    .default(20),
  cursor: z
    .string()
    .regex(/^\d{15}#0x[0-9a-f]{32}$/, 'must be the `next` of a previous page')
    .optional(),
})

const proposalView = z.object({
  id: z.string(),
  council: z.string(),
  proposer: z.string(),
  status: z.enum(['open', 'executing', 'executed', 'reverted', 'rejected', 'expired']),
  deadline: z.number().int(),
  action: z.object({ target: z.string(), value: z.string(), callData: z.string() }),
  threshold: z.number().int(),
  seats: z.number().int().meta({ description: 'the council’s seats now: `counted` of `seats` signed, `threshold` needed' }),
  signatures: z.array(z.object({ signer: z.string(), at: z.number(), counts: z.boolean() })),
  counted: z.number().int(),
  execution: z.unknown().nullable(),
  proposal: z.string().meta({ description: 'the proposal; parse, check (checkCouncilProposal) and sign councilProposalTypedData' }),
})

const proposalList = z.object({
  proposals: z.array(proposalView),
  next: z.string().nullable().meta({ description: 'the cursor of the next (older) page; null on the last' }),
})

const authErrors =
  'CLADE_AUTH_REQUIRED | CLADE_CHALLENGE_NOT_ISSUED | CLADE_BAD_SIGNATURE | CLADE_CHALLENGE_EXPIRED | CLADE_NONCE_REUSED | CLADE_UNKNOWN_AGENT | CLADE_OPERATOR_MISMATCH | CLADE_TOKEN_INVALID | CLADE_TOKEN_EXPIRED'

/** bigints as decimal strings. */
const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)))

export function registerCouncilRoutes(
  app: Hono<ApiEnv>,
  deps: ApiDeps,
  council: CouncilService,
  docs: RouteDocs,
  secret: CladeSecret,
): void {
  const auth = cladeAuth(deps, secret)
  const common = { tags: ['council'], security: 'clade' as const }
  const tokenHeaders = { 'X-Clade-Token': 'session token when this call authenticated with CladeChallenge' }

  docs.add({
    ...common,
    method: 'post',
    path: '/council/v1/proposals',
    operationId: 'proposeCouncilAction',
    summary: 'Propose an action for the council (a counting member only); pre-checked against the council’s caveats',
    request: { headers: cladeAuthHeaders, body: councilProposeRequest },
    responses: { 201: { description: 'the stored proposal, open for signatures', schema: proposalView, headers: tokenHeaders } },
    errors: {
      401: authErrors,
      403: 'COUNCIL_NOT_MEMBER | COUNCIL_MEMBER_NOT_COUNTING',
      422: 'COUNCIL_ACTION_REFUSED: a caveat of the council’s delegation refuses the action (named)',
    },
  })
  app.post('/council/v1/proposals', auth, validate('json', councilProposeRequest), async (c) => {
    const body = c.req.valid('json')
    const view = await council.propose(
      c.get('clade').sub,
      { target: body.action.target, value: BigInt(body.action.value), callData: body.action.callData as `0x${string}` },
      BigInt(body.deadline),
    )
    return c.json(json(view), 201)
  })

  docs.add({
    ...common,
    method: 'post',
    path: '/council/v1/proposals/{id}/signatures',
    operationId: 'signCouncilProposal',
    summary: 'Add the caller’s signature; the one that completes the threshold executes the proposal once',
    request: { headers: cladeAuthHeaders, params: proposalParams, body: councilSignRequest },
    responses: {
      200: {
        description: 'accepted or duplicate (a duplicate changes nothing), with the proposal’s state',
        schema: z.object({ status: z.enum(['accepted', 'duplicate']), proposal: proposalView }),
        headers: tokenHeaders,
      },
    },
    errors: {
      401: `COUNCIL_BAD_SIGNATURE | ${authErrors}`,
      403: 'COUNCIL_NOT_MEMBER | COUNCIL_MEMBER_NOT_COUNTING',
      404: 'COUNCIL_PROPOSAL_NOT_FOUND',
      409: 'COUNCIL_PROPOSAL_CLOSED',
      410: 'COUNCIL_PROPOSAL_EXPIRED',
    },
  })
  app.post(
    '/council/v1/proposals/:id/signatures',
    auth,
    validate('param', proposalParams),
    validate('json', councilSignRequest),
    async (c) => {
      const { id } = c.req.valid('param')
      const out = await council.sign(c.get('clade').sub, id as `0x${string}`, c.req.valid('json').signature as `0x${string}`)
      return c.json(json(out))
    },
  )

  docs.add({
    tags: ['council'],
    security: 'reader',
    method: 'get',
    path: '/council/v1/proposals',
    operationId: 'listCouncilProposals',
    summary: 'Every proposal of the council, newest first, with its state, signatures and execution (a read key or an owner token)',
    request: { headers: tierHeaders, query: councilListQuery },
    responses: { 200: { description: 'a page of proposals', schema: proposalList } },
    errors: { 401: 'AUTH_REQUIRED: anonymous callers are not shown the council | INVALID_API_KEY | INVALID_TOKEN' },
  })
  // Read-only and for the owner's views (the dashboard proxies it with its read key), so it takes the
  // tier's credentials rather than a member's Clade session, and refuses the anonymous tier.
  app.get('/council/v1/proposals', validate('query', councilListQuery), async (c) => {
    const principal = c.get('principal')
    if (principal.kind !== 'read' && principal.kind !== 'user')
      throw new ApiError('AUTH_REQUIRED', 'x-api-key or authorization: must be a read key or an owner access token to list the council')
    const { limit, cursor } = c.req.valid('query')
    return c.json(json(await council.list({ limit, after: cursor ?? null })))
  })

  docs.add({
    ...common,
    method: 'get',
    path: '/council/v1/proposals/{id}',
    operationId: 'getCouncilProposal',
    summary: 'A proposal with its signatures (and whether each counts now) and its execution',
    request: { headers: cladeAuthHeaders, params: proposalParams },
    responses: { 200: { description: 'the proposal', schema: proposalView, headers: tokenHeaders } },
    errors: { 401: authErrors, 404: 'COUNCIL_PROPOSAL_NOT_FOUND' },
  })
  app.get('/council/v1/proposals/:id', auth, validate('param', proposalParams), async (c) => {
    return c.json(json(await council.get(c.req.valid('param').id as `0x${string}`)))
  })
}
