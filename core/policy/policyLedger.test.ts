// A request in the constitution's terms, and the ledger its events sum to.
import { getAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import { dayStartMs, policyActionOf, policyLedgerOf, usdOf, type AssetPrices } from './index.ts'

const USDC = getAddress('0x00000000000000000000000000000000000000c0')
const WETH = getAddress('0x00000000000000000000000000000000000000e0')
const VAULT = getAddress('0x00000000000000000000000000000000000000f0')
const KEY = getAddress('0x0000000000000000000000000000000000000a01')
const OLD_KEY = getAddress('0x0000000000000000000000000000000000000a00')
const prices: AssetPrices = new Map([
  [USDC.toLowerCase(), { decimals: 6, usdPerToken: 1_000_000n }],
  [WETH.toLowerCase(), { decimals: 18, usdPerToken: 3_000_000_000n }],
  // A share worth 1.1 USDC.
  [VAULT.toLowerCase(), { decimals: 6, usdPerToken: 1_100_000n, underlying: USDC }],
])

describe('policyActionOf', () => {
  it('a buy puts what it gives up at risk in the asset it acquires', () => {
    expect(
      policyActionOf(
        { kind: 'swap', router: USDC, tokenIn: USDC, tokenOut: WETH, amountIn: 10_000_000n, amountOutMinimum: 0n },
        prices,
        USDC,
      ),
    ).toEqual({ assets: [USDC, WETH], acquires: { asset: WETH, usd: 10_000_000n }, spendUsd: 10_000_000n })
    expect(policyActionOf({ kind: 'deposit', vault: VAULT, assets: 5_000_000n }, prices, USDC)).toEqual({
      assets: [USDC, VAULT],
      acquires: { asset: VAULT, usd: 5_000_000n },
      spendUsd: 5_000_000n,
    })
  })
  it('a close into the base asset and an approval put nothing at risk', () => {
    expect(
      policyActionOf(
        { kind: 'swap', router: USDC, tokenIn: WETH, tokenOut: USDC, amountIn: 10n ** 18n, amountOutMinimum: 0n },
        prices,
        USDC,
      ),
    ).toMatchObject({ acquires: { asset: USDC, usd: 3_000_000_000n }, spendUsd: 0n })
    expect(policyActionOf({ kind: 'redeem', vault: VAULT, shares: 10_000_000n }, prices, USDC)).toMatchObject({
      assets: [VAULT, USDC],
      acquires: { asset: USDC, usd: 11_000_000n },
      spendUsd: 0n,
    })
    expect(policyActionOf({ kind: 'approve', token: WETH, spender: VAULT, amount: 1n }, prices, USDC)).toEqual({
      assets: [WETH],
      spendUsd: 0n,
    })
  })
  it('rounds USD up, and values an unpriced asset at 0 (the approved-asset rule refuses it first)', () => {
    expect(usdOf(prices, WETH, 1n)).toBe(1n)
    expect(usdOf(prices, KEY, 10n ** 18n)).toBe(0n)
  })
})

describe('policyLedgerOf', () => {
  const now = Date.UTC(2026, 10, 28, 12)
  const spend = (at: number, usd: number, sessionKey = KEY, hwm = 0) => ({
    type: 'PolicySpend',
    at,
    data: { spendUsd: String(usd), sessionKey, highWaterMarkUsd: String(hwm) },
  })
  it("sums the current key's spend, today's spend, and keeps the highest portfolio recorded", () => {
    const events = [
      spend(now - 2 * 86_400_000, 7, OLD_KEY, 900),
      spend(dayStartMs(now) - 1, 5, KEY, 1_200),
      spend(dayStartMs(now), 3),
      { type: 'PolicyViolation', at: now, data: { highWaterMarkUsd: '1100' } },
      { type: 'PhaseChanged', at: now, data: { spendUsd: '100' } },
    ]
    expect(policyLedgerOf(events, { sessionKey: KEY, nowMs: now })).toEqual({
      sessionSpentUsd: 8n,
      daySpentUsd: 3n,
      highWaterMarkUsd: 1_200n,
    })
  })
  it("counts one request's spend once, however many events record it", () => {
    const of = (at: number, usd: number, requestId?: string) => ({
      ...spend(at, usd),
      data: { ...spend(at, usd).data, ...(requestId === undefined ? {} : { requestId }) },
    })
    // Two copies of request r1 in flight at once each recorded it; r2 once; two without an id each count.
    const events = [of(now - 2_000, 4, 'r1'), of(now - 1_000, 4, 'r1'), of(now, 2, 'r2'), of(now, 1), of(now, 1)]
    expect(policyLedgerOf(events, { sessionKey: KEY, nowMs: now })).toMatchObject({ sessionSpentUsd: 8n, daySpentUsd: 8n })
  })
  it('names the first revoking violation under the current constitution only', () => {
    const violation = (at: number, hash: string, revoke: boolean, rule: string) => ({
      type: 'PolicyViolation',
      at,
      data: { constitutionHash: hash, revoke, rule, highWaterMarkUsd: '0' },
    })
    const events = [
      violation(now - 3_000, '0xold', true, 'maxDay'),
      violation(now - 2_000, '0xnew', false, 'maxSession'),
      violation(now - 1_000, '0xnew', true, 'approvedAsset'),
      violation(now, '0xnew', true, 'maxDrawdown'),
    ]
    expect(policyLedgerOf(events, { sessionKey: KEY, nowMs: now, constitutionHash: '0xNEW' }).revokedBy).toEqual({
      rule: 'approvedAsset',
      at: BigInt(Math.floor((now - 1_000) / 1000)),
    })
    expect(policyLedgerOf(events, { sessionKey: KEY, nowMs: now, constitutionHash: '0xother' }).revokedBy).toBeUndefined()
  })
})
