// JSON errors with stable codes: { code, message, details }. One table so docs and tests agree, and
// one for the outcomes of an x402 payment, which shares the API's codes and their statuses.
import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { CladeAuthError } from '../../core/clade/errors.ts'
import { CouncilError, CouncilRefusal } from '../../core/council/errors.ts'
import { BardoError } from '../../core/errors.ts'
import type { PaymentOutcomeCode } from '../../core/x402/errors.ts'

/** The indexer could not answer (network, timeout, 5xx, or a body this client does not understand). */
export class IndexerUnavailableError extends BardoError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('INDEXER_UNAVAILABLE', message, details === undefined ? undefined : { details })
  }
}

/** The indexer refused a parameter (400 INVALID_PARAMETER), e.g. a cursor it did not issue. */
export class IndexerParameterError extends BardoError {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super('INDEXER_INVALID_PARAMETER', message, { details: { param } })
  }
}

export const apiErrorStatus = {
  VALIDATION_FAILED: 400,
  INVALID_API_KEY: 401,
  INVALID_TOKEN: 401,
  SNAP_AUTH_REQUIRED: 401,
  CLADE_AUTH_REQUIRED: 401,
  CLADE_CHALLENGE_NOT_ISSUED: 401,
  CLADE_BAD_SIGNATURE: 401,
  CLADE_CHALLENGE_EXPIRED: 401,
  CLADE_NONCE_REUSED: 401,
  CLADE_UNKNOWN_AGENT: 401,
  CLADE_OPERATOR_MISMATCH: 401,
  CLADE_TOKEN_INVALID: 401,
  CLADE_TOKEN_EXPIRED: 401,
  SNAP_PAIRING_NOT_ISSUED: 401,
  SNAP_PAIRING_EXPIRED: 401,
  SNAP_PAIRING_REUSED: 401,
  SNAP_PAIRING_BAD_SIGNATURE: 401,
  ACTION_AUTH_REQUIRED: 401,
  ACTION_REQUEST_EXPIRED: 401,
  ACTION_BAD_SIGNATURE: 401,
  ACTION_NONCE_REUSED: 401,
  AUTH_REQUIRED: 401,
  DEVICE_CONFIRM_BAD_SIGNATURE: 401,
  WEBHOOK_BAD_SIGNATURE: 401,
  AUTHORIZATION_PENDING: 400,
  SLOW_DOWN: 400,
  EXPIRED_TOKEN: 400,
  ACCESS_DENIED: 400,
  INVALID_GRANT: 400,
  COUNCIL_BAD_SIGNATURE: 401,
  ORIGIN_NOT_ALLOWED: 403,
  COUNCIL_NOT_MEMBER: 403,
  COUNCIL_NOT_OWNER: 403,
  NOT_GOLEM_OWNER: 403,
  COUNCIL_MEMBER_NOT_COUNTING: 403,
  COUNCIL_PROPOSAL_NOT_FOUND: 404,
  COUNCIL_PROPOSAL_CLOSED: 409,
  COUNCIL_PROPOSAL_EXPIRED: 410,
  COUNCIL_ACTION_REFUSED: 422,
  COUNCIL_NOT_FOUND: 404,
  COUNCIL_EXISTS: 409,
  COUNCIL_FORMATION_REFUSED: 422,
  USER_CODE_UNKNOWN: 404,
  USER_CODE_USED: 409,
  USER_CODE_EXPIRED: 410,
  NOT_FOUND: 404,
  GOLEM_NOT_FOUND: 404,
  GOLEM_DEAD: 410,
  PAYLOAD_TOO_LARGE: 413,
  RENEWAL_REFUSED: 422,
  ADJUSTMENT_REFUSED: 422,
  ROTATION_GRANT_REFUSED: 422,
  OBSERVER_GRANT_REFUSED: 422,
  OBSERVER_NOT_FOUND: 404,
  DRAFT_REFUSED: 422,
  DRAFT_NOT_FOUND: 404,
  DRAFT_EXPIRED: 410,
  GOLEM_EXISTS: 409,
  GRANT_REFUSED: 422,
  GOLEM_NOT_REVOKED: 409,
  NOTHING_TO_REVOKE: 409,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  NOT_IMPLEMENTED: 501,
  GOLEM_DYING: 503,
  INDEXER_UNAVAILABLE: 503,
} as const satisfies Record<string, ContentfulStatusCode>

export type ApiErrorCode = keyof typeof apiErrorStatus

/**
 * The HTTP status of every outcome core/x402 can return (docs/x402.md prints it). A code the API also
 * uses takes the API's status, so that each code's status is written once.
 */
