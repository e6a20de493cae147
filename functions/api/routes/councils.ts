// The owner forms a Coordination Council: POST /api/v1/councils/draft answers the council's MultiSig
// DeleGator (counterfactual) and the owner's delegation to it as EIP-712 typed data for the wallet; POST
// /api/v1/councils takes the same request back with the signed delegation, checks it in full, deploys the
// council and stores it. As with the owner's other drafts, the draft changes nothing and proves nothing:
// the owner's signature on what comes back is the authority. GET /api/v1/councils?owner= and GET
// /api/v1/councils/{council} read what was formed.
import { createRoute, z } from '@hono/zod-openapi'
import type { Delegation } from '@metamask/smart-accounts-kit'
import { formatUnits, parseUnits, type Address, type Hex } from 'viem'
import type { CouncilDraft, CouncilScopeRequest } from '../../../app/council/formation.ts'
import { MAX_COUNCIL_SEATS, MIN_COUNCIL_SEATS, type CouncilScope } from '../../../core/council/formation.ts'
import { fromCouncilJson } from '../../../core/council/serialize.ts'
import type { CouncilRecord } from '../../../core/council/store.ts'
import type { ApiDeps } from '../deps.ts'
import { ApiError } from '../errors.ts'
import { apiRouter, errors, jsonBody, ok, security } from '../openapi.ts'
import { tierHeaders } from '../rateLimit.ts'
import { addressSchema, golemIdSchema, signedDelegationSchema, uint256 } from '../schemas.ts'
import { jsonable } from './ownerDrafts.ts'

const MAX_LIST = 16
const selector = z.string().regex(/^0x[0-9a-fA-F]{8}$/, 'must be a 4-byte function selector: 0x and 8 hex digits')
const usd = z
  .string()
  .regex(/^\d{1,12}(\.\d{1,6})?$/, { message: 'must be US dollars as a decimal string (at most 6 decimals), e.g. "1000"', abort: true })
  .refine((v) => parseUnits(v, 6) > 0n, 'must be more than 0')
const seconds = (what: string) =>
  z.number('must be a number (unix seconds)').int('must be a whole number of unix seconds').positive('must be positive').meta({
    description: what,
  })

const scopeFields = {
  targets: z
    .array(addressSchema)
    .min(1, 'must name at least one contract')
    .max(MAX_LIST, `must name at most ${MAX_LIST}`)
    .meta({ description: 'AllowedTargets: the only contracts the council may call' }),
  selectors: z
    .array(selector)
    .min(1, 'must name at least one function')
    .max(MAX_LIST, `must name at most ${MAX_LIST}`)
    .meta({ description: 'AllowedMethods: the only functions (e.g. 0xa9059cbb, ERC-20 transfer)' }),
  receivers: z
    .array(
      z.strictObject({
        receiver: addressSchema,
        startIndex: z
          .number('must be a number')
          .int('must be a whole number')
          .min(4, 'must be at least 4 (after the selector)')
          .max(4096, 'must be at most 4096')
          .default(4)
          .meta({ description: "the receiver's address word in the call data (a transfer's `to` is at byte 4)" }),
      }),
    )
    .min(1, 'must pin at least one receiver: an unpinned receiver lets k members send the owner’s tokens anywhere')
    .max(MAX_LIST, `must pin at most ${MAX_LIST}`)
    .meta({ description: 'AllowedCalldata per receiver: whom the council may pay' }),
  maxValue: uint256.default('0').meta({ description: 'ValueLte: native value per call, wei (default 0)' }),
  dailyLimitUsd: usd.meta({ description: 'DailySpendLimit: US dollars per UTC day across every priced token' }),
}
const feeds = z
  .array(
    z.strictObject({
      token: addressSchema,
      feed: addressSchema,
      decimals: z.number('must be a number').int('must be a whole number').min(0, 'must be at least 0').max(36, 'must be at most 36'),
    }),
  )
  .min(1, 'must name at least one price feed')
  .max(MAX_LIST, `must name at most ${MAX_LIST}`)
  .meta({ description: 'Chainlink-style price feed of every token the council moves, with the token’s decimals' })
const maxPriceAge = z
  .number('must be a number (seconds)')
  .int('must be a whole number of seconds')
  .min(60, 'must be at least 60 seconds')
  .max(7 * 86_400, 'must be at most 604800 seconds (7 days)')
  .meta({ description: 'seconds a price may be old before the DailySpendLimit refuses it' })

const draftScope = z.strictObject({
  ...scopeFields,
  feeds: feeds.optional().meta({ description: "default: the deployment's known feeds" }),
  maxPriceAge: maxPriceAge.optional().meta({ description: 'default 86400' }),
  startsAt: seconds('MortalityTimeWindow start; default now').optional(),
  endsAt: seconds('MortalityTimeWindow end (inclusive): after now, at most a year ahead; default 30 days after the start').optional(),
})
/** The scope as the draft answered it, every default filled in: what the formation is asked with. */
const formedScope = z.strictObject({
  ...scopeFields,
  feeds,
  maxPriceAge,
  startsAt: seconds('MortalityTimeWindow start'),
  endsAt: seconds('MortalityTimeWindow end (inclusive)'),
})

