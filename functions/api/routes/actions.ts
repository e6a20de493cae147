// POST /api/v1/golems/:id/actions: a Golem's runtime asks custody to act. Authenticated by the Golem's
// own current key, signed per request (core/actions/requestSignature.ts) with a single-use nonce kept
// in the store: an unsigned, stale, replayed or foreign-key request is refused before anything is
// decided, and a refused request changes nothing.
import { createRoute, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { isAddressEqual, isHex, type Hex } from 'viem'
import {
  ACTION_HEADERS,
  ACTION_KINDS,
  ACTION_REQUEST_MAX_SKEW_SECONDS,
  MAX_SWAP_VIA,
  ActionRequestError,
  recoverActionRequestSigner,
  type ActionRequest,
  type SpawnReplicantRequest,
} from '../../../core/actions/index.ts'
import { StoreConflictError } from '../../../core/store/index.ts'
import type { ActionOutcome } from '../../../app/actions/executeAction.ts'
import type { ActionRouteDeps } from '../deps.ts'
import { errorResponse, type ApiErrorCode } from '../errors.ts'
import { answered, apiRouter, checkedByHandler, errors, jsonBody, security } from '../openapi.ts'

const uint = z.string().regex(/^\d{1,78}$/, 'must be a decimal integer string')
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 20-byte 0x address')
const action = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('swap'),
    router: address,
    tokenIn: address,
    tokenOut: address,
    fee: z.number().int().optional(),
    via: z
      .array(z.object({ token: address, fee: z.number().int().optional() }))
      .min(1)
      .max(MAX_SWAP_VIA)
      .optional()
      .describe('a multi-hop route: each token passed through, in order, with the fee tier of the pool into it'),
    amountIn: uint,
    amountOutMinimum: uint,
    recipient: address.optional(),
  }),
  z.object({ kind: z.literal('deposit'), vault: address, assets: uint, receiver: address.optional() }),
  z.object({ kind: z.literal('withdraw'), vault: address, assets: uint, receiver: address.optional(), shareOwner: address.optional() }),
  z.object({ kind: z.literal('redeem'), vault: address, shares: uint, receiver: address.optional(), shareOwner: address.optional() }),
  z.object({ kind: z.literal('approve'), token: address, spender: address, amount: uint }),
  z.object({
    kind: z.literal('bridge'),
    messenger: address,
    token: address,
    amount: uint,
    destinationDomain: z.number().int(),
    destinationCaller: address.optional(),
    maxFee: uint.optional(),
    minFinalityThreshold: z.number().int().optional(),
    mintRecipient: address.optional(),
  }),
  z.object({
    kind: z.literal('provideLiquidity'),
    positionManager: address,
    token0: address,
    token1: address,
    fee: z.number().int().optional(),
    tickLower: z.number().int(),
    tickUpper: z.number().int(),
    amount0Desired: uint,
    amount1Desired: uint,
    amount0Min: uint,
    amount1Min: uint,
    deadline: uint.optional(),
    recipient: address.optional(),
  }),
  z.object({
    kind: z.literal('collect'),
    positionManager: address,
    tokenId: uint,
    amount0Max: uint.optional(),
    amount1Max: uint.optional(),
    recipient: address.optional(),
  }),
  z.object({
    kind: z.literal('removeLiquidity'),
    positionManager: address,
    tokenId: uint,
    liquidity: uint.describe("liquidity taken out of the position, owed to it until a collect pays it to the owner's account"),
    amount0Min: uint.optional(),
    amount1Min: uint.optional(),
    deadline: uint.optional(),
  }),
  z.object({
    kind: z.literal('spawnReplicant'),
    dailyRunway: uint.optional(),
    lifespanSeconds: uint.optional(),
    budgetUsd: uint.optional(),
    maxCalls: z.number().int().optional(),
  }),
])
export const actionRequestBody = z.object({
  requestId: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, 'must be 1-40 letters, digits, - or _'),
  actions: z.array(action).min(1).max(8),
})
const actionHeaders = z.object({
  [ACTION_HEADERS.timestamp]: z.string().describe('unix seconds when the request was signed'),
  [ACTION_HEADERS.nonce]: z.string().describe('0x and 32 random bytes, never reused'),
  [ACTION_HEADERS.signature]: z.string().describe("EIP-712 ActionRequest signature by the Golem's current key"),
})

