import { describe, expect, it } from 'vitest'
import { FaucetUsageError, parseFaucetArgs } from './faucet.ts'

describe('npm run faucet arguments', () => {
  it('takes an address and optional USDC and ETH amounts in token units', () => {
    expect(parseFaucetArgs(['0x000000000000000000000000000000000000dead'])).toEqual({
      to: '0x000000000000000000000000000000000000dEaD',
      usdc: 100_000_000n,
      eth: 10n ** 18n,
    })
    expect(parseFaucetArgs(['0x000000000000000000000000000000000000dead', '2.5', '0'])).toMatchObject({ usdc: 2_500_000n, eth: 0n })
  })

  it('refuses a bad address or amount with the field and the rule', () => {
    expect(() => parseFaucetArgs([])).toThrow(new FaucetUsageError('address: must be a 20-byte hex address, got (nothing)'))
    expect(() => parseFaucetArgs(['0x1234'])).toThrow(/^address: must be a 20-byte hex address/)
    expect(() => parseFaucetArgs(['0x000000000000000000000000000000000000dead', '-1'])).toThrow('usdc: must be a decimal amount, got -1')
    expect(() => parseFaucetArgs(['0x000000000000000000000000000000000000dead', '2000000'])).toThrow(
      'usdc: must be at most 1000000, got 2000000',
    )
    expect(() => parseFaucetArgs(['0x000000000000000000000000000000000000dead', '1', '1e3'])).toThrow(
      'eth: must be a decimal amount, got 1e3',
    )
  })
})