const seats = {
  golems: z
    .array(golemIdSchema)
    .min(MIN_COUNCIL_SEATS, `must name at least ${MIN_COUNCIL_SEATS} Golems: one alone is not a council`)
    .max(MAX_COUNCIL_SEATS, `must name at most ${MAX_COUNCIL_SEATS} Golems (the multisig's limit)`)
    .meta({ description: "the owner's living Golems that hold the seats (each seat is the Golem's current session key)" }),
  threshold: z
    .number('must be a number')
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .meta({ description: 'k: how many seats must sign, from 1 to the number of Golems' }),
}
/** k of n: the threshold is at most the seats (named as the threshold's own rule). */
const atMostSeats = (body: { golems: string[]; threshold: number }, ctx: z.RefinementCtx) => {
  if (body.threshold > body.golems.length)
    ctx.addIssue({ code: 'custom', path: ['threshold'], message: `must be at most ${body.golems.length} (the Golems named)` })
}

export const councilDraftRequest = z.strictObject({ ...seats, scope: draftScope }).superRefine(atMostSeats)
export const councilFormRequest = z
  .strictObject({
    ...seats,
    scope: formedScope,
    salt: z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be the draft’s 32-byte hex salt'),
    delegation: signedDelegationSchema.meta({ description: 'the drafted delegation with the owner’s signature' }),
  })
  .superRefine(atMostSeats)

const anyObject = z.record(z.string(), z.unknown())
const member = z.object({ golemId: z.string(), signer: z.string() })
const scopeView = z.object({
  targets: z.array(z.string()),
  selectors: z.array(z.string()),
  receivers: z.array(z.object({ receiver: z.string(), startIndex: z.number().int() })),
  maxValue: z.string(),
  dailyLimitUsd: z.string(),
  feeds: z.array(z.object({ token: z.string(), feed: z.string(), decimals: z.number().int() })),
  maxPriceAge: z.number().int(),
  startsAt: z.number().int(),
  endsAt: z.number().int(),
})
const draftResponse = z.object({
  council: z.string().meta({ description: "the council's MultiSig DeleGator (counterfactual until deployed)" }),
  owner: z.string().meta({ description: "the owner's smart account: the delegation's delegator and the signer expected" }),
  members: z.array(member),
  threshold: z.number().int(),
  scope: scopeView,
  salt: z.string(),
  delegation: anyObject.meta({ description: 'the unsigned delegation (signature 0x)' }),
  typedData: anyObject.meta({ description: 'the EIP-712 Delegation the wallet signs (eth_signTypedData_v4)' }),
  delegationHash: z.string(),
  deployed: z.boolean(),
})
const councilView = z.object({
  council: z.string(),
  owner: z.string(),
  chainId: z.number().int(),
  members: z.array(member),
  threshold: z.number().int(),
  scope: scopeView,
  delegationHash: z.string(),
  formedAt: z.number().int().meta({ description: 'unix seconds' }),
  deployTxHash: z.string().nullable().meta({ description: 'the deployment this formation sent (null: it was on the chain already)' }),
})

const refusals = {
  400: 'VALIDATION_FAILED: a field out of range (details.issues name it)',
  422: 'COUNCIL_FORMATION_REFUSED: details.field and details.rule (a Golem not the owner’s or not alive, the window, the feeds)',
  501: 'NOT_IMPLEMENTED: councils are not wired on this deployment',
}

const draftRoute = createRoute({
  method: 'post',
  path: '/api/v1/councils/draft',
  operationId: 'draftCouncil',
  summary: "Draft a council of the owner's Golems: its MultiSig DeleGator (k of n) and the owner's bounded delegation to it, to sign",
  tags: ['owner'],
  security: security('tier'),
  request: { body: jsonBody(councilDraftRequest) },
  responses: { 200: ok('the council and the delegation to sign; nothing is written', draftResponse), ...errors(refusals) },
})

const formRoute = createRoute({
  method: 'post',
  path: '/api/v1/councils',
  operationId: 'formCouncil',
  summary: "Form the drafted council with the owner's signed delegation: checked in full, then deployed and stored",
  tags: ['owner'],
  security: security('tier'),
  request: { body: jsonBody(councilFormRequest) },
  responses: {
    201: ok('formed: its members propose and sign through /council/v1', councilView),
    200: ok('formed already with this very delegation: nothing changed', councilView),
    ...errors({
      ...refusals,
      409: 'COUNCIL_EXISTS: the council was formed with another delegation',
      422: 'COUNCIL_FORMATION_REFUSED: details.field and details.rule (delegation.signature not the owner’s, a delegation that is not the drafted one, a Golem not the owner’s or not alive)',
    }),
  },
})