const AMOUNT_FIELDS = new Set([
  'amountIn',
  'amountOutMinimum',
  'assets',
  'shares',
  'amount',
  'maxFee',
  'amount0Desired',
  'amount1Desired',
  'amount0Min',
  'amount1Min',
  'deadline',
  'tokenId',
  'liquidity',
  'amount0Max',
  'amount1Max',
  'dailyRunway',
  'lifespanSeconds',
  'budgetUsd',
])
const toRequest = (a: z.infer<typeof action>): ActionRequest | SpawnReplicantRequest =>
  Object.fromEntries(Object.entries(a).map(([k, v]) => [k, AMOUNT_FIELDS.has(k) ? BigInt(v as string) : v])) as
    | ActionRequest
    | SpawnReplicantRequest

const fail = (c: Context, code: ApiErrorCode, message: string, details: Record<string, unknown> = {}) =>
  errorResponse(c, code, message, details)

/** JSON for an outcome: bigints as decimal strings, the receipt as its hash, block and gas. */
function outcomeBody(o: ActionOutcome) {
  const text = (v: unknown) => (typeof v === 'bigint' ? v.toString() : v)
  switch (o.status) {
    case 'executed':
      return {
        status: o.status,
        requestId: o.requestId,
        txHash: o.txHash,
        blockNumber: o.receipt.blockNumber.toString(),
        gasUsed: o.receipt.gasUsed.toString(),
        duplicate: o.duplicate,
        calls: o.calls,
      }
    case 'refused':
      return { status: o.status, requestId: o.requestId, checkedBy: o.checkedBy, refusal: { ...o.refusal, args: o.refusal.args.map(text) } }
    case 'spawned':
      return {
        status: o.status,
        requestId: o.requestId,
        replicantId: o.replicantId,
        replicantKey: o.replicantKey,
        delegationHash: o.delegationHash,
        expiresAt: o.expiresAt.toString(),
        duplicate: o.duplicate,
      }
    default:
      return o
  }
}

const STATUS = { executed: 200, spawned: 201, pending: 202, refused: 422, failed: 502 } as const

const actionRoute = createRoute({
  method: 'post',
  path: '/api/v1/golems/{id}/actions',
  operationId: 'golemAction',
  summary:
    "A Golem's runtime asks custody to swap, deposit, withdraw, redeem, approve, bridge, provide liquidity, remove liquidity or collect (or a batch, in one transaction): custody picks the covering delegation, pre-checks every caveat and redeems once per requestId",
  tags: ['golems'],
  security: security('none'),
  request: { params: z.object({ id: z.string() }), headers: actionHeaders, body: jsonBody(actionRequestBody) },
  responses: {
    200: answered('executed: txHash, block, gas (duplicate: true for a repeated requestId, with the first receipt)'),
    201: answered(
      "spawned (a spawnReplicant request): the Replicant's Golem id, key, sub-delegation hash and deadline (duplicate: true for a repeated requestId)",
    ),
    202: answered('pending: the same requestId is being sent by another request'),
    422: answered(
      "refused: refusal.caveat, refusal.error, refusal.args and refusal.reason (words naming the caveat and the numbers; caveat 'policy' and the rule as the error when the owner's constitution refuses it); checkedBy 'custody' or 'chain'",
    ),
    502: answered('failed: the transaction reverted or was replaced'),
    ...errors({
      401: "ACTION_AUTH_REQUIRED (no signature headers), ACTION_REQUEST_EXPIRED (timestamp over 300 s from the server's clock), ACTION_BAD_SIGNATURE (not signed by the Golem's current key over this method, path and body), ACTION_NONCE_REUSED (a replay)",
      404: 'GOLEM_NOT_FOUND',
    }),
  },
})

