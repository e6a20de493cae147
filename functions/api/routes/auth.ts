// Sign-in for the CLI by device code (OAuth 2.0 Device Authorization Grant): the CLI asks for a code,
// the owner confirms the short user code with a wallet signature, and the CLI polls until it gets a
// 30-day signed access token and a rotating, single-use refresh token. The access token is a bearer
// token of the authenticated tier (its subject is `owner:<address>`).
import { createRoute, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { cors } from 'hono/cors'
import { getAddress, type Address, type Hex } from 'viem'
import {
  ACCESS_TOKEN_TTL_SECONDS,
  DEVICE_CODE_TTL_SECONDS,
  deviceConfirmMessage,
  devicePollOutcome,
  formatUserCode,
  isAccessTokenShaped,
  normalizeUserCode,
  POLL_INTERVAL_SECONDS,
  REFRESH_TOKEN_TTL_SECONDS,
  USER_CODE_ALPHABET,
  type DevicePollError,
  type DevicePollState,
} from '../../../core/auth/deviceCode.ts'
import type { DeviceAuthStore } from '../../../core/auth/deviceStore.ts'
import { deviceAuthTokens } from '../../../adapters/auth/deviceTokens.ts'
import { RETRY, retry } from '../../../core/retry.ts'
import { contended } from '../../../core/store/errors.ts'
import type { ApiDeps, BearerVerifier } from '../deps.ts'
import { ApiError, apiErrorStatus, type ApiErrorCode } from '../errors.ts'
import { apiRouter, errors, jsonBody, ok, security } from '../openapi.ts'
import { addressSchema } from '../schemas.ts'

export const DEVICE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code'

export const deviceAuthorizationResponse = z.object({
  device_code: z.string().meta({ description: 'secret: the CLI keeps it and polls /api/v1/auth/token with it' }),
  user_code: z.string().meta({ description: 'XXXX-XXXX, shown to the owner to confirm' }),
  verification_uri: z.string(),
  verification_uri_complete: z.string(),
  expires_in: z.number().int(),
  interval: z.number().int().meta({ description: 'seconds between polls; faster polls get slow_down' }),
})

export const deviceConfirmRequest = z.strictObject({
  userCode: z
    .string()
    .max(32, 'must be at most 32 characters')
    .transform((v, ctx) => {
      try {
        return normalizeUserCode(v)
      } catch {
        ctx.addIssue({ code: 'custom', message: `must be 8 letters of ${USER_CODE_ALPHABET}, shown as XXXX-XXXX` })
        return z.NEVER
      }
    }),
  owner: addressSchema.meta({ description: 'the owner account signing in (EOA or smart account)' }),
  decision: z.enum(['approve', 'deny']).default('approve'),
  signature: z
    .string()
    .regex(/^0x[0-9a-fA-F]+$/, 'must be 0x-prefixed hex')
    .max(20_000, 'must be at most 20000 characters'),
})

/** What the confirmation page asks for: the text the owner signs, for one code, owner and decision. */
export const deviceMessageQuery = deviceConfirmRequest.pick({ userCode: true, owner: true, decision: true })

export const deviceConfirmResponse = z.object({ owner: z.string(), userCode: z.string(), decision: z.enum(['approve', 'deny']) })

export const tokenRequest = z.discriminatedUnion(
  'grant_type',
  [
    z.strictObject({ grant_type: z.literal(DEVICE_GRANT_TYPE), device_code: z.string().max(400, 'must be at most 400 characters') }),
    z.strictObject({ grant_type: z.literal('refresh_token'), refresh_token: z.string().max(400, 'must be at most 400 characters') }),
  ],
  { error: `must be '${DEVICE_GRANT_TYPE}' or 'refresh_token'` },
)

export const tokenResponse = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  refresh_token: z.string().meta({ description: 'single use: each refresh returns the next one' }),
  refresh_token_expires_in: z.number().int(),
  owner: z.string(),
})

export const sessionResponse = z.object({ owner: z.string(), expiresAt: z.number().int() })

const POLL_CODES = {
  authorization_pending: 'AUTHORIZATION_PENDING',
  slow_down: 'SLOW_DOWN',
  expired_token: 'EXPIRED_TOKEN',
  access_denied: 'ACCESS_DENIED',
  invalid_grant: 'INVALID_GRANT',
} as const satisfies Record<DevicePollError, ApiErrorCode>

