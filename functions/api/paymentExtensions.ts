// The x402 extensions the paid routes speak, built with @x402/extensions: every 402 declares
// payment-identifier (optional). Declarations are static; what is signed per answer comes in later.
import type { PaymentRequirements, SettleResponse } from '@x402/core/types'
import { declarePaymentIdentifierExtension, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier'
import type { PaymentKind } from '../../core/x402/index.ts'

export type PaymentExtensionIssuer = {
  /** The `extensions` of a 402's PAYMENT-REQUIRED for this route and these requirements. */
  required(kind: PaymentKind, url: string, requirements: PaymentRequirements): Promise<Record<string, unknown>>
  /** The `extensions` of a settlement's PAYMENT-RESPONSE, if any. */
  settlement(url: string, settlement: SettleResponse): Promise<Record<string, unknown> | undefined>
}

export function createPaymentExtensions(): PaymentExtensionIssuer {
  return {
    required: async () => ({ [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) }),
    settlement: async () => undefined,
  }
}
