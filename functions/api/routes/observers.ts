// The owner's read-only observers ("Sleepwalkers") of a Golem (app/observers.ts, docs/observer.md):
// POST /api/v1/golems/:id/observer-draft drafts the observer delegation from the owner's account for the
// wallet to sign; POST /api/v1/golems/:id/observers keeps the signed one (its signature, checked by
// ERC-1271 against the owner's account, is the authority); GET lists them with their state on the chain,
// to the owner signed in or a read key; POST /api/v1/golems/:id/observers/revocation-draft drafts the
// owner's user operation that disables one. A draft changes nothing; a refused grant writes nothing.
import { createRoute, z } from '@hono/zod-openapi'
import type { Delegation } from '@metamask/smart-accounts-kit'
import { isAddressEqual, type Hex } from 'viem'
import { OwnerDraftError } from '../../../app/ownerDrafts.ts'
import { OBSERVER_PUBLISH_METHODS, type ObserverPublishMethod } from '../../../core/caveats/observerScope.ts'
import { ObserverGrantError } from '../../../core/custody/observerGrant.ts'
import { findGolem } from '../deathRules.ts'
import type { ApiDeps } from '../deps.ts'
import { ApiError, type ApiErrorCode } from '../errors.ts'
import { apiRouter, errors, jsonBody, ok, security } from '../openapi.ts'
import { tierHeaders } from '../rateLimit.ts'
import { addressSchema, golemParams, signedDelegationSchema } from '../schemas.ts'
import { ownerOfSubject } from './auth.ts'
import { jsonable } from './ownerDrafts.ts'

const anyObject = z.record(z.string(), z.unknown())
const hash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be 32 bytes of 0x-prefixed hex')
const publishMethods = Object.keys(OBSERVER_PUBLISH_METHODS) as [ObserverPublishMethod, ...ObserverPublishMethod[]]
const positiveInt = (what: string) =>
  z
    .number('must be a number')
    .int('must be an integer')
    .positive('must be at least 1')
    .max(Number.MAX_SAFE_INTEGER, `must be at most ${Number.MAX_SAFE_INTEGER}`)
    .meta({ description: what })

const terms = {
  observer: z.string().meta({ description: "the observer's address: the delegate" }),
  publish: z.array(z.enum(publishMethods)),
  expiresAt: z.number().int().nullable().meta({ description: 'unix seconds (exclusive); null: no expiry' }),
  maxCalls: z.number().int().nullable().meta({ description: 'the LimitedCalls limit; null: unlimited' }),
}

const observerView = z.object({
  delegationHash: z.string(),
  ...terms,
  status: z.enum(['active', 'revoked', 'expired']).meta({
    description: "revoked: disabled on the DelegationManager (read from the chain's head); expired: past its expiry",
  }),
  delegation: anyObject.meta({ description: 'the signed delegation the observer redeems (public data)' }),
})

const draftRoute = createRoute({
  method: 'post',
  path: '/api/v1/golems/{id}/observer-draft',
  operationId: 'draftObserver',
  summary:
    "Draft a read-only observer grant from the owner's account: it may publish to the Dream and Daimon oracles (startDream, endDream, setPAD) and nothing else",
  tags: ['owner'],
  security: security('tier'),
  request: {
    params: golemParams,
    body: jsonBody(
      z.strictObject({
        observer: addressSchema.meta({ description: "the observer's key or account" }),
        publish: z
          .array(z.enum(publishMethods, { error: `must be one of ${publishMethods.join(', ')}` }))
          .min(1, 'must name at least one publish method')
          .max(publishMethods.length)
          .optional()
          .meta({ description: 'default all three' }),
        expiresAt: positiveInt('unix seconds (exclusive), after now; default none').optional(),
        maxCalls: positiveInt('how many publish calls in all; default unlimited').optional(),
      }),
    ),
  },
  responses: {
    200: ok(
      'the grant to sign (eth_signTypedData_v4) and post to /observers',
      z.object({
        delegation: anyObject.meta({ description: 'the unsigned delegation (signature 0x)' }),
        typedData: anyObject.meta({ description: 'the EIP-712 Delegation the wallet signs' }),
        delegationHash: z.string(),
        ...terms,
      }),
    ),
    ...errors({ 400: 'VALIDATION_FAILED: details.field and details.rule', 404: 'GOLEM_NOT_FOUND', 410: 'GOLEM_DEAD', 503: 'GOLEM_DYING' }),
  },
})

const grantRoute = createRoute({
  method: 'post',
  path: '/api/v1/golems/{id}/observers',
  operationId: 'grantObserver',
  summary: "Keep the owner's signed observer grant: checked, its signature verified against the owner's account, recorded",
  tags: ['owner'],
  security: security('tier'),
  request: { params: golemParams, body: jsonBody(z.strictObject({ delegation: signedDelegationSchema })) },
  responses: {
    201: ok('recorded', observerView),
    200: ok('already recorded: nothing changed', observerView),
    ...errors({
      404: 'GOLEM_NOT_FOUND',
      410: 'GOLEM_DEAD',
      422: "OBSERVER_GRANT_REFUSED: details.field and details.rule name what is wrong (not the owner's grant, not root, a scope wider than an observer's, expired, the signature)",
      503: 'GOLEM_DYING',
    }),
  },
})

