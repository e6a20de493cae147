// Signed offers and receipts (x402's offer-receipt extension) through the API on anvil: every 402 carries
// an EIP-712 offer for its requirement, and a credited payment's PAYMENT-RESPONSE an EIP-712 receipt,
// both signed by the API's receipt-signing key, which is neither the settlement nor the operator key.
// A verifier that has only what GET /.well-known/x402-receipt-signer publishes checks them (the same
// steps as docs/x402.md's snippet); a receipt changed in any field no longer verifies.
import { decodePaymentRequiredHeader } from '@x402/core/http'
import { registerExactEvmScheme } from '@x402/evm/exact/client'
import {
  type EIP712SignedReceipt,
  extractOffersFromPaymentRequired,
  extractReceiptFromResponse,
  isEIP712SignedOffer,
  OFFER_RECEIPT,
  verifyOfferSignatureEIP712,
  verifyReceiptSignatureEIP712,
} from '@x402/extensions/offer-receipt'
import { wrapFetchWithPayment, x402Client } from '@x402/fetch'
import { isAddressEqual, type Address } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localReceiptSigner } from '../../functions/api/local.ts'
import { postJson, startApiStack, type ApiStack } from './harness.ts'

let stack: ApiStack

beforeAll(async () => {
  stack = await startApiStack()
  await stack.provision('atlas')
}, 120_000)
afterAll(async () => stack?.stop())

type Published = { format: 'eip712'; address: Address; kid: string }

/** What a verifier does with the published address only: recover the receipt's signer and compare. */
async function verifiedReceipt(res: Response, published: Published) {
  const receipt = extractReceiptFromResponse(res)
  if (receipt === undefined || receipt.format !== 'eip712') throw new Error('no EIP-712 receipt in PAYMENT-RESPONSE')
  const { signer, payload } = await verifyReceiptSignatureEIP712(receipt)
  if (!isAddressEqual(signer, published.address)) throw new Error(`receipt signed by ${signer}, not by ${published.address}`)
  return payload
}

describe('offer-receipt', () => {
  it('publishes the receipt signer: its own key, neither the settlement nor the operator', async () => {
    const res = await stack.app().request('/.well-known/x402-receipt-signer')
    expect(res.status).toBe(200)
    const published = (await res.json()) as Published
    expect(published).toMatchObject({
      format: 'eip712',
      address: localReceiptSigner(stack.devnet.deployment).address,
      kid: `did:pkh:eip155:1:${published.address}`,
      domains: { offer: { name: 'x402 offer' }, receipt: { name: 'x402 receipt' } },
    })
    expect([stack.settlement.address, stack.operator]).not.toContain(published.address)
    // Without a signer nothing is signed and nothing is published.
    const unsigned = stack.app({ receiptSigner: null })
    const none = await unsigned.request('/.well-known/x402-receipt-signer')
    expect(none.status).toBe(501)
    expect(await none.json()).toMatchObject({
      code: 'NOT_IMPLEMENTED',
      message: 'receipt signer: x402 offers and receipts are not signed on this deployment',
    })
    const required = decodePaymentRequiredHeader(
      (await postJson(unsigned, '/api/v1/extend', { golemId: 'atlas', hours: 1 })).headers.get('payment-required')!,
    )
    expect(Object.keys(required.extensions ?? {})).not.toContain(OFFER_RECEIPT)
  })

  it('every 402 carries an offer for each of its requirements (EIP-3009 and ERC-7710), signed by the published key', async () => {
    const app = stack.app()
    const published = (await (await app.request('/.well-known/x402-receipt-signer')).json()) as Published
    const res = await postJson(app, '/api/v1/extend', { golemId: 'atlas', hours: 2 })
    expect(res.status).toBe(402)
    const required = decodePaymentRequiredHeader(res.headers.get('payment-required')!)
    const offers = extractOffersFromPaymentRequired(required)
    expect(required.accepts).toHaveLength(2)
    expect(offers).toHaveLength(required.accepts.length)
    for (const [i, offer] of offers.entries()) {
      if (!isEIP712SignedOffer(offer)) throw new Error('not an EIP-712 offer')
      const { signer, payload } = await verifyOfferSignatureEIP712(offer)
      expect(signer).toBe(published.address)
      const accepted = required.accepts[i]!
      expect(payload).toMatchObject({
        resourceUrl: 'http://localhost/api/v1/extend',
        scheme: accepted.scheme,
        network: accepted.network,
        asset: accepted.asset,
        payTo: accepted.payTo,
        amount: '1000000',
      })
      expect(payload.validUntil).toBeGreaterThan(0)
      // The offer binds the amount: another amount does not recover to the signer.
      const forged = await verifyOfferSignatureEIP712({ ...offer, payload: { ...payload, amount: '1' } })
      expect(forged.signer).not.toBe(published.address)
    }
  })

  it('a credited payment carries a receipt a verifier with only the published address accepts; a changed one it refuses', async () => {
    const app = stack.app()
    const published = (await (await app.request('/.well-known/x402-receipt-signer')).json()) as Published
    const payer = await stack.newPayer(10_000_000n)
    const client = new x402Client()
    registerExactEvmScheme(client, { signer: payer })
    client.setSpendControls({
      allowedAssets: [{ network: 'eip155:31337', asset: stack.devnet.deployment.assets.usdc, maxAmountPerPayment: '20000000' }],
    })
    const pay = wrapFetchWithPayment((input, init) => Promise.resolve(app.request(new Request(input, init))), client)
    const res = await pay('http://localhost/api/v1/extend', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ golemId: 'atlas', hours: 1 }),
    })
    expect(res.status).toBe(200)
    const body = (await res.clone().json()) as { txHash: string; payer: string }

    const receipt = await verifiedReceipt(res, published)
    expect(receipt).toMatchObject({
      version: 1,
      network: 'eip155:31337',
      resourceUrl: 'http://localhost/api/v1/extend',
      payer: payer.address,
      transaction: body.txHash,
    })

    const signed = extractReceiptFromResponse(res) as EIP712SignedReceipt
    for (const change of [
      { payer: stack.operator },
      { transaction: `0x${'00'.repeat(32)}` },
      { resourceUrl: 'http://localhost/api/v1/feed' },
    ]) {
      const { signer } = await verifyReceiptSignatureEIP712({ ...signed, payload: { ...signed.payload, ...change } })
      expect(signer).not.toBe(published.address)
    }
    expect(Object.keys(JSON.parse(Buffer.from(res.headers.get('payment-response')!, 'base64').toString()).extensions)).toEqual([
      OFFER_RECEIPT,
    ])
  })
})
