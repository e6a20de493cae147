// What every route's OpenAPI declaration shares. Routes are declared with @hono/zod-openapi's
// createRoute and served by routers made here, whose request validation answers in the API's own
// VALIDATION_FAILED; the document (GET /openapi.json) is generated from the routes the app mounts, so a
// route cannot be served without being documented.
import { OpenAPIHono, type RouteConfig, type z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { ApiEnv } from './env.ts'
import { ApiError, NOT_JSON_BODY } from './errors.ts'
import { errorSchema } from './schemas.ts'
import { validationError } from './validation.ts'

export type Security = 'none' | 'tier' | 'reader' | 'clade' | 'snap' | 'x402' | 'alchemy'

const securityOf: Record<Security, Record<string, string[]>[]> = {
  none: [],
  tier: [{}, { readKey: [] }, { bearer: [] }],
  /** The tier's credentials without its anonymous entry: a read key or an owner token. */
  reader: [{ readKey: [] }, { bearer: [] }],
  clade: [{ cladeChallenge: [] }, { cladeToken: [] }],
  snap: [{ snapToken: [] }],
  x402: [{ x402: [] }],
  alchemy: [{ alchemySignature: [] }],
}

/** Who may call a route, as the document's security requirement. */
export const security = (kind: Security) => securityOf[kind]

type HeaderDoc = { description: string; schema: { type: 'integer' | 'string' } }

const rateLimitHeaders: Record<string, HeaderDoc> = {
  'X-RateLimit-Limit': { description: 'requests allowed in the current 60 s window', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'requests left in the window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'unix seconds when the window resets', schema: { type: 'integer' } },
}

/** Every response carries the rate-limit headers; `more` names the route's own (all strings). */
function headersOf(more: Record<string, string> = {}): Record<string, HeaderDoc> {
  const headers = { ...rateLimitHeaders }
  for (const [name, description] of Object.entries(more)) headers[name] = { description, schema: { type: 'string' } }
  return headers
}

/** A success answered with a JSON body of `schema`. */
export function ok<S extends z.ZodType>(description: string, schema: S, headers?: Record<string, string>) {
  return { description, headers: headersOf(headers), content: { 'application/json': { schema } } }
}

/** A success whose body the document does not describe (the page, its assets, this document). */
export function answered(description: string, headers?: Record<string, string>) {
  return { description, headers: headersOf(headers) }
}

const errorResponse = (description: string, headers: Record<string, HeaderDoc>) => ({
  description,
  headers,
  content: { 'application/json': { schema: errorSchema } },
})

type ErrorResponse = ReturnType<typeof errorResponse>

/** The error responses every route can give, by status: what the tier, the body limit and the validators answer. */
const commonErrors = {
  400: 'VALIDATION_FAILED: a parameter, header or body field broke a rule (the message names both)',
  429: 'RATE_LIMITED: the tier limit of this window is used up; see Retry-After',
  500: 'INTERNAL_ERROR',
} as const

/**
 * The route's error responses: the common ones and its own codes by status (a status the route names
 * replaces the common description). Every error is the `Error` body.
 */
export function errors<E extends Record<number, string>>(own?: E): { [K in keyof E | keyof typeof commonErrors]: ErrorResponse } {
  const out: Record<number, ErrorResponse> = {}
  for (const [status, description] of Object.entries({ ...commonErrors, ...own })) {
    const headers = headersOf()
    if (status === '429') headers['Retry-After'] = { description: 'seconds until the window resets', schema: { type: 'integer' } }
    out[Number(status)] = errorResponse(description, headers)
  }
  return out as { [K in keyof E | keyof typeof commonErrors]: ErrorResponse }
}

/** A required JSON request body. */
export const jsonBody = <S extends z.ZodType>(schema: S) => ({ required: true, content: { 'application/json': { schema } } })

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i

/**
 * A failed validation is 400 VALIDATION_FAILED naming the field and the rule. A JSON body must say it
 * is JSON: without the header the validator would check `{}`, and the caller would get a confusing
 * "field required" instead of the real problem.
 */
export function validationHook(result: { target: string; success: boolean; error?: z.ZodError }, c: Context): void {
  if (result.target === 'json') {
    const mediaType = (c.req.header('content-type') ?? '').split(';')[0]?.trim() ?? ''
    if (!JSON_MEDIA_TYPE.test(mediaType)) throw new ApiError('VALIDATION_FAILED', NOT_JSON_BODY, { issues: [] })
  }
  if (!result.success && result.error) throw validationError(result.target as 'param' | 'query' | 'header' | 'json', result.error.issues)
}

/** A router of the API: its routes are declared with createRoute and validated by `validationHook`. */
export const apiRouter = () => new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })

/**
 * For a route whose request the handler checks itself, in an order validation cannot keep (a
 * signature over the raw body before the body is read): the router documents `route` whole and serves
 * what this returns, the same route with nothing for the validators to run before the handler.
 */
export function checkedByHandler<R extends RouteConfig>(router: OpenAPIHono<ApiEnv>, route: R): Omit<R, 'request'> & { hide: true } {
  router.openAPIRegistry.registerPath(route)
  const { request: _documented, ...served } = route
  return { ...served, hide: true }
}

export const OPENAPI_INFO = {
  title: 'Bardo Custody API',
  description: 'Bardo Custody HTTP API. Errors are { code, message, details }; see docs/api.md for the code table.',
}

const securitySchemes = {
  readKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'bardo_read_* key: 300 requests/min/key' },
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An owner access token (bardo_at_..., from the device-code sign-in: bardo login) or a Portal user token: 1000 requests/min/user',
  },
  snapToken: { type: 'http', scheme: 'bearer', description: 'bardo_snap_* token, rotated on every heartbeat' },
  cladeChallenge: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: 'CladeChallenge <EIP-712 signature> with X-Clade-Challenge: <challenge JSON>',
  },
  cladeToken: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'CladeToken <session token from X-Clade-Token>' },
  x402: { type: 'apiKey', in: 'header', name: 'PAYMENT-SIGNATURE', description: 'x402 v2 exact payment (EIP-3009)' },
  alchemySignature: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Alchemy-Signature',
    description: "hex HMAC-SHA256 of the raw body under the Alchemy Notify webhook's signing key",
  },
} as const

/** The security schemes the routes' requirements name, as components of the app's document. */
export function registerSecuritySchemes(app: OpenAPIHono<ApiEnv>): void {
  for (const [name, scheme] of Object.entries(securitySchemes)) app.openAPIRegistry.registerComponent('securitySchemes', name, scheme)
}
