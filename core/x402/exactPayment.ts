// A buyer's x402 v2 `exact` payment on an EVM chain, as a stock x402 client builds it: the seller's
// PAYMENT-REQUIRED answer parsed, one of its requirements paid with an EIP-3009
// TransferWithAuthorization, and the PAYMENT-SIGNATURE header that carries it. Pure: the caller signs the
// authorization (a Golem through its GolemSigner, whose payment policy bounds what it signs) and sends
// the header. A Golem's tick pays with this rather than with `@x402/evm`'s client, which builds viem's
// whole public client and `@x402/core`'s schemas at import (about 200 KB of the tick's bundle); the
// header is byte-for-byte what that client sends for the same authorization (exactPayment.test.ts).
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types'
import { safeBase64Decode, safeBase64Encode } from '@x402/core/utils'
import { getAddress, type Address, type Hex } from 'viem'
import { BardoError } from '../errors.ts'
import type { PaymentAuthorization } from '../custody/paymentPolicy.ts'
import * as z from '../zodMini.ts'
import { CAIP2_NETWORK, DECIMAL_UINT, HEX_ADDRESS } from './patterns.ts'

/** A seller's answer this buyer cannot pay: the field and the rule are in the message. */
export class PaymentRequiredError extends BardoError {
  constructor(field: string, rule: string) {
    super('INVALID_PAYMENT_REQUIRED', `${field}: ${rule}`)
  }
}

const requirements = z.looseObject({
  scheme: z.string(),
  network: z.string().check(z.regex(CAIP2_NETWORK, 'must be a CAIP-2 chain id such as eip155:8453')),
  asset: z.string().check(z.regex(HEX_ADDRESS, 'must be a 20-byte hex address')),
  amount: z.string().check(z.regex(DECIMAL_UINT, 'must be a decimal integer string')),
  payTo: z.string().check(z.regex(HEX_ADDRESS, 'must be a 20-byte hex address')),
  maxTimeoutSeconds: z.number().check(z.int(), z.positive()),
  extra: z.record(z.string(), z.unknown()),
})

const paymentRequired = z.looseObject({
  x402Version: z.literal(2),
  error: z.optional(z.string()),
  resource: z.looseObject({ url: z.string() }),
  accepts: z.array(requirements),
  extensions: z.optional(z.record(z.string(), z.unknown())),
})

/** Parses a PAYMENT-REQUIRED header (base64 of the JSON PaymentRequired); x402 v2 only. */
export function parsePaymentRequiredHeader(header: string | null): PaymentRequired {
  if (!header) throw new PaymentRequiredError('PAYMENT-REQUIRED', 'the 402 answer carries no PAYMENT-REQUIRED header')
  let json: unknown
  try {
    json = JSON.parse(safeBase64Decode(header))
  } catch {
    throw new PaymentRequiredError('PAYMENT-REQUIRED', 'must be base64 of a JSON object')
  }
  const parsed = paymentRequired.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    throw new PaymentRequiredError(`PAYMENT-REQUIRED.${issue.path.join('.')}`, issue.message)
  }
  // The seller's own object, not zod's copy: the requirement paid is sent back exactly as it was offered.
  return json as PaymentRequired
}

/** The CAIP-2 network of an EVM chain, as x402 names it. */
export const evmNetwork = (chainId: number) => `eip155:${chainId}` as const

/**
 * The authorization an `exact` requirement asks for: the whole amount to its payTo, valid from the start
 * until `now + maxTimeoutSeconds`, under a fresh 32-byte nonce.
 */
export function exactAuthorization(req: PaymentRequirements, now: bigint, nonce: Hex): PaymentAuthorization {
  if (req.scheme !== 'exact') throw new PaymentRequiredError('accepts.scheme', `is ${req.scheme}, must be exact`)
  return { to: getAddress(req.payTo), value: BigInt(req.amount), validAfter: 0n, validBefore: now + BigInt(req.maxTimeoutSeconds), nonce }
}

/** The PaymentPayload a stock client sends for `accepted`, signed by `from`. */
export function exactPaymentPayload(
  required: PaymentRequired,
  accepted: PaymentRequirements,
  from: Address,
  authorization: PaymentAuthorization,
  signature: Hex,
): PaymentPayload {
  return {
    x402Version: 2,
    payload: {
      authorization: {
        from,
        to: authorization.to,
        value: authorization.value.toString(),
        validAfter: authorization.validAfter.toString(),
        validBefore: authorization.validBefore.toString(),
        nonce: authorization.nonce,
      },
      signature,
    },
    ...(required.extensions === undefined ? {} : { extensions: required.extensions }),
    resource: required.resource,
    accepted,
  }
}

/** The PAYMENT-SIGNATURE header: base64 of the payload's JSON. */
export const encodePaymentSignature = (payload: PaymentPayload): string => safeBase64Encode(JSON.stringify(payload))

/** What a recorded PAYMENT-SIGNATURE header pays: its requirement's amount. */
export function paymentSignatureAmount(header: string): bigint {
  const payload = JSON.parse(safeBase64Decode(header)) as { accepted?: { amount?: string } }
  const amount = payload.accepted?.amount
  if (amount === undefined || !/^\d+$/.test(amount))
    throw new PaymentRequiredError('PAYMENT-SIGNATURE.accepted.amount', 'must be a decimal integer string')
  return BigInt(amount)
}
