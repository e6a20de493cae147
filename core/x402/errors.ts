// Every way an x402-paid request can end, one stable code each. What a code means to an HTTP client
// (its status) is the API's business: functions/api/errors.ts holds the one table, and docs/x402.md prints it.
import { BardoError } from '../errors.ts'

/** The codes of a refused payment: nothing was credited. */
export const x402ErrorCodes = [
  // No PAYMENT-SIGNATURE header: the payer is told what to pay.
  'PAYMENT_REQUIRED',
  'PAYMENT_HEADER_TOO_LARGE',
  'PAYMENT_HEADER_NOT_BASE64',
  'PAYMENT_HEADER_NOT_JSON',
  'PAYMENT_HEADER_INVALID',
  'PAYMENT_VERSION_UNSUPPORTED',
  'GOLEM_NOT_FOUND',
  'GOLEM_DEAD',
  'GOLEM_DYING',
  'PAYMENT_SCHEME_UNSUPPORTED',
  'PAYMENT_WRONG_NETWORK',
  'PAYMENT_WRONG_ASSET',
  'PAYMENT_WRONG_PAY_TO',
  'PAYMENT_AMOUNT_MISMATCH',
  'PAYMENT_UNDERPAID',
  'PAYMENT_REPLAYED',
  'PAYMENT_IN_PROGRESS',
  // The payment was first presented for another Golem, kind or amount; it never rebinds.
  'PAYMENT_BOUND_ELSEWHERE',
  // The payment-identifier extension's id breaks its format.
  'PAYMENT_IDENTIFIER_INVALID',
  // The payment identifier was first used for another payment (another Golem, kind or amount).
  'PAYMENT_IDENTIFIER_CONFLICT',
  'PAYMENT_SIGNATURE_INVALID',
  'PAYMENT_EXPIRED',
  'PAYMENT_NOT_YET_VALID',
  'PAYMENT_INSUFFICIENT_BALANCE',
  'PAYMENT_INVALID',
  'PAYMENT_SETTLEMENT_FAILED',
  // Broadcast but not confirmed, or confirmed but not recorded: the claim is kept, a retry reconciles.
  'PAYMENT_SETTLEMENT_PENDING',
  // The facilitator or its RPC threw before anything was sent; the claim is released.
  'FACILITATOR_UNAVAILABLE',
  // The ledger (store) could not be reached to claim the payment; nothing was verified or sent.
  'PAYMENT_LEDGER_UNAVAILABLE',
] as const

export type X402ErrorCode = (typeof x402ErrorCodes)[number]

/** The code of a payment settled and recorded once: the one outcome that credits. */
export const PAYMENT_CREDITED = 'PAYMENT_CREDITED'

/** Every code a payment's outcome can carry. */
export const paymentOutcomeCodes = [PAYMENT_CREDITED, ...x402ErrorCodes] as const
export type PaymentOutcomeCode = (typeof paymentOutcomeCodes)[number]

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
  // Bardo's ERC-7710 facilitator (adapters/x402/erc7710.ts): a malformed payload, or a redemption that
  // does not move exactly the amount to the operator. A reverted redemption is told by its revert string.
  invalid_erc7710_payload: 'PAYMENT_INVALID',
  invalid_erc7710_transfer: 'PAYMENT_INVALID',
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
  // The delegation's own transfer bound (the kit's erc20TransferAmount scope) is below what is asked.
  [/ERC20TransferAmountEnforcer:allowance-exceeded/, 'PAYMENT_UNDERPAID'],
  [/TimestampEnforcer:expired-delegation/, 'PAYMENT_EXPIRED'],
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
