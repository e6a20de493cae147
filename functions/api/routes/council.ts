// /council/v1/*: the Coordination Councils owners formed here (routes/councils.ts). Members are sibling
// Golems, so the member routes are Clade authenticated (the caller is the Golem's current session key);
// a proposal's council is the one it was made on, and a new proposal's the one it names or the one
// council the caller's Golem sits on. Each council's service decides membership and signatures from
// fresh standings. A council's list is its owner's: in full to the owner signed in, and without any call
// data to the dashboard's read key. A refused request writes nothing.
import { createRoute, z } from '@hono/zod-openapi'
import { isAddressEqual } from 'viem'
import type { CladeSecret } from '../../../core/clade/secret.ts'
import { councilSignatureRule } from '../../../core/council/signatures.ts'
import { councilSummaryOf } from '../../../app/council/councilService.ts'
import { cladeAuth, cladeAuthHeaders } from '../cladeAuth.ts'
import type { ApiDeps } from '../deps.ts'
import { ApiError } from '../errors.ts'
import { ownerOfSubject } from './auth.ts'
import { apiRouter, errors, jsonBody, ok, security } from '../openapi.ts'
import { tierHeaders } from '../rateLimit.ts'
import { addressSchema, uint256 } from '../schemas.ts'

const councilAddress = z.string('must be the council’s address (its MultiSig DeleGator)').pipe(addressSchema)
const hexBytes = z.string().regex(/^0x([0-9a-fA-F]{2})*$/, 'must be 0x-prefixed hex bytes')

export const councilProposeRequest = z.strictObject({
  council: councilAddress
    .optional()
    .meta({ description: 'the council proposed to; may be left out when the caller’s Golem sits on exactly one council' }),
  action: z.strictObject({
    target: addressSchema,
    value: uint256.default('0').meta({ description: 'native value in wei, a uint256 as a decimal string' }),
    callData: hexBytes.max(2 + 2 * 4096, 'must be at most 4096 bytes'),
  }),
  deadline: z
    .number('must be a number (unix seconds)')
    .positive({ message: 'must be a positive number of unix seconds', abort: true })
    .max(Number.MAX_SAFE_INTEGER, { message: `must be at most ${Number.MAX_SAFE_INTEGER} (and at most 7 days from now)`, abort: true })
    .int('must be an integer number of unix seconds')
    .meta({ description: 'unix seconds, after now and at most 7 days ahead; no signature is taken and nothing runs after it' }),
})
export const councilSignRequest = z.strictObject({
  signature: z
    .string()
    .regex(/^0x[0-9a-fA-F]{130}$/, { message: 'must be a 65-byte hex signature over the proposal’s typed data', abort: true })
    // One the chain takes: a signature the MultiSigDeleGator would refuse is never stored.
    .superRefine((v, ctx) => {
      const rule = councilSignatureRule(v as `0x${string}`)
      if (rule) ctx.addIssue({ code: 'custom', message: rule })
    }),
})
const proposalParams = z.object({ id: z.string().regex(/^0x[0-9a-fA-F]{32}$/, 'must be 0x and 16 bytes of hex') })
export const councilListQuery = z.strictObject({
  council: councilAddress.meta({ description: 'the council (its MultiSig DeleGator) whose proposals are listed' }),
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

const proposalSummary = proposalView.omit({ proposal: true }).extend({
  action: z.object({ target: z.string(), value: z.string() }).meta({ description: 'the call’s target and value: no call data' }),
})

const proposalList = z.object({
  proposals: z.array(z.union([proposalView, proposalSummary])).meta({
    description: 'in full to the council’s owner; to a read key each without its call data and without the `proposal` text',
  }),
  next: z.string().nullable().meta({ description: 'the cursor of the next (older) page; null on the last' }),
})

const authErrors =
  'CLADE_AUTH_REQUIRED | CLADE_CHALLENGE_NOT_ISSUED | CLADE_BAD_SIGNATURE | CLADE_CHALLENGE_EXPIRED | CLADE_NONCE_REUSED | CLADE_UNKNOWN_AGENT | CLADE_OPERATOR_MISMATCH | CLADE_TOKEN_INVALID | CLADE_TOKEN_EXPIRED'

/** The service's answer as JSON (bigints as decimal strings), in the shape its schema documents. */
const json = <S extends z.ZodType>(_schema: S, value: unknown): z.output<S> =>
  JSON.parse(JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)))

const common = { tags: ['council'], security: security('clade') }
const tokenHeaders = { 'X-Clade-Token': 'session token when this call authenticated with CladeChallenge' }
const signed = z.object({ status: z.enum(['accepted', 'duplicate']), proposal: proposalView })

const proposeRoute = createRoute({
  ...common,
  method: 'post',
  path: '/council/v1/proposals',
  operationId: 'proposeCouncilAction',
  summary: 'Propose an action for the council (a counting member only); pre-checked against the council’s caveats',
  request: { headers: cladeAuthHeaders, body: jsonBody(councilProposeRequest) },
  responses: {
    201: ok('the stored proposal, open for signatures', proposalView, tokenHeaders),
    ...errors({
      401: authErrors,
      400: 'VALIDATION_FAILED: a field out of range, or `council` left out by a Golem that sits on several',
      403: 'COUNCIL_NOT_MEMBER | COUNCIL_MEMBER_NOT_COUNTING',
      404: 'COUNCIL_NOT_FOUND: no council was formed at the address named',
      422: 'COUNCIL_ACTION_REFUSED: a caveat of the council’s delegation refuses the action (named)',
    }),
  },
})

