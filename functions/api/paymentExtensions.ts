// The x402 extensions the paid routes speak, built with @x402/extensions: every 402 declares
// payment-identifier (optional) and, with a receipt signer, carries a signed offer for each requirement;
// a credited payment's PAYMENT-RESPONSE carries a signed receipt. Offers and receipts are EIP-712,
// signed with the API's receipt-signing key (never the settlement or operator key); its address is
// published at GET /.well-known/x402-receipt-signer.
import type { PaymentRequirements, SettleResponse } from '@x402/core/types'
import type { PaymentRequiredContext, SettleResultContext } from '@x402/core/server'
import {
  createEIP712OfferReceiptIssuer,
  createOfferDomain,
  createOfferReceiptExtension,
  createReceiptDomain,
  declareOfferReceiptExtension,
  OFFER_RECEIPT,
} from '@x402/extensions/offer-receipt'
import { declarePaymentIdentifierExtension, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier'
import type { Address, LocalAccount } from 'viem'
import type { PaymentKind } from '../../core/x402/index.ts'
import { X402_VERSION } from '../../core/x402/index.ts'

export type PaymentExtensionIssuer = {
  /** The `extensions` of a 402's PAYMENT-REQUIRED for this route and these requirements. */
  required(kind: PaymentKind, url: string, requirements: PaymentRequirements): Promise<Record<string, unknown>>
  /** The `extensions` of a settlement's PAYMENT-RESPONSE, if any. */
  settlement(url: string, settlement: SettleResponse): Promise<Record<string, unknown> | undefined>
}

/** What a verifier needs to check offers and receipts: published, never the key. */
export type ReceiptSignerInfo = {
  format: 'eip712'
  address: Address
  kid: string
  domains: { offer: ReturnType<typeof createOfferDomain>; receipt: ReturnType<typeof createReceiptDomain> }
}

export type PaymentExtensionsOptions = {
  /** Signs offers and receipts; without it neither is issued. */
  receiptSigner?: LocalAccount
}

/** The transaction hash goes into the receipt: it is public, and lets a verifier find the payment. */
const OFFER_RECEIPT_DECLARATION = declareOfferReceiptExtension({ includeTxHash: true })[OFFER_RECEIPT]

export function receiptSignerInfo(signer: LocalAccount): ReceiptSignerInfo {
  return {
    format: 'eip712',
    address: signer.address,
    // The package's EIP-712 domains fix chain id 1, whatever chain the payment is on.
    kid: `did:pkh:eip155:1:${signer.address}`,
    domains: { offer: createOfferDomain(), receipt: createReceiptDomain() },
  }
}

export function createPaymentExtensions(o: PaymentExtensionsOptions = {}): PaymentExtensionIssuer {
  const signer = o.receiptSigner
  const offerReceipt =
    signer === undefined
      ? undefined
      : createOfferReceiptExtension(
          createEIP712OfferReceiptIssuer(receiptSignerInfo(signer).kid, (typed) =>
            signer.signTypedData(typed as Parameters<LocalAccount['signTypedData']>[0]),
          ),
        )

  return {
    async required(_kind, url, requirements) {
      const extensions: Record<string, unknown> = { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) }
      if (offerReceipt?.enrichPaymentRequiredResponse) {
        const resourceInfo = { url }
        // The hook reads the resource's URL and the requirements, the way x402's resource server calls it.
        const context: PaymentRequiredContext = {
          requirements: [requirements],
          resourceInfo,
          paymentRequiredResponse: { x402Version: X402_VERSION, resource: resourceInfo, accepts: [requirements] },
        }
        const offers = await offerReceipt.enrichPaymentRequiredResponse(OFFER_RECEIPT_DECLARATION, context)
        if (offers !== undefined) extensions[OFFER_RECEIPT] = offers
      }
      return extensions
    },
    async settlement(url, settlement) {
      if (!offerReceipt?.enrichSettlementResponse) return undefined
      // The hook reads the settlement and the request's URL only; the payment it settled stays ours.
      const context = { result: settlement, transportContext: { request: { adapter: { getUrl: () => url } } } }
      const receipt = await offerReceipt.enrichSettlementResponse(OFFER_RECEIPT_DECLARATION, context as unknown as SettleResultContext)
      return receipt === undefined ? undefined : { [OFFER_RECEIPT]: receipt }
    },
  }
}