const POLL_MESSAGES: Record<DevicePollError, string> = {
  authorization_pending: 'device_code: the owner has not confirmed the user code yet; poll again after the interval',
  slow_down: `device_code: polled faster than every ${POLL_INTERVAL_SECONDS} s; add ${POLL_INTERVAL_SECONDS} s to the interval`,
  expired_token: 'device_code: expired; start the sign-in again',
  access_denied: 'device_code: the owner refused this sign-in',
  invalid_grant: 'device_code: was not issued by this API or was already used',
}

/** The token endpoint answers in the OAuth error shape (`error`, `error_description`) as well as the API's. */
class OAuthError extends ApiError {
  declare readonly code: (typeof POLL_CODES)[DevicePollError]
  constructor(
    readonly oauth: DevicePollError,
    message: string,
  ) {
    super(POLL_CODES[oauth], message, { error: oauth })
  }
}

function oauthResponse(c: Context, err: OAuthError) {
  c.header('Cache-Control', 'no-store')
  return c.json(
    { error: err.oauth, error_description: err.message, code: err.code, message: err.message, details: err.details ?? {} },
    apiErrorStatus[err.code],
  )
}

/** The account of a device-flow access token's subject (`owner:<address>`); undefined for any other subject. */
export const ownerOfSubject = (subject: string): `0x${string}` | undefined => {
  const m = /^owner:(0x[0-9a-fA-F]{40})$/.exec(subject)
  return m ? (m[1] as `0x${string}`) : undefined
}

/** The API's own access tokens first, then whatever other verifier the deployment wires (Portal users). */
export function accessTokenBearer(deps: ApiDeps): BearerVerifier {
  const tokens = deviceAuthTokens(deps.config.clade.hmacSecret)
  return {
    async verifyBearer(token) {
      if (!isAccessTokenShaped(token)) return deps.bearer?.verifyBearer(token)
      const check = await tokens.checkToken('at', token, deps.clock.now())
      return check.ok ? { subject: `owner:${check.owner}` } : undefined
    },
  }
}

const base = '/api/v1/auth'

const deviceRoute = createRoute({
  method: 'post',
  path: `${base}/device`,
  operationId: 'startDeviceSignIn',
  summary: 'Starts a CLI sign-in: a secret device code for the CLI and a short user code for the owner to confirm',
  tags: ['auth'],
  security: security('tier'),
  responses: {
    200: ok('the codes, where to confirm, and how often to poll', deviceAuthorizationResponse),
    ...errors({ 501: 'NOT_IMPLEMENTED (no store)' }),
  },
})

const confirmRoute = createRoute({
  method: 'post',
  path: `${base}/device/confirm`,
  operationId: 'confirmDeviceSignIn',
  summary: "The owner approves (or refuses) a CLI's user code with a signature of the confirmation text",
  tags: ['auth'],
  security: security('tier'),
  request: { body: jsonBody(deviceConfirmRequest) },
  responses: {
    200: ok('the decision was recorded; the CLI gets it at its next poll', deviceConfirmResponse),
    ...errors({
      401: "DEVICE_CONFIRM_BAD_SIGNATURE (not the owner's signature of the text for this code, owner, chain and decision)",
      404: 'USER_CODE_UNKNOWN',
      409: 'USER_CODE_USED (already confirmed or refused)',
      410: 'USER_CODE_EXPIRED',
      501: 'NOT_IMPLEMENTED (no chain to verify signatures on, or no store)',
    }),
  },
})

const messageRoute = createRoute({
  method: 'get',
  path: `${base}/device/message`,
  operationId: 'getDeviceConfirmText',
  summary:
    'The confirmation text the owner signs for a user code, an owner and a decision (what the confirmation page has the wallet sign)',
  tags: ['auth'],
  security: security('tier'),
  request: { query: deviceMessageQuery },
  responses: {
    200: ok('the text, exactly as the confirm route checks it', z.object({ message: z.string() })),
    ...errors({ 400: 'VALIDATION_FAILED naming userCode, owner or decision' }),
  },
})

