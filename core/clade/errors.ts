import { BardoError } from '../errors.ts'

/** Why a Clade caller was refused. Every one of them is an HTTP 401 at the edge. */
export type CladeAuthCode =
  | 'CLADE_AUTH_REQUIRED'
  | 'CLADE_CHALLENGE_NOT_ISSUED'
  | 'CLADE_BAD_SIGNATURE'
  | 'CLADE_CHALLENGE_EXPIRED'
  | 'CLADE_NONCE_REUSED'
  | 'CLADE_UNKNOWN_AGENT'
  | 'CLADE_OPERATOR_MISMATCH'
  | 'CLADE_TOKEN_INVALID'
  | 'CLADE_TOKEN_EXPIRED'

/**
 * A refused Clade authentication. The message names the field and the rule; details carry addresses
 * and times only (a signature, token or secret never goes into an error).
 */
export class CladeAuthError extends BardoError {
  declare readonly code: CladeAuthCode
  constructor(code: CladeAuthCode, message: string, details?: Record<string, unknown>) {
    super(code, message, details === undefined ? undefined : { details })
  }
}