const signRoute = createRoute({
  ...common,
  method: 'post',
  path: '/council/v1/proposals/{id}/signatures',
  operationId: 'signCouncilProposal',
  summary: 'Add the caller’s signature; the one that completes the threshold executes the proposal once',
  request: { headers: cladeAuthHeaders, params: proposalParams, body: jsonBody(councilSignRequest) },
  responses: {
    200: ok('accepted or duplicate (a duplicate changes nothing), with the proposal’s state', signed, tokenHeaders),
    ...errors({
      401: `COUNCIL_BAD_SIGNATURE | ${authErrors}`,
      403: 'COUNCIL_NOT_MEMBER | COUNCIL_MEMBER_NOT_COUNTING',
      404: 'COUNCIL_PROPOSAL_NOT_FOUND',
      409: 'COUNCIL_PROPOSAL_CLOSED',
      410: 'COUNCIL_PROPOSAL_EXPIRED',
    }),
  },
})

const listRoute = createRoute({
  tags: ['council'],
  security: security('reader'),
  method: 'get',
  path: '/council/v1/proposals',
  operationId: 'listCouncilProposals',
  summary:
    'Every proposal of a council, newest first, with its state, signatures and execution: in full to the council’s owner, without call data to a read key',
  request: { headers: tierHeaders, query: councilListQuery },
  responses: {
    200: ok('a page of proposals', proposalList),
    ...errors({
      401: 'AUTH_REQUIRED: anonymous callers are not shown the council | INVALID_API_KEY | INVALID_TOKEN',
      403: 'COUNCIL_NOT_OWNER: signed in, but not as the owner whose delegation the council holds',
      404: 'COUNCIL_NOT_FOUND: no council was formed at the address named',
    }),
  },
})

const getRoute = createRoute({
  ...common,
  method: 'get',
  path: '/council/v1/proposals/{id}',
  operationId: 'getCouncilProposal',
  summary: 'A proposal with its signatures (and whether each counts now) and its execution, to a member of the council',
  request: { headers: cladeAuthHeaders, params: proposalParams },
  responses: {
    200: ok('the proposal', proposalView, tokenHeaders),
    ...errors({ 401: authErrors, 403: 'COUNCIL_NOT_MEMBER', 404: 'COUNCIL_PROPOSAL_NOT_FOUND' }),
  },
})

export function councilRoutes(deps: ApiDeps, councils: NonNullable<ApiDeps['councils']>, secret: CladeSecret) {
  const middleware = cladeAuth(deps, secret)
  return (
    apiRouter()
      .openapi({ ...proposeRoute, middleware }, async (c) => {
        const body = c.req.valid('json')
        const caller = c.get('clade').sub
        const council = await councils.forMember(caller, body.council)
        const view = await council.propose(
          caller,
          { target: body.action.target, value: BigInt(body.action.value), callData: body.action.callData as `0x${string}` },
          BigInt(body.deadline),
        )
        return c.json(json(proposalView, view), 201)
      })
      .openapi({ ...signRoute, middleware }, async (c) => {
        const id = c.req.valid('param').id as `0x${string}`
        const council = await councils.ofProposal(id)
        const out = await council.sign(c.get('clade').sub, id, c.req.valid('json').signature as `0x${string}`)
        return c.json(json(signed, out), 200)
      })
      // Read-only and for the owner's views, so it takes the tier's credentials rather than a member's Clade
      // session. Pending proposals' call data (receivers, amounts) is the owner's business: only the owner's
      // access token (signed in through the device flow as the council's delegator) sees it; the dashboard's
      // read key sees each proposal's state without it; any other signed-in wallet or token is refused.
      .openapi(listRoute, async (c) => {
        const principal = c.get('principal')
        if (principal.kind === 'public')
          throw new ApiError(
            'AUTH_REQUIRED',
            'x-api-key or authorization: must be a read key or the council owner’s access token to list the council',
          )
        const { council: address, limit, cursor } = c.req.valid('query')
        const council = await councils.service(address)
        const owner = principal.kind === 'user' && ownerOfSubject(principal.subject)
        if (principal.kind !== 'read' && !(owner && isAddressEqual(owner, council.owner)))
          throw new ApiError(
            'COUNCIL_NOT_OWNER',
            `authorization: only the council's owner ${council.owner} (signed in with its access token) or a read key lists the council's proposals`,
          )
        const page = await council.list({ limit, after: cursor ?? null })
        return c.json(
          json(proposalList, principal.kind === 'read' ? { ...page, proposals: page.proposals.map(councilSummaryOf) } : page),
          200,
        )
      })
      .openapi({ ...getRoute, middleware }, async (c) => {
        const id = c.req.valid('param').id as `0x${string}`
        const council = await councils.ofProposal(id)
        return c.json(json(proposalView, await council.get(c.get('clade').sub, id)), 200)
      })
  )
}
