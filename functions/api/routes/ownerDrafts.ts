// Drafts of the owner's acts, for the owner's wallet to sign: POST /api/v1/revocation-draft (every grant
// of the Golems named, disabled in one user operation), /api/v1/golems/:id/renewal-draft (the superseding
// grant), /api/v1/golems/:id/rotation-grant-draft (the grant to the new key a rotation waits for) and
// /api/v1/golems/:id/adjustment-draft (a narrower grant and the user operation disabling what it
// supersedes). A draft changes nothing and proves nothing: the signature on what comes back is the
// authority, checked where it is posted (the renewal and adjustment routes) or by the chain (the user
// operation, submitted from the owner's own account).
import { createRoute, z } from '@hono/zod-openapi'
import { OwnerDraftError } from '../../../app/ownerDrafts.ts'
import { RevocationError } from '../../../app/revocation.ts'
import type { ApiDeps } from '../deps.ts'
import { ApiError } from '../errors.ts'
import { apiRouter, errors, jsonBody, ok, security } from '../openapi.ts'
import { golemParams } from '../schemas.ts'

const anyObject = z.record(z.string(), z.unknown())

const ownerOperation = {
  userOperation: anyObject.meta({ description: 'the unsigned user operation (ERC-4337 v0.7; integers as decimal strings)' }),
  typedData: anyObject.meta({ description: 'what the wallet signs: PackedUserOperation under the smart account’s EIP-712 domain' }),
  entryPoint: z.string().meta({ description: 'the EntryPoint the signed operation is submitted to (handleOps)' }),
}
const grantDraft = {
  delegation: anyObject.meta({ description: 'the unsigned delegation (signature 0x)' }),
  typedData: anyObject.meta({ description: 'the EIP-712 Delegation the wallet signs (eth_signTypedData_v4)' }),
}

const revocationDraftRoute = createRoute({
  method: 'post',
  path: '/api/v1/revocation-draft',
  operationId: 'draftRevocation',
  summary: "Draft the owner's revocation: one user operation from the owner's smart account disabling every grant of the Golems named",
  tags: ['owner'],
  security: security('tier'),
  request: { body: jsonBody(z.strictObject({ golems: z.array(z.string()).meta({ description: '1-50 Golem ids of one owner' }) })) },
  responses: {
    200: ok(
      'the operation to sign and submit, and the grants it disables',
      z.object({
        ...ownerOperation,
        grants: z.array(z.object({ delegationHash: z.string(), kind: z.string(), label: z.string() })),
      }),
    ),
    ...errors({ 400: 'VALIDATION_FAILED', 404: 'GOLEM_NOT_FOUND', 409: 'NOTHING_TO_REVOKE: every grant is disabled already' }),
  },
})

const renewalDraftRoute = createRoute({
  method: 'post',
  path: '/api/v1/golems/{id}/renewal-draft',
  operationId: 'draftRenewal',
  summary:
    "Draft the grant that renews a Golem's runway: same runway, a higher salt, one more life from where the newest grant stops paying",
  tags: ['owner'],
  security: security('tier'),
  request: { params: golemParams },
  responses: {
    200: ok('the grant to sign and post to the renewal route', z.object({ ...grantDraft, expiresAt: z.number().int() })),
    ...errors({ 404: 'GOLEM_NOT_FOUND', 410: 'GOLEM_DEAD', 503: 'GOLEM_DYING' }),
  },
})

const rotationGrantDraftRoute = createRoute({
  method: 'post',
  path: '/api/v1/golems/{id}/rotation-grant-draft',
  operationId: 'draftRotationGrant',
  summary:
    "Draft the grant a key rotation waits for: the newest grant's runway and end to the new key, from the runway grid's next boundary",
  tags: ['owner'],
  security: security('tier'),
  request: { params: golemParams },
  responses: {
    200: ok(
      'the grant to sign and post to the rotation-grant route',
      z.object({
        ...grantDraft,
        to: z.string().meta({ description: 'the new key the rotation created' }),
        periodStart: z.number().int(),
        expiresAt: z.number().int(),
        gas: z.object(grantDraft).optional().meta({
          description: 'the gas grant to the new key, to sign and post beside the runway grant; present when the old key had a direct one',
        }),
      }),
    ),
    ...errors({
      400: 'VALIDATION_FAILED: no rotation waits for the owner, or the grant is an ERC-7715 one',
      404: 'GOLEM_NOT_FOUND',
      410: 'GOLEM_DEAD',
      503: 'GOLEM_DYING',
    }),
  },
})

