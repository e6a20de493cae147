import { describe, expect, test } from 'vitest'
import { X402ConfigError } from './errors.ts'
import { creditFor, extendPrice, feedPrice } from './pricing.ts'
import { buildPaymentRequirements, resolveX402Config } from './requirements.ts'

const pricing = { runtimeCostPerHour: 500_000n, deathReserve: 5_000_000n }
const base = {
  chainId: 8453,
  asset: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
  payTo: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  pricing,
} as const

describe('pricing', () => {
  test('extend costs whole hours of runtime; feed costs the death reserve', () => {
    expect(extendPrice(pricing)).toBe(500_000n)
    expect(extendPrice(pricing, 24)).toBe(12_000_000n)
    expect(feedPrice(pricing)).toBe(5_000_000n)
    for (const bad of [0, -1, 1.5, 2161, Number.NaN]) expect(() => extendPrice(pricing, bad)).toThrow(RangeError)
  })

  test('extend credit is pro rata to the second, rounded down; feed credits the amount', () => {
    expect(creditFor('extend', 'g', 500_000n, pricing)).toEqual({ kind: 'extend', golemId: 'g', seconds: 3600n, amount: 500_000n })
    expect(creditFor('extend', 'g', 500_139n, pricing)).toMatchObject({ seconds: 3601n }) // 1.0008 s extra, rounded down
    expect(creditFor('extend', 'g', 500_138n, pricing)).toMatchObject({ seconds: 3600n })
    expect(creditFor('feed', 'g', 7_000_000n, pricing)).toEqual({ kind: 'feed', golemId: 'g', amount: 7_000_000n })
  })
})

describe('requirements', () => {
  test('x402 v2 exact on CAIP-2 eip155, checksummed addresses, the token EIP-712 domain in extra', () => {
    const config = resolveX402Config(base)
    expect(buildPaymentRequirements(config, 500_000n)).toEqual({
      scheme: 'exact',
      network: 'eip155:8453',
      asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      amount: '500000',
      payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      maxTimeoutSeconds: 300,
      extra: { name: 'USD Coin', version: '2' },
    })
  })

  test.each([
    ['chainId', { chainId: 0 }],
    ['asset', { asset: '0x1234' }],
    ['payTo', { payTo: 'operator' }],
    ['maxTimeoutSeconds', { maxTimeoutSeconds: 1 }],
    ['pricing.runtimeCostPerHour', { pricing: { runtimeCostPerHour: 0n, deathReserve: 1n } }],
    ['pricing.deathReserve', { pricing: { runtimeCostPerHour: 1n, deathReserve: -1n } }],
  ])('%s: a bad value is refused naming the field', (field, over) => {
    expect(() => resolveX402Config({ ...base, ...over } as never)).toThrow(X402ConfigError)
    expect(() => resolveX402Config({ ...base, ...over } as never)).toThrow(new RegExp(`^${field.replace('.', '\\.')}:`))
  })
})
