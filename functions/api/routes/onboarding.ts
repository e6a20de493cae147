// Onboarding through the owner's wallet. POST /api/v1/onboarding drafts a Golem from a STRATEGY.md for
// the owner's account: the plan in words and what the wallet is asked to grant. POST
// /api/v1/onboarding/:id/grant takes the wallet's answer (signatures, or ERC-7715 permissions); the API
// checks it in full, registers the Golem and records it due at once. GET /api/v1/onboarding/:id is the
// draft and where it stands (the dashboard's grant page and the CLI's browser handoff read it).
import { createRoute } from '@hono/zod-openapi'
import { OnboardingError } from '../../../core/onboarding/golemDraft.ts'
import type { DraftView } from '../../../app/onboarding/onboarding.ts'
import type { ApiDeps } from '../deps.ts'
import { ApiError } from '../errors.ts'
import { apiRouter, errors, jsonBody, ok, security } from '../openapi.ts'
import {
  onboardingDraftRequest,
  onboardingDraftResponse,
  onboardingGrantRequest,
  onboardingGrantResponse,
  onboardingParams,
} from '../schemas.ts'

const base = '/api/v1/onboarding'

const draftRoute = createRoute({
  method: 'post',
  path: base,
  operationId: 'draftGolem',
  summary: "Draft a Golem from a STRATEGY.md for the owner's account: the plan in words and the grants the wallet is asked for",
  tags: ['onboarding'],
  security: security('tier'),
  request: { body: jsonBody(onboardingDraftRequest) },
  responses: {
    201: ok('the draft, waiting for the owner (the same owner asking again gets the same draft)', onboardingDraftResponse),
    ...errors({
      409: 'GOLEM_EXISTS: the id names a Golem already (living or dead: ids are never reused)',
      422: 'DRAFT_REFUSED: details.field and details.rule say why (the strategy, the id, a plan the grant cannot carry)',
      501: 'NOT_IMPLEMENTED: onboarding is not wired on this deployment',
    }),
  },
})

const getRoute = createRoute({
  method: 'get',
  path: `${base}/{id}`,
  operationId: 'getGolemDraft',
  summary: 'A Golem draft and where it stands: waiting for the owner, registered, or expired',
  tags: ['onboarding'],
  security: security('tier'),
  request: { params: onboardingParams },
  responses: {
    200: ok('the draft', onboardingDraftResponse),
    ...errors({ 404: 'DRAFT_NOT_FOUND', 501: 'NOT_IMPLEMENTED: onboarding is not wired on this deployment' }),
  },
})

const grantRoute = createRoute({
  method: 'post',
  path: `${base}/{id}/grant`,
  operationId: 'grantGolem',
  summary: "The owner's grant for a draft: checked in full, then the Golem is registered and its heartbeat starts",
  tags: ['onboarding'],
  security: security('tier'),
  request: { params: onboardingParams, body: jsonBody(onboardingGrantRequest) },
  responses: {
    201: ok('registered: the next heartbeat ticks the Golem', onboardingGrantResponse),
    ...errors({
      404: 'DRAFT_NOT_FOUND',
      409: 'GOLEM_EXISTS: registered already',
      410: 'DRAFT_EXPIRED: ask for a new draft',
      422: 'GRANT_REFUSED: details.field and details.rule name what is wrong (a missing or foreign signature, a grant the plan cannot run on)',
      501: 'NOT_IMPLEMENTED: onboarding is not wired on this deployment',
    }),
  },
})

const json = (v: unknown) => JSON.parse(JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x)))

/** The draft as the API answers it: where the keys live stays with the API. */
function draftBody(d: DraftView) {
  return {
    golemId: d.golemId,
    shape: d.shape,
    status: d.status,
    owner: d.owner,
    account: d.account,
    golemKey: d.golemKey,
    ...(d.sessionAccount ? { sessionAccount: d.sessionAccount.address } : {}),
    token: d.token,
    periodAmount: d.periodAmount.toString(),
    periodSeconds: Number(d.periodSeconds),
    gasPeriodAmount: d.gasPeriodAmount.toString(),
    startDate: Number(d.startDate),
    expiresAt: Number(d.expiresAt),
    answerBy: Number(d.answerBy),
    plan: d.plan,
    delegations: d.delegations.map((x) => ({
      role: x.role,
      label: x.label,
      hash: x.hash,
      delegation: json({ ...x.delegation, signature: '0x' }),
      typedData: json(x.typedData),
    })),
    ...(d.deploy ? { deploy: d.deploy } : {}),
    ...(d.request === undefined ? {} : { request: d.request }),
  }
}

function refused(error: unknown): never {
  if (error instanceof OnboardingError) throw new ApiError(error.code as never, error.message, { field: error.field, rule: error.rule })
  throw error
}

export const onboardingRoutes = (deps: ApiDeps) => {
  const service = () => {
    if (!deps.onboarding) throw new ApiError('NOT_IMPLEMENTED', 'onboarding: not configured on this deployment')
    return deps.onboarding
  }
  return apiRouter()
    .openapi(draftRoute, async (c) => {
      const draft = await service().draft(c.req.valid('json')).catch(refused)
      return c.json(draftBody(draft), 201)
    })
    .openapi(getRoute, async (c) => {
      const draft = await service().get(c.req.valid('param').id).catch(refused)
      return c.json(draftBody(draft), 200)
    })
    .openapi(grantRoute, async (c) => {
      const { id } = c.req.valid('param')
      const registered = await service()
        .grant(id, c.req.valid('json') as never)
        .catch(refused)
      return c.json(
        {
          golemId: registered.golemId,
          golemKey: registered.golemKey,
          owner: registered.owner,
          account: registered.account,
          grant_ends_at: Number(registered.expiresAt),
          txHashes: registered.txHashes,
        },
        201,
      )
    })
}
