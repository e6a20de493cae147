// The x402 extensions the paid routes speak, built with @x402/extensions: every 402 declares
// payment-identifier (optional) and its bazaar listing (the route's input and output schemas, for
// discovery), and, with a receipt signer, carries a signed offer for each requirement;
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
import { BAZAAR, bazaarResourceServerExtension, declareDiscoveryExtension } from '@x402/extensions/bazaar'
import { declarePaymentIdentifierExtension, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier'
import { z } from '@hono/zod-openapi'
import type { Address, LocalAccount } from 'viem'
import type { PaymentKind } from '../../core/x402/index.ts'
import { X402_VERSION } from '../../core/x402/index.ts'
import { extendRequest, feedRequest } from './schemas.ts'

export type PaymentExtensionIssuer = {
  /** The `extensions` of a 402's PAYMENT-REQUIRED for this route and the requirements it offers. */
  required(kind: PaymentKind, url: string, accepts: PaymentRequirements[]): Promise<Record<string, unknown>>
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

/** The request body's JSON schema, from the route's own validator (one source for both). */
function bodySchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema) as Record<string, unknown>
  return rest
}

/** What a credited payment answers (the 200 body); the 402 and error bodies are x402's and the API's. */
const PAID_OUTPUT_SCHEMA = {
  properties: {
    golemId: { type: 'string' },
    credit: {
      type: 'object',
      properties: { kind: { enum: ['extend', 'feed'] }, seconds: { type: 'string' }, amount: { type: 'string' } },
      required: ['kind', 'amount'],
    },
    payer: { type: 'string' },
    txHash: { type: 'string' },
    network: { type: 'string' },
    reconciled: { type: 'boolean' },
    profile: { type: 'object' },
  },
  required: ['golemId', 'credit', 'payer', 'txHash', 'network', 'reconciled'],
}

const paidExample = (credit: Record<string, string>, profile: Record<string, unknown>) => ({
  golemId: 'atlas',
  credit,
  payer: '0x857b06519E91e3A54538791bDbb0E22373e36b66',
  txHash: `0x${'ab'.repeat(32)}`,
  network: 'eip155:8453',
  reconciled: false,
  profile,
})

/**
 * The bazaar listing of each paid route: a JSON POST, its body's schema and an example, and what a
 * credited payment answers. The method is filled in by the package's own server hook, as x402's
 * resource server does for a route.
 */
const BAZAAR_LISTINGS: Record<PaymentKind, unknown> = {
  extend: declareDiscoveryExtension({
    bodyType: 'json',
    input: { golemId: 'atlas', hours: 1 },
    inputSchema: bodySchema(extendRequest),
    output: {
      example: paidExample(
        { kind: 'extend', seconds: '3600', amount: '500000' },
        { applied: true, runwayEndsAt: '1767225600', seconds: '3600', reprieveRequested: false },
      ),
      schema: PAID_OUTPUT_SCHEMA,
    },
  })[BAZAAR.key],
  feed: declareDiscoveryExtension({
    bodyType: 'json',
    input: { golemId: 'atlas' },
    inputSchema: bodySchema(feedRequest),
    output: {
      example: paidExample(
        { kind: 'feed', amount: '12000000' },
        { applied: true, runwayEndsAt: '1767312000', seconds: '86400', reprieveRequested: true },
      ),
      schema: PAID_OUTPUT_SCHEMA,
    },
  })[BAZAAR.key],
}

function bazaarListing(kind: PaymentKind, url: string): unknown {
  const listing = BAZAAR_LISTINGS[kind]
  const enrich = bazaarResourceServerExtension.enrichDeclaration
  if (enrich === undefined) return listing
  // The hook reads the HTTP method (and a route pattern, which these static paths have none of).
  return enrich(listing, { method: 'POST', adapter: { getPath: () => new URL(url).pathname } })
}

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
    async required(kind, url, accepts) {
      const extensions: Record<string, unknown> = {
        [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false),
        [BAZAAR.key]: bazaarListing(kind, url),
      }
      if (offerReceipt?.enrichPaymentRequiredResponse) {
        const resourceInfo = { url }
        // The hook reads the resource's URL and the requirements, the way x402's resource server calls it.
        const context: PaymentRequiredContext = {
          requirements: accepts,
          resourceInfo,
          paymentRequiredResponse: { x402Version: X402_VERSION, resource: resourceInfo, accepts },
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
