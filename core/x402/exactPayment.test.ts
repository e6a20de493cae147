import { x402Client, x402HTTPClient } from '@x402/core/client'
import { encodePaymentRequiredHeader } from '@x402/core/http'
import type { PaymentRequired } from '@x402/core/types'
import { safeBase64Encode } from '@x402/core/utils'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { getAddress, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { paymentTypedData, type PaymentPolicy } from '../custody/paymentPolicy.ts'
import {
  encodePaymentSignature,
  evmNetwork,
  exactAuthorization,
  exactPaymentPayload,
  parsePaymentRequiredHeader,
  paymentSignatureAmount,
} from './exactPayment.ts'

// A throwaway test key (anvil's account 1), never a real one.
const account = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d')
const ASSET = getAddress('0x036cbd53842c5426634e7929541ec2318f3dcf7e')
const PAY_TO = getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8')

const required: PaymentRequired = {
  x402Version: 2,
  resource: { url: 'http://127.0.0.1/api/v1/extend', description: 'Golem runtime', mimeType: 'application/json' },
  accepts: [
    {
      scheme: 'exact',
      network: evmNetwork(84532),
      asset: ASSET,
      amount: '1500000',
      payTo: PAY_TO,
      maxTimeoutSeconds: 300,
      extra: { name: 'USDC', version: '2' },
    },
  ],
}

const policy: PaymentPolicy = {
  asset: ASSET,
  assetName: 'USDC',
  assetVersion: '2',
  payees: [PAY_TO],
  maxPerPayment: 10_000_000n,
  maxPerPeriod: 10_000_000n,
  periodSeconds: 86_400n,
  maxValiditySeconds: 600n,
}

describe("a Golem's x402 exact payment", () => {
  it("is byte-for-byte the header @x402/evm's client sends for the same authorization", async () => {
    const stock = new x402HTTPClient(
      x402Client.fromConfig({ schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(account) }], spendControls: false }),
    )
    const theirs = await stock.createPaymentPayload(required)
    const theirHeader = Object.values(stock.encodePaymentSignatureHeader(theirs))[0]!
    const their = theirs.payload as { authorization: { nonce: Hex; validBefore: string } }

    const offered = parsePaymentRequiredHeader(encodePaymentRequiredHeader(required))
    const accepted = offered.accepts[0]!
    const now = BigInt(their.authorization.validBefore) - 300n
    const authorization = exactAuthorization(accepted, now, their.authorization.nonce)
    const signature = await account.signTypedData(paymentTypedData(policy, 84532, account.address, authorization))
    const ours = encodePaymentSignature(exactPaymentPayload(offered, accepted, account.address, authorization, signature))

    expect(ours).toBe(theirHeader)
    expect(paymentSignatureAmount(ours)).toBe(1_500_000n)
  })

  it('carries the offer’s extensions back, as the stock client does', () => {
    const withExtensions = { ...required, extensions: { bazaar: { info: 1 } } }
    const a = exactAuthorization(required.accepts[0]!, 1_000n, `0x${'11'.repeat(32)}`)
    const payload = exactPaymentPayload(withExtensions, required.accepts[0]!, account.address, a, '0x')
    expect(payload.extensions).toEqual({ bazaar: { info: 1 } })
    expect(payload.payload).toMatchObject({ authorization: { value: '1500000', validAfter: '0', validBefore: '1300' } })
  })

  it('refuses an answer it cannot pay, naming the field and the rule', () => {
    const header = (v: unknown) => safeBase64Encode(JSON.stringify(v))
    expect(() => parsePaymentRequiredHeader(null)).toThrow('PAYMENT-REQUIRED: the 402 answer carries no PAYMENT-REQUIRED header')
    expect(() => parsePaymentRequiredHeader('%%%')).toThrow('PAYMENT-REQUIRED: must be base64 of a JSON object')
    expect(() => parsePaymentRequiredHeader(header({ ...required, x402Version: 1 }))).toThrow('PAYMENT-REQUIRED.x402Version')
    expect(() => parsePaymentRequiredHeader(header({ ...required, accepts: [{ ...required.accepts[0], amount: '1.5' }] }))).toThrow(
      'PAYMENT-REQUIRED.accepts.0.amount: must be a decimal integer string',
    )
    expect(() => parsePaymentRequiredHeader(header({ ...required, accepts: [{ ...required.accepts[0], payTo: 'me' }] }))).toThrow(
      'PAYMENT-REQUIRED.accepts.0.payTo: must be a 20-byte hex address',
    )
    expect(() => parsePaymentRequiredHeader(header({ ...required, resource: undefined }))).toThrow('PAYMENT-REQUIRED.resource')
    expect(() => exactAuthorization({ ...required.accepts[0]!, scheme: 'upto' }, 0n, '0x')).toThrow(
      'accepts.scheme: is upto, must be exact',
    )
    expect(() => paymentSignatureAmount(header({ accepted: {} }))).toThrow('PAYMENT-SIGNATURE.accepted.amount')
  })
})