const tokenRoute = createRoute({
  method: 'post',
  path: `${base}/token`,
  operationId: 'issueCliToken',
  summary: 'The CLI polls with its device code, or trades its refresh token, for a signed access token',
  tags: ['auth'],
  security: security('tier'),
  request: { body: jsonBody(tokenRequest) },
  responses: {
    200: ok('a 30-day access token and the next refresh token', tokenResponse),
    ...errors({
      400: 'AUTHORIZATION_PENDING | SLOW_DOWN | EXPIRED_TOKEN | ACCESS_DENIED | INVALID_GRANT (the body also carries the RFC 8628 `error` name)',
      501: 'NOT_IMPLEMENTED (no store)',
    }),
  },
})

const sessionRoute = createRoute({
  method: 'get',
  path: `${base}/session`,
  operationId: 'getCliSession',
  summary: 'Who the presented access token signs in (the CLI checks its sign-in with this)',
  tags: ['auth'],
  security: security('tier'),
  responses: {
    200: ok('the owner and when the token expires', sessionResponse),
    ...errors({ 401: 'AUTH_REQUIRED (no access token from /api/v1/auth/token)' }),
  },
})

export function authRoutes(deps: ApiDeps) {
  const tokens = deviceAuthTokens(deps.config.clade.hmacSecret)
  const nowSeconds = () => Math.floor(deps.clock.now() / 1000)
  const store = (): DeviceAuthStore => {
    if (!deps.stores.deviceAuth) throw new ApiError('NOT_IMPLEMENTED', 'auth: this API has no store for device-code sign-in')
    return deps.stores.deviceAuth
  }
  const router = apiRouter()
  // The owner confirms from the Portal's page (another origin), so its preflight is answered here.
  router.use(
    `${base}/device/confirm`,
    cors({
      origin: (o) => (deps.config.allowedOrigins.includes(o) ? o : null),
      allowHeaders: ['Content-Type'],
      allowMethods: ['POST'],
      maxAge: 600,
    }),
  )

  async function poll(deviceCode: string): Promise<Address> {
    const s = store()
    const outcome = devicePollOutcome(await pollState(s, deviceCode))
    if ('error' in outcome) throw new OAuthError(outcome.error, POLL_MESSAGES[outcome.error])
    return outcome.owner
  }

  async function pollState(s: DeviceAuthStore, deviceCode: string): Promise<DevicePollState> {
    const code = await tokens.readDeviceCode(deviceCode)
    if (!code) return { kind: 'forged' }
    const now = nowSeconds()
    if (now >= code.expiresAt) return { kind: 'expired' }
    // One poll per interval window of this device code; the count lives as long as the code.
    const windowStart = now - (now % POLL_INTERVAL_SECONDS)
    const polls = await deps.stores.rateLimits.incrementRateLimitCounter(
      `device-poll:${code.id.slice(2, 34)}`,
      windowStart,
      windowStart + POLL_INTERVAL_SECONDS,
      deps.clock.now(),
    )
    if (polls > 1) return { kind: 'too-fast' }
    const decision = await s.takeDecision({ device: code.id, now })
    if (decision.taken) return { kind: 'decided', ...decision.value }
    if (decision.reason === 'used') return { kind: 'redeemed' }
    if (decision.reason === 'expired') return { kind: 'expired' }
    return { kind: 'pending' }
  }

  async function refresh(refreshToken: string): Promise<Address> {
    const s = store()
    const check = await tokens.checkToken('rt', refreshToken, deps.clock.now())
    if (!check.ok) {
      throw new OAuthError(
        'invalid_grant',
        check.reason === 'expired' ? 'refresh_token: expired; sign in again' : 'refresh_token: was not issued by this API',
      )
    }
    if (!(await s.spendRefreshToken({ id: check.id, expiresAt: check.expiresAt, now: nowSeconds() }))) {
      throw new OAuthError('invalid_grant', 'refresh_token: was already used (refresh tokens are single use); sign in again')
    }
    return check.owner
  }

  return router
    .openapi(deviceRoute, async (c) => {
      const s = store()
      const now = nowSeconds()
      // A clash with a live user code is rare (20^8 codes); a few more draws make it vanishingly so.
      return retry({ attempts: 5, exhausted: contended('openUserCode') }, async () => {
        const grant = await tokens.issueDeviceCode(deps.clock.now())
        if (!(await s.openUserCode({ userCode: grant.userCode, device: grant.id, expiresAt: grant.expiresAt, now }))) return RETRY
        const uri = deps.config.deviceVerificationUri ?? new URL('/device', c.req.url).toString()
        const shown = formatUserCode(grant.userCode)
        c.header('Cache-Control', 'no-store')
        return c.json(
          {
            device_code: grant.deviceCode,
            user_code: shown,
            verification_uri: uri,
            verification_uri_complete: `${uri}?user_code=${shown}`,
            expires_in: DEVICE_CODE_TTL_SECONDS,
            interval: POLL_INTERVAL_SECONDS,
          },
          200,
        )
      })
    })
    .openapi(messageRoute, (c) => {
      const q = c.req.valid('query')
      const message = deviceConfirmMessage({
        userCode: q.userCode,
        owner: getAddress(q.owner),
        chainId: deps.config.chainId,
        decision: q.decision,
      })
      return c.json({ message }, 200)
    })
    .openapi(confirmRoute, async (c) => {
      const body = c.req.valid('json')
      const s = store()
      if (!deps.ownerSignatures) throw new ApiError('NOT_IMPLEMENTED', 'auth: this API has no chain to verify owner signatures on')
      const owner = getAddress(body.owner)
      const message = deviceConfirmMessage({ userCode: body.userCode, owner, chainId: deps.config.chainId, decision: body.decision })
      // A contract owner's isValidSignature is a chain read; an error there is a refusal, not a 500.
      const valid = await deps.ownerSignatures
        .verifyMessage({ address: owner, message, signature: body.signature as Hex })
        .catch(() => false)
      if (!valid) {
        throw new ApiError(
          'DEVICE_CONFIRM_BAD_SIGNATURE',
          `signature: is not ${owner}'s signature of the confirmation text for code ${formatUserCode(body.userCode)} on chain ${deps.config.chainId}`,
        )
      }
      // Taken only after the signature checks out, so a bad signature cannot burn the owner's code.
      const now = nowSeconds()
      const taken = await s.takeUserCode({ userCode: body.userCode, now })
      if (!taken.taken) {
        const shown = formatUserCode(body.userCode)
        if (taken.reason === 'used') throw new ApiError('USER_CODE_USED', `userCode: ${shown} was already confirmed or refused`)
        if (taken.reason === 'expired') throw new ApiError('USER_CODE_EXPIRED', `userCode: ${shown} expired; start the sign-in again`)
        throw new ApiError('USER_CODE_UNKNOWN', `userCode: ${shown} was not issued by this API`)
      }
      await s.recordDecision({ device: taken.value.device, owner, decision: body.decision, expiresAt: now + DEVICE_CODE_TTL_SECONDS, now })
      c.header('Cache-Control', 'no-store')
      return c.json({ owner, userCode: formatUserCode(body.userCode), decision: body.decision }, 200)
    })
    .openapi(tokenRoute, async (c) => {
      const body = c.req.valid('json')
      try {
        const owner = body.grant_type === 'refresh_token' ? await refresh(body.refresh_token) : await poll(body.device_code)
        const access = await tokens.issueToken('at', owner, deps.clock.now())
        const next = await tokens.issueToken('rt', owner, deps.clock.now())
        c.header('Cache-Control', 'no-store')
        return c.json(
          {
            access_token: access.token,
            token_type: 'Bearer' as const,
            expires_in: ACCESS_TOKEN_TTL_SECONDS,
            refresh_token: next.token,
            refresh_token_expires_in: REFRESH_TOKEN_TTL_SECONDS,
            owner,
          },
          200,
        )
      } catch (err) {
        if (err instanceof OAuthError) return oauthResponse(c, err)
        throw err
      }
    })
    .openapi(sessionRoute, async (c) => {
      const token = c.req.header('authorization')?.slice('Bearer '.length) ?? ''
      const check = isAccessTokenShaped(token) ? await tokens.checkToken('at', token, deps.clock.now()) : undefined
      // The tier middleware already verified the token; this reads its fields for the answer.
      if (!check?.ok) throw new ApiError('AUTH_REQUIRED', 'authorization: must be a Bearer access token from /api/v1/auth/token')
      return c.json({ owner: check.owner, expiresAt: check.expiresAt }, 200)
    })
}