export const paymentStatus = {
  PAYMENT_CREDITED: 200,
  GOLEM_NOT_FOUND: apiErrorStatus.GOLEM_NOT_FOUND,
  GOLEM_DEAD: apiErrorStatus.GOLEM_DEAD,
  GOLEM_DYING: apiErrorStatus.GOLEM_DYING,
  // A 402 carries PAYMENT-REQUIRED, so a standard x402 client can pay again correctly.
  PAYMENT_REQUIRED: 402,
  PAYMENT_HEADER_TOO_LARGE: 400,
  PAYMENT_HEADER_NOT_BASE64: 400,
  PAYMENT_HEADER_NOT_JSON: 400,
  PAYMENT_HEADER_INVALID: 400,
  PAYMENT_VERSION_UNSUPPORTED: 400,
  PAYMENT_SCHEME_UNSUPPORTED: 402,
  PAYMENT_WRONG_NETWORK: 402,
  PAYMENT_WRONG_ASSET: 402,
  PAYMENT_WRONG_PAY_TO: 402,
  PAYMENT_AMOUNT_MISMATCH: 402,
  PAYMENT_UNDERPAID: 402,
  PAYMENT_SIGNATURE_INVALID: 402,
  PAYMENT_EXPIRED: 402,
  PAYMENT_NOT_YET_VALID: 402,
  PAYMENT_INSUFFICIENT_BALANCE: 402,
  PAYMENT_INVALID: 402,
  PAYMENT_SETTLEMENT_FAILED: 402,
  // The same payment cannot succeed by paying again: it was credited, is being settled, or is bound elsewhere.
  PAYMENT_REPLAYED: 409,
  PAYMENT_IN_PROGRESS: 409,
  PAYMENT_BOUND_ELSEWHERE: 409,
  PAYMENT_IDENTIFIER_INVALID: 400,
  PAYMENT_IDENTIFIER_CONFLICT: 409,
  // Nothing was lost and a later retry may succeed; a pending settlement says when (Retry-After).
  PAYMENT_SETTLEMENT_PENDING: 503,
  FACILITATOR_UNAVAILABLE: 503,
  PAYMENT_LEDGER_UNAVAILABLE: 503,
} as const satisfies Record<PaymentOutcomeCode, ContentfulStatusCode>

export type PaymentStatus = (typeof paymentStatus)[PaymentOutcomeCode]

/** The rule a request breaks when its body is not declared JSON. */
export const NOT_JSON_BODY = 'body: must be JSON with Content-Type: application/json'

export type ApiErrorBody = { code: ApiErrorCode; message: string; details: Record<string, unknown> }

export class ApiError extends BardoError {
  declare readonly code: ApiErrorCode
  readonly status: ContentfulStatusCode
  constructor(code: ApiErrorCode, message: string, details?: Record<string, unknown>) {
    super(code, message, details === undefined ? undefined : { details })
    this.status = apiErrorStatus[code]
  }
}

export function errorResponse(c: Context, code: ApiErrorCode, message: string, details: Record<string, unknown> = {}): Response {
  const body: ApiErrorBody = { code, message, details }
  return c.json(body, apiErrorStatus[code])
}

/**
 * Maps anything thrown to the JSON error shape. Headers already set on the context (rate-limit
 * headers) stay on the error response. Unexpected errors say only "internal error": their text may
 * come from an RPC or the store and is not ours to show.
 */
export function handleApiError(onUnexpected?: (err: unknown) => void) {
  return (err: unknown, c: Context): Response => {
    if (err instanceof ApiError) return errorResponse(c, err.code, err.message, err.details)
    if (err instanceof CladeAuthError) return errorResponse(c, err.code, err.message, err.details)
    if (err instanceof CouncilRefusal) return errorResponse(c, err.code, err.message, err.details)
    // A proposal that breaks a council rule (its deadline, for one): the field and the rule.
    if (err instanceof CouncilError)
      return errorResponse(c, 'VALIDATION_FAILED', err.message, {
        issues: [{ location: 'json', path: err.field, rule: err.message.slice(err.field.length + 1), code: 'custom' }],
      })
    // The indexer refused a query parameter we passed through (a cursor it did not issue).
    if (err instanceof IndexerParameterError) {
      return errorResponse(c, 'VALIDATION_FAILED', err.message, {
        issues: [{ location: 'query', path: err.param, rule: err.message.replace(/^[\w.]+: /, ''), code: 'custom' }],
      })
    }
    // History only: current state still comes from the chain, so the caller may retry shortly.
    if (err instanceof IndexerUnavailableError) {
      onUnexpected?.(err)
      c.header('Retry-After', '5')
      return errorResponse(c, 'INDEXER_UNAVAILABLE', 'indexer: history is unavailable right now; retry shortly')
    }
    // Hono's own validator throws this for a body that claims to be JSON and is not.
    if (err instanceof HTTPException && err.status === 400)
      return errorResponse(c, 'VALIDATION_FAILED', `body: ${err.message}`, { issues: [] })
    // A route's media-type check (@hono/zod-openapi) refuses a body that says it is something else.
    if (err instanceof HTTPException && err.status === 415) return errorResponse(c, 'VALIDATION_FAILED', NOT_JSON_BODY, { issues: [] })
    onUnexpected?.(err)
    return errorResponse(c, 'INTERNAL_ERROR', 'internal error')
  }
}
