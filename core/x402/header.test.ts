import { decodePaymentSignatureHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload } from '@x402/core/types'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { MAX_PAYMENT_HEADER_LENGTH, parsePaymentHeader } from './header.ts'

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64')

function samplePayload(): PaymentPayload {
  return {
    x402Version: 2,
    resource: { url: 'http://127.0.0.1/api/v1/extend' },
    accepted: {
      scheme: 'exact',
      network: 'eip155:31337',
      asset: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      amount: '500000',
      payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      maxTimeoutSeconds: 300,
      extra: { name: 'USD Coin', version: '2' },
    },
    payload: {
      signature: `0x${'11'.repeat(65)}`,
      authorization: {
        from: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
        to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        value: '500000',
        validAfter: '0',
        validBefore: '99999999999',
        nonce: `0x${'ab'.repeat(32)}`,
      },
    },
  }
}

/** Deletes or replaces the value at a dotted path of a deep copy. */
function edit(payload: PaymentPayload, path: string, value: unknown | typeof DELETE): unknown {
  const copy = structuredClone(payload) as unknown as Record<string, unknown>
  const keys = path.split('.')
  let node = copy
  for (const k of keys.slice(0, -1)) node = node[k] as Record<string, unknown>
  if (value === DELETE) delete node[keys.at(-1)!]
  else node[keys.at(-1)!] = value
  return copy
}
const DELETE = Symbol('delete')

describe('parsePaymentHeader', () => {
  test('accepts what @x402/core encodes and agrees with its decoder', () => {
    const header = encodePaymentSignatureHeader(samplePayload())
    const parsed = parsePaymentHeader(header)
    expect(parsed.ok).toBe(true)
    if (parsed.ok) expect(parsed.payload).toEqual(decodePaymentSignatureHeader(header))
  })

  test.each([
    ['empty', ''],
    ['not base64 characters', '!!!!'],
    ['unpadded length', 'abc'],
    ['base64url alphabet', b64('{"a":1}').replace(/\+/g, '-') + '-___'],
    ['whitespace', ` ${b64('{}')}`],
    ['non-zero padding bits', 'QR=='],
  ])('bad base64 (%s) -> PAYMENT_HEADER_NOT_BASE64', (_, header) => {
    expect(parsePaymentHeader(header)).toMatchObject({ ok: false, code: 'PAYMENT_HEADER_NOT_BASE64' })
  })

  test.each([
    ['truncated JSON', b64('{"x402Version":2')],
    ['plain text', b64('hello there')],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d]).toString('base64')],
  ])('bad JSON (%s) -> PAYMENT_HEADER_NOT_JSON', (_, header) => {
    expect(parsePaymentHeader(header)).toMatchObject({ ok: false, code: 'PAYMENT_HEADER_NOT_JSON' })
  })

  test.each([['[]'], ['"payment"'], ['42'], ['null']])('JSON that is not an object (%s) -> PAYMENT_HEADER_INVALID', (json) => {
    expect(parsePaymentHeader(b64(json))).toMatchObject({ ok: false, code: 'PAYMENT_HEADER_INVALID' })
  })

  const required = [
    'x402Version',
    'accepted',
    'accepted.scheme',
    'accepted.network',
    'accepted.asset',
    'accepted.amount',
    'accepted.payTo',
    'accepted.maxTimeoutSeconds',
    'payload',
    'payload.signature',
    'payload.authorization',
    'payload.authorization.from',
    'payload.authorization.to',
    'payload.authorization.value',
    'payload.authorization.validAfter',
    'payload.authorization.validBefore',
    'payload.authorization.nonce',
  ]
  test.each(required)('missing %s -> PAYMENT_HEADER_INVALID naming the field', (path) => {
    const result = parsePaymentHeader(b64(JSON.stringify(edit(samplePayload(), path, DELETE))))
    expect(result).toMatchObject({ ok: false, code: 'PAYMENT_HEADER_INVALID', field: path })
    if (!result.ok) expect(result.message).toContain(`${path} is required`)
  })

  test.each([
    ['payload.authorization.from', '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bC'], // bad EIP-55 checksum
    ['payload.authorization.to', '0x1234'],
    ['payload.authorization.value', '-1'],
    ['payload.authorization.value', '01'],
    ['payload.authorization.value', 500000],
    ['payload.authorization.value', '179.284458'], // found by the fuzz: must not reach BigInt()
    ['payload.authorization.validAfter', ':'],
    ['payload.authorization.validBefore', (2n ** 256n).toString()],
    ['payload.authorization.nonce', '0x1234'],
    ['payload.signature', '0x1234'],
    ['payload.signature', `0x${'zz'.repeat(65)}`],
    ['payload.signature', `0x${'00'.repeat(32)}${'64926492'.repeat(8)}`], // 6492 suffix that does not decode
    ['accepted.network', 'base'],
    ['accepted.maxTimeoutSeconds', -1],
    ['x402Version', '2'],
  ])('%s = %j -> PAYMENT_HEADER_INVALID', (path, value) => {
    expect(parsePaymentHeader(b64(JSON.stringify(edit(samplePayload(), path, value))))).toMatchObject({
      ok: false,
      code: 'PAYMENT_HEADER_INVALID',
      field: path,
    })
  })

  test('refuses __proto__ keys instead of copying them', () => {
    const json = JSON.stringify(samplePayload()).replace('"extra":{', '"extra":{"__proto__":{"polluted":true},')
    expect(parsePaymentHeader(b64(json))).toMatchObject({ ok: false, code: 'PAYMENT_HEADER_INVALID', field: '__proto__' })
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  test('refuses headers over the size cap before decoding', () => {
    expect(parsePaymentHeader('A'.repeat(MAX_PAYMENT_HEADER_LENGTH + 4))).toMatchObject({ ok: false, code: 'PAYMENT_HEADER_TOO_LARGE' })
  })

  test('never throws, whatever the input (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'binary' }),
          fc.base64String(),
          fc.jsonValue().map((v) => b64(JSON.stringify(v) ?? 'null')),
        ),
        (header) => {
          const result = parsePaymentHeader(header)
          expect(typeof result.ok).toBe('boolean')
        },
      ),
      { numRuns: 3000 },
    )
  })
})