const listRoute = createRoute({
  method: 'get',
  path: '/api/v1/golems/{id}/observers',
  operationId: 'listObservers',
  summary: "The Golem's observers, oldest first, each active, revoked or expired as the chain says now",
  tags: ['owner'],
  security: security('reader'),
  request: { params: golemParams, headers: tierHeaders },
  responses: {
    200: ok('the observers', z.object({ golemId: z.string(), owner: z.string(), observers: z.array(observerView) })),
    ...errors({
      401: 'AUTH_REQUIRED: a read key or the owner’s access token | INVALID_API_KEY | INVALID_TOKEN',
      403: 'NOT_GOLEM_OWNER: signed in, but not as the Golem’s owner',
      404: 'GOLEM_NOT_FOUND',
    }),
  },
})

const revocationDraftRoute = createRoute({
  method: 'post',
  path: '/api/v1/golems/{id}/observers/revocation-draft',
  operationId: 'draftObserverRevocation',
  summary:
    "Draft the owner's revocation of an observer: one user operation from the owner's account disabling the grant named (or every grant to the observer named)",
  tags: ['owner'],
  security: security('tier'),
  request: {
    params: golemParams,
    body: jsonBody(
      z.strictObject({
        delegationHash: hash.optional().meta({ description: 'one observer grant' }),
        observer: addressSchema.optional().meta({ description: 'every grant to this observer still enabled' }),
      }),
    ),
  },
  responses: {
    200: ok(
      'the operation to sign and submit to the EntryPoint (handleOps), and the grants it disables',
      z.object({
        userOperation: anyObject.meta({ description: 'the unsigned user operation (ERC-4337 v0.7; integers as decimal strings)' }),
        typedData: anyObject.meta({ description: 'what the wallet signs: PackedUserOperation under the smart account’s EIP-712 domain' }),
        entryPoint: z.string(),
        grants: z.array(z.string()),
      }),
    ),
    ...errors({
      400: 'VALIDATION_FAILED: neither or both of delegationHash and observer',
      404: 'GOLEM_NOT_FOUND | OBSERVER_NOT_FOUND',
      409: 'NOTHING_TO_REVOKE: every grant named is disabled already',
    }),
  },
})

/** bigints as decimal strings, but the terms' integers as JSON numbers (unix seconds, a call count). */
function json<T extends { expiresAt: bigint | null; maxCalls: bigint | null }>(v: T) {
  return {
    ...jsonable(v),
    expiresAt: v.expiresAt === null ? null : Number(v.expiresAt),
    maxCalls: v.maxCalls === null ? null : Number(v.maxCalls),
  }
}

function refusal(error: unknown): never {
  if (error instanceof OwnerDraftError || error instanceof ObserverGrantError)
    throw new ApiError(error.code as ApiErrorCode, error.message, error.details ?? {})
  throw error
}

export const observerRoutes = (deps: ApiDeps) => {
  const service = () => {
    if (!deps.observers) throw new ApiError('NOT_IMPLEMENTED', 'observers: not configured on this deployment')
    return deps.observers
  }
  return apiRouter()
    .openapi(draftRoute, async (c) => {
      const draft = await service().draft(c.get('golem').id, c.req.valid('json')).catch(refusal)
      return c.json(json(draft) as never, 200)
    })
    .openapi(grantRoute, async (c) => {
      const { delegation } = c.req.valid('json')
      const granted = await service()
        .grant(c.get('golem').id, delegation as Delegation)
        .catch(refusal)
      const { recorded, ...view } = granted
      return c.json(json(view) as never, recorded ? 201 : 200)
    })
    .openapi(listRoute, async (c) => {
      const golem = await findGolem(deps, c.req.valid('param').id)
      // The owner's business: the owner signed in (device flow or the paired Snap) or a read key.
      const principal = c.get('principal')
      if (principal.kind === 'public')
        throw new ApiError('AUTH_REQUIRED', "x-api-key or authorization: must be a read key or the Golem owner's access token")
      const owner = principal.kind === 'snap' ? principal.owner : principal.kind === 'user' ? ownerOfSubject(principal.subject) : undefined
      if (principal.kind !== 'read' && !(owner && isAddressEqual(owner, golem.owner)))
        throw new ApiError(
          'NOT_GOLEM_OWNER',
          `authorization: only Golem ${golem.id}'s owner ${golem.owner} or a read key lists its observers`,
        )
      const listed = await service().list(golem.id).catch(refusal)
      return c.json({ golemId: golem.id, owner: listed.owner, observers: listed.observers.map(json) } as never, 200)
    })
    .openapi(revocationDraftRoute, async (c) => {
      // Open for a dying or dead Golem too (the death rules let revocation drafts through): an observer's
      // grant is the owner's account's and outlives the Golem.
      const golem = await findGolem(deps, c.req.valid('param').id)
      const body = c.req.valid('json')
      const draft = await service()
        .revocationDraft(golem.id, {
          ...(body.delegationHash === undefined ? {} : { delegationHash: body.delegationHash as Hex }),
          ...(body.observer === undefined ? {} : { observer: body.observer }),
        })
        .catch(refusal)
      return c.json(jsonable(draft) as never, 200)
    })
}
