import { getAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import { selfExtensionConfig, selfExtensionFromEnv } from './selfExtensionConfig.ts'

const ASSET = '0x000000000000000000000000000000000000c0de'
const PAYEE = '0x0000000000000000000000000000000000000f1a'

describe('the self-extension configuration', () => {
  it('is absent without an API URL: no self-extension', () => {
    expect(selfExtensionFromEnv({}, 500_000n)).toBeUndefined()
    expect(selfExtensionConfig({ apiUrl: undefined, asset: ASSET, payee: PAYEE, runtimeCostPerHour: 1n })).toBeUndefined()
  })

  it("reads a deployed tick's API, asset and payee; bounds are a day of runtime per payment and two per day", () => {
    const config = selfExtensionFromEnv(
      { BARDO_API_URL: 'https://api.example', BARDO_PAYMENT_ASSET: ASSET, BARDO_PAYMENT_PAYEE: PAYEE },
      500_000n,
    )
    expect(config).toMatchObject({
      apiUrl: 'https://api.example',
      runtimeCostPerHour: 500_000n,
      payments: {
        asset: getAddress(ASSET),
        payees: [getAddress(PAYEE)],
        assetName: 'USD Coin',
        assetVersion: '2',
        maxPerPayment: 12_000_000n,
        maxPerPeriod: 24_000_000n,
        periodSeconds: 86_400n,
      },
    })
  })

  it('refuses an API URL without a valid asset or payee, naming the variable', () => {
    expect(() => selfExtensionFromEnv({ BARDO_API_URL: 'https://api.example', BARDO_PAYMENT_PAYEE: PAYEE }, 1n)).toThrow(
      'config: BARDO_PAYMENT_ASSET must be an address when BARDO_API_URL is set',
    )
    expect(() =>
      selfExtensionFromEnv({ BARDO_API_URL: 'https://api.example', BARDO_PAYMENT_ASSET: ASSET, BARDO_PAYMENT_PAYEE: '0x12' }, 1n),
    ).toThrow('BARDO_PAYMENT_PAYEE')
  })
})
