import { createCaveat } from '@metamask/smart-accounts-kit'
import { createCaveatBuilder } from '@metamask/smart-accounts-kit/utils'
import fc from 'fast-check'
import { pad, type Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { createBardoCaveatBuilder, fromCaveat, toAnyCaveat, toCaveat, toStandardCaveat, type StandardCaveat } from './caveat.ts'
import { encodeBardoTerms } from './encodeBardoTerms.ts'
import { InvalidTermsError } from './errors.ts'
import { anyBardoCaveat } from '../../test/support/caveats/arbitraries.ts'
import { DEPLOYMENT, ENV, FEEDS, GOLEM, NOW, ROUTER, USDC, WETH } from '../../test/support/caveats/fixtures.ts'

describe('toCaveat / fromCaveat', () => {
  it('round-trips every Bardo caveat through a framework Caveat at its enforcer', () => {
    fc.assert(
      fc.property(anyBardoCaveat(), (c) => {
        const caveat = toCaveat(c, DEPLOYMENT)
        expect(caveat).toEqual({ enforcer: DEPLOYMENT.enforcers[c.type], terms: encodeBardoTerms(c), args: '0x' })
        expect(fromCaveat(caveat, DEPLOYMENT, ENV)).toEqual(c)
        // Enforcer addresses match whatever their case.
        expect(
          fromCaveat({ ...caveat, enforcer: caveat.enforcer.toUpperCase().replace('0X', '0x') as `0x${string}` }, DEPLOYMENT, ENV),
        ).toEqual(c)
      }),
      { numRuns: 200 },
    )
  })

  const standard: StandardCaveat[] = [
    { type: 'allowedTargets', targets: [ROUTER, WETH] },
    { type: 'allowedMethods', selectors: ['0x04e45aaf', '0x095ea7b3'] },
    { type: 'valueLte', maxValue: 10n ** 16n },
    { type: 'limitedCalls', limit: 100n },
    { type: 'timestamp', afterThreshold: NOW, beforeThreshold: NOW + 1000n },
    { type: 'blockNumber', afterThreshold: 10n, beforeThreshold: 20n },
    { type: 'erc20PeriodTransfer', tokenAddress: USDC, periodAmount: 100_000_000n, periodDuration: 86_400n, startDate: NOW },
    { type: 'nativeTokenPeriodTransfer', periodAmount: 10n ** 16n, periodDuration: 86_400n, startDate: NOW },
    { type: 'erc20TransferAmount', tokenAddress: USDC, maxAmount: 5n },
    { type: 'nativeTokenTransferAmount', maxAmount: 7n },
    { type: 'exactCalldata', calldata: '0x' },
    { type: 'allowedCalldata', startIndex: 4n, value: pad(ROUTER.toLowerCase() as Hex) },
    { type: 'redeemer', redeemers: [GOLEM] },
  ]
  it.each(standard)('builds $type with the kit builder and decodes it back with the kit decoder', (c) => {
    const caveat = toStandardCaveat(c, ENV)
    expect(fromCaveat(caveat, DEPLOYMENT, ENV)).toEqual(c)
    expect(toAnyCaveat(c, DEPLOYMENT, ENV)).toEqual(caveat)
  })

  it('decodes allowedCalldata with a bigint startIndex and lower-case value, and refuses a value of half a byte', () => {
    const caveat = createCaveatBuilder(ENV).addCaveat('allowedCalldata', { startIndex: 36, value: '0xABCD' }).build()[0]!
    expect(fromCaveat(caveat, DEPLOYMENT, ENV)).toEqual({ type: 'allowedCalldata', startIndex: 36n, value: '0xabcd' })
    expect(() => toStandardCaveat({ type: 'allowedCalldata', startIndex: 4n, value: '0xabc' }, ENV)).toThrowError(
      'allowedCalldata.value must be 0x-prefixed hex of whole bytes, got 0xabc',
    )
    expect(() => fromCaveat(createCaveat(ENV.caveatEnforcers.AllowedCalldataEnforcer!, '0x0004'), DEPLOYMENT, ENV)).toThrowError(
      'AllowedCalldataEnforcer terms: terms cannot be decoded: Invalid AllowedCalldata terms: must be at least 32 bytes',
    )
  })

  it('keeps standard enforcers it does not model as otherStandard, unknown addresses as unknown', () => {
    const nonce = createCaveatBuilder(ENV).addCaveat('nonce', { nonce: '0x01' }).build()[0]!
    expect(fromCaveat(nonce, DEPLOYMENT, ENV)).toEqual({
      type: 'otherStandard',
      name: 'nonce',
      enforcer: ENV.caveatEnforcers.NonceEnforcer,
      terms: nonce.terms,
    })
    const stranger = createCaveat('0x000000000000000000000000000000000000dEaD', '0x1234')
    expect(fromCaveat(stranger, DEPLOYMENT, ENV)).toEqual({
      type: 'unknown',
      enforcer: '0x000000000000000000000000000000000000dEaD',
      terms: '0x1234',
    })
  })

  it('refuses malformed standard terms naming the enforcer', () => {
    const bad = createCaveat(ENV.caveatEnforcers.LimitedCallsEnforcer!, '0x0102')
    expect(() => fromCaveat(bad, DEPLOYMENT, ENV)).toThrowError(InvalidTermsError)
    expect(() => fromCaveat(bad, DEPLOYMENT, ENV)).toThrowError(
      'LimitedCallsEnforcer terms: terms cannot be decoded: Invalid LimitedCalls terms: must be exactly 32 bytes',
    )
  })

  it('refuses malformed Bardo terms naming the field', () => {
    const bad = createCaveat(DEPLOYMENT.enforcers.vaultNav, '0x00')
    expect(() => fromCaveat(bad, DEPLOYMENT, ENV)).toThrowError(
      'vaultNav terms: vault is missing or truncated: terms are 1 bytes, the head needs 64',
    )
  })
})

describe('createBardoCaveatBuilder', () => {
  it('composes the kit standard builders and the nine Bardo caveats in one chain', () => {
    const caveats = createBardoCaveatBuilder(ENV, DEPLOYMENT)
      .addCaveat('allowedTargets', { targets: [ROUTER] })
      .addCaveat('limitedCalls', { limit: 10 })
      .addCaveat('golemPhase', { golem: GOLEM })
      .addCaveat('dailySpendLimit', { dailyLimitUsd: 1_000_000_000n, maxPriceAge: 3600, feeds: FEEDS })
      .addCaveat('mortalityTimeWindow', { startTime: NOW, endTime: NOW + 100n })
      .build()
    expect(caveats.map((c) => fromCaveat(c, DEPLOYMENT, ENV))).toEqual([
      { type: 'allowedTargets', targets: [ROUTER] },
      { type: 'limitedCalls', limit: 10n },
      { type: 'golemPhase', golem: GOLEM },
      { type: 'dailySpendLimit', dailyLimitUsd: 1_000_000_000n, maxPriceAge: 3600, feeds: FEEDS },
      { type: 'mortalityTimeWindow', startTime: NOW, endTime: NOW + 100n },
    ])
    expect(caveats[2]!.enforcer).toBe(DEPLOYMENT.enforcers.golemPhase)
  })
})