export function actionRoutes(deps: ActionRouteDeps) {
  const router = apiRouter()
  // The signature covers the raw body and is checked first: the handler reads the request itself.
  return router.openapi(checkedByHandler(router, actionRoute), async (c) => {
    const id = c.req.param('id')
    const golem = await deps.store.getGolem(id).catch(() => null)
    if (!golem) return fail(c, 'GOLEM_NOT_FOUND', `id: no Golem ${id}`)
    const timestamp = c.req.header(ACTION_HEADERS.timestamp)
    const nonce = c.req.header(ACTION_HEADERS.nonce)
    const signature = c.req.header(ACTION_HEADERS.signature)
    if (!timestamp || !nonce || !signature)
      return fail(
        c,
        'ACTION_AUTH_REQUIRED',
        `headers: ${Object.values(ACTION_HEADERS).join(', ')} are required: every action request is signed by the Golem's key`,
      )
    const nowSeconds = Math.floor((deps.now ?? Date.now)() / 1000)
    if (!/^\d{1,12}$/.test(timestamp) || Math.abs(Number(timestamp) - nowSeconds) > ACTION_REQUEST_MAX_SKEW_SECONDS)
      return fail(
        c,
        'ACTION_REQUEST_EXPIRED',
        `${ACTION_HEADERS.timestamp}: must be unix seconds within ${ACTION_REQUEST_MAX_SKEW_SECONDS} s of the server's clock`,
      )
    if (!isHex(nonce) || nonce.length !== 66)
      return fail(c, 'ACTION_AUTH_REQUIRED', `${ACTION_HEADERS.nonce}: must be 0x and 32 bytes of hex`)
    const body = await c.req.text()
    const signer = await recoverActionRequestSigner(
      deps.chainId,
      { method: c.req.method, path: c.req.path, body, timestamp: BigInt(timestamp), nonce: nonce as Hex },
      signature as Hex,
    )
    if (!signer || !isAddressEqual(signer, golem.sessionKeyAddress))
      return fail(
        c,
        'ACTION_BAD_SIGNATURE',
        `${ACTION_HEADERS.signature}: not signed by this Golem's current key over this method, path and body`,
      )
    // The nonce is spent only once the signature is the Golem's, so nobody else can burn its nonces.
    try {
      const issuedAt = nowSeconds * 1000
      await deps.store.issueNonce({
        nonce: `golemAction:${id}:${nonce.toLowerCase()}`,
        issuedAt,
        expiresAt: issuedAt + 2 * ACTION_REQUEST_MAX_SKEW_SECONDS * 1000,
      })
    } catch (error) {
      if (error instanceof StoreConflictError)
        return fail(c, 'ACTION_NONCE_REUSED', `${ACTION_HEADERS.nonce}: was already used; sign each request with a new nonce`)
      throw error
    }
    let parsed: z.infer<typeof actionRequestBody>
    try {
      parsed = actionRequestBody.parse(JSON.parse(body))
    } catch (error) {
      const issue = error instanceof z.ZodError ? error.issues[0] : undefined
      const where = issue ? `body.${issue.path.join('.')}` : 'body'
      return fail(c, 'VALIDATION_FAILED', `${where}: ${issue?.message ?? 'must be JSON'}`, { kinds: ACTION_KINDS })
    }
    try {
      const outcome = await deps.execute({ golemId: id, requestId: parsed.requestId, actions: parsed.actions.map(toRequest) })
      return c.json(outcomeBody(outcome), STATUS[outcome.status])
    } catch (error) {
      if (error instanceof ActionRequestError) return fail(c, 'VALIDATION_FAILED', error.message, { field: error.field })
      throw error
    }
  })
}