const adjustmentDraftRoute = createRoute({
  method: 'post',
  path: '/api/v1/golems/{id}/adjustment-draft',
  operationId: 'draftAdjustment',
  summary: 'Draft a narrower grant (a lower period amount, an earlier end) and the user operation that disables what it supersedes',
  tags: ['owner'],
  security: security('tier'),
  request: {
    params: golemParams,
    body: jsonBody(
      z.strictObject({
        periodAmount: z
          .unknown()
          .optional()
          .meta({ description: "the new period amount in the runway token's base units (decimal string)" }),
        endsAt: z.unknown().optional().meta({ description: 'the new end, unix seconds' }),
      }),
    ),
  },
  responses: {
    200: ok(
      'the grant to sign and post to the adjustment route, then the operation to sign and submit',
      z.object({
        ...grantDraft,
        disable: z.object({ ...ownerOperation, grants: z.array(z.string()) }),
        periodAmount: z.string(),
        periodStart: z.number().int(),
        expiresAt: z.number().int(),
      }),
    ),
    ...errors({ 400: 'VALIDATION_FAILED: details.field and details.rule', 404: 'GOLEM_NOT_FOUND', 410: 'GOLEM_DEAD', 503: 'GOLEM_DYING' }),
  },
})

/** bigints as decimal strings: what JSON carries and the wallet reads. */
export const jsonable = <T>(v: T): Record<string, unknown> =>
  JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x))) as Record<string, unknown>

function refusal(error: unknown): never {
  if (error instanceof OwnerDraftError || error instanceof RevocationError)
    throw new ApiError(error.code as 'VALIDATION_FAILED', error.message, error.details ?? {})
  throw error
}

export const ownerDraftRoutes = (deps: ApiDeps) =>
  apiRouter()
    .openapi(revocationDraftRoute, async (c) => {
      if (!deps.ownerDrafts) throw new ApiError('NOT_IMPLEMENTED', 'revocation draft: not configured on this deployment')
      const draft = await deps.ownerDrafts.revocation(c.req.valid('json').golems).catch(refusal)
      return c.json(jsonable(draft) as never, 200)
    })
    .openapi(renewalDraftRoute, async (c) => {
      if (!deps.ownerDrafts) throw new ApiError('NOT_IMPLEMENTED', 'renewal draft: not configured on this deployment')
      const draft = await deps.ownerDrafts.renewal(c.get('golem').id).catch(refusal)
      return c.json({ ...jsonable(draft), expiresAt: Number(draft.expiresAt) } as never, 200)
    })
    .openapi(rotationGrantDraftRoute, async (c) => {
      if (!deps.ownerDrafts) throw new ApiError('NOT_IMPLEMENTED', 'rotation grant draft: not configured on this deployment')
      const draft = await deps.ownerDrafts.rotationGrant(c.get('golem').id).catch(refusal)
      return c.json({ ...jsonable(draft), periodStart: Number(draft.periodStart), expiresAt: Number(draft.expiresAt) } as never, 200)
    })
    .openapi(adjustmentDraftRoute, async (c) => {
      if (!deps.ownerDrafts) throw new ApiError('NOT_IMPLEMENTED', 'adjustment draft: not configured on this deployment')
      const draft = await deps.ownerDrafts.adjustment(c.get('golem').id, c.req.valid('json')).catch(refusal)
      return c.json(
        {
          ...jsonable(draft),
          periodStart: Number(draft.periodStart),
          expiresAt: Number(draft.expiresAt),
        } as never,
        200,
      )
    })
