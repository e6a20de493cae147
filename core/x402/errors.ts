// Every way an x402-paid request can be refused, with one stable code and one HTTP status each.
// docs/x402.md prints this table; tests assert against it, so the edge and the docs cannot drift.
import { BardoError } from '../errors.ts'

export const x402ErrorStatus = {
  /** No PAYMENT-SIGNATURE header: the standard x402 answer, with PAYMENT-REQUIRED. */
  PAYMENT_REQUIRED: 402,
  PAYMENT_HEADER_TOO_LARGE: 400,
  PAYMENT_HEADER_NOT_BASE64: 400,
  PAYMENT_HEADER_NOT_JSON: 400,
  PAYMENT_HEADER_INVALID: 400,
  PAYMENT_VERSION_UNSUPPORTED: 400,
  GOLEM_NOT_FOUND: 404,
  GOLEM_DEAD: 410,
  GOLEM_DYING: 503,
  PAYMENT_SCHEME_UNSUPPORTED: 402,
  PAYMENT_WRONG_NETWORK: 402,
  PAYMENT_WRONG_ASSET: 402,
  PAYMENT_WRONG_PAY_TO: 402,
  PAYMENT_AMOUNT_MISMATCH: 402,
  PAYMENT_UNDERPAID: 402,
  PAYMENT_REPLAYED: 409,
  PAYMENT_IN_PROGRESS: 409,
  /** The payment was first presented for another Golem, kind or amount; it never rebinds. */
  PAYMENT_BOUND_ELSEWHERE: 409,
  PAYMENT_SIGNATURE_INVALID: 402,
  PAYMENT_EXPIRED: 402,
  PAYMENT_NOT_YET_VALID: 402,
  PAYMENT_INSUFFICIENT_BALANCE: 402,
  PAYMENT_INVALID: 402,
  PAYMENT_SETTLEMENT_FAILED: 402,
  /** Broadcast but not confirmed, or confirmed but not recorded: the claim is kept, a retry reconciles. */
  PAYMENT_SETTLEMENT_PENDING: 503,
  /** The facilitator or its RPC threw before anything was sent; the claim is released. */
  FACILITATOR_UNAVAILABLE: 503,
  /** The ledger (store) could not be reached to claim the payment; nothing was verified or sent. */
  PAYMENT_LEDGER_UNAVAILABLE: 503,
} as const

export type X402ErrorCode = keyof typeof x402ErrorStatus
export type X402ErrorStatus = (typeof x402ErrorStatus)[X402ErrorCode]

/** A misconfigured x402 module (bad address, zero price, ...): thrown at construction, never per request. */
export class X402ConfigError extends BardoError {
  constructor(field: string, rule: string, details?: Record<string, unknown>) {
    super('X402_CONFIG_INVALID', `${field}: ${rule}`, details === undefined ? undefined : { details })
  }
}

/**
 * Reasons the @x402/evm exact facilitator reports (its errors.ts), mapped to our codes. Anything not
 * listed becomes PAYMENT_INVALID with the facilitator's reason in `details.reason`.
 */
const facilitatorReasonCodes: Record<string, X402ErrorCode> = {
  invalid_exact_evm_signature: 'PAYMENT_SIGNATURE_INVALID',
  invalid_exact_evm_failed_to_parse_signature: 'PAYMENT_SIGNATURE_INVALID',
  invalid_exact_evm_payload_authorization_valid_before: 'PAYMENT_EXPIRED',
  invalid_exact_evm_payload_authorization_valid_after: 'PAYMENT_NOT_YET_VALID',
  invalid_exact_evm_insufficient_balance: 'PAYMENT_INSUFFICIENT_BALANCE',
  invalid_exact_evm_nonce_already_used: 'PAYMENT_REPLAYED',
  invalid_exact_evm_recipient_mismatch: 'PAYMENT_WRONG_PAY_TO',
  invalid_exact_evm_network_mismatch: 'PAYMENT_WRONG_NETWORK',
  invalid_exact_evm_payload_authorization_value_mismatch: 'PAYMENT_AMOUNT_MISMATCH',
  invalid_exact_evm_scheme: 'PAYMENT_SCHEME_UNSUPPORTED',
}

/**
 * Without Multicall3 on the chain (a bare anvil), the facilitator cannot diagnose a failed simulation
 * and says only "simulation failed"; the revert string (USDC's own wording) still says why.
 */
const revertReasonCodes: [RegExp, X402ErrorCode][] = [
  [/transfer amount exceeds balance|insufficient balance/i, 'PAYMENT_INSUFFICIENT_BALANCE'],
  [/authorization is used or canceled|authorization.*used/i, 'PAYMENT_REPLAYED'],
  [/authorization is expired/i, 'PAYMENT_EXPIRED'],
  [/authorization is not yet valid/i, 'PAYMENT_NOT_YET_VALID'],
  [/invalid signature|ECRecover/i, 'PAYMENT_SIGNATURE_INVALID'],
]

export function codeForFacilitatorReason(reason: string | undefined, message?: string): X402ErrorCode {
  const direct = reason === undefined ? undefined : facilitatorReasonCodes[reason]
  if (direct !== undefined) return direct
  if (message !== undefined) {
    for (const [pattern, code] of revertReasonCodes) if (pattern.test(message)) return code
  }
  return 'PAYMENT_INVALID'
}

/** Facilitator and RPC messages can be long (calldata, request dumps); the client needs only the gist. */
export function shortMessage(message: string | undefined, max = 200): string | undefined {
  if (message === undefined) return undefined
  const lines = message
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
  // viem puts the revert reason on the line after "... reverted with the following reason:".
  const first = lines[0]?.endsWith(':') && lines[1] !== undefined ? `${lines[0]} ${lines[1]}` : (lines[0] ?? '')
  // An RPC URL can carry a provider API key in its path; it never goes to a client.
  const gist = first.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>')
  return gist.length <= max ? gist : `${gist.slice(0, max - 3)}...`
}