const listRoute = createRoute({
  method: 'get',
  path: '/api/v1/councils',
  operationId: 'listCouncils',
  summary: "The owner's councils, newest first: seats, threshold and scope",
  tags: ['owner'],
  security: security('tier'),
  request: { headers: tierHeaders, query: z.strictObject({ owner: addressSchema.meta({ description: "the owner's smart account" }) }) },
  responses: {
    200: ok('the councils', z.object({ owner: z.string(), councils: z.array(councilView) })),
    ...errors({ 400: 'VALIDATION_FAILED naming owner', 501: refusals[501] }),
  },
})

const getRoute = createRoute({
  method: 'get',
  path: '/api/v1/councils/{council}',
  operationId: 'getCouncil',
  summary: 'One council: seats, threshold and scope',
  tags: ['owner'],
  security: security('tier'),
  request: { headers: tierHeaders, params: z.object({ council: addressSchema }) },
  responses: { 200: ok('the council', councilView), ...errors({ 404: 'COUNCIL_NOT_FOUND', 501: refusals[501] }) },
})

type ScopeJson = z.output<typeof formedScope>

function scopeOf(json: z.output<typeof draftScope>): CouncilScopeRequest {
  return {
    targets: json.targets,
    selectors: json.selectors as Hex[],
    receivers: json.receivers,
    maxValue: BigInt(json.maxValue),
    dailyLimitUsd: parseUnits(json.dailyLimitUsd, 6),
    feeds: json.feeds,
    maxPriceAge: json.maxPriceAge,
    startsAt: json.startsAt === undefined ? undefined : BigInt(json.startsAt),
    endsAt: json.endsAt === undefined ? undefined : BigInt(json.endsAt),
  }
}

const scopeJson = (s: CouncilScope): ScopeJson => ({
  targets: s.targets,
  selectors: s.selectors,
  receivers: s.receivers.map((r) => ({ receiver: r.receiver, startIndex: r.startIndex })),
  maxValue: s.maxValue.toString(),
  dailyLimitUsd: formatUnits(s.dailyLimitUsd, 6),
  feeds: s.feeds.map((f) => ({ token: f.token, feed: f.feed, decimals: f.decimals })),
  maxPriceAge: s.maxPriceAge,
  startsAt: Number(s.startsAt),
  endsAt: Number(s.endsAt),
})

const draftBody = (d: CouncilDraft) => ({
  council: d.council,
  owner: d.owner,
  members: d.members,
  threshold: d.threshold,
  scope: scopeJson(d.scope),
  salt: d.salt,
  delegation: jsonable(d.delegation),
  typedData: jsonable(d.typedData),
  delegationHash: d.delegationHash,
  deployed: d.deployed,
})

export const councilBody = (r: CouncilRecord) => ({
  council: r.council,
  owner: r.owner,
  chainId: r.chainId,
  members: r.members,
  threshold: r.threshold,
  scope: scopeJson(fromCouncilJson<CouncilScope>(r.scope)),
  delegationHash: r.delegationHash,
  formedAt: Math.floor(r.formedAt / 1000),
  deployTxHash: r.deployTxHash ?? null,
})

export const councilFormationRoutes = (deps: ApiDeps) => {
  const formation = () => {
    if (!deps.councilFormation) throw new ApiError('NOT_IMPLEMENTED', 'councils: not configured on this deployment')
    return deps.councilFormation
  }
  const councils = () => {
    if (!deps.councils) throw new ApiError('NOT_IMPLEMENTED', 'councils: not configured on this deployment')
    return deps.councils
  }
  return apiRouter()
    .openapi(draftRoute, async (c) => {
      const body = c.req.valid('json')
      const draft = await formation().draft({ golems: body.golems, threshold: body.threshold, scope: scopeOf(body.scope) })
      return c.json(draftBody(draft), 200)
    })
    .openapi(formRoute, async (c) => {
      const body = c.req.valid('json')
      const formed = await formation().form({
        golems: body.golems,
        threshold: body.threshold,
        scope: scopeOf(body.scope) as CouncilScope,
        salt: body.salt as Hex,
        delegation: body.delegation as Delegation,
      })
      return c.json(councilBody(formed.record), formed.created ? 201 : 200)
    })
    .openapi(listRoute, async (c) => {
      const { owner } = c.req.valid('query')
      const found = await councils().ofOwner(owner as Address)
      return c.json({ owner, councils: found.map(councilBody) }, 200)
    })
    .openapi(getRoute, async (c) => {
      return c.json(councilBody(await councils().record(c.req.valid('param').council as Address)), 200)
    })
}
