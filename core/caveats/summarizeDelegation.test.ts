import { createCaveat, ROOT_AUTHORITY, type Caveat, type Delegation } from '@metamask/smart-accounts-kit'
import { pad } from 'viem'
import { describe, expect, it } from 'vitest'
import { createBardoCaveatBuilder } from './caveat.ts'
import { describePhaseMasks, summarizeCaveats, summarizeChain, summarizeDelegation } from './summarizeDelegation.ts'
import {
  DAY,
  DEC_21_2026,
  DEPLOYMENT,
  ENV,
  FEEDS,
  GOLEM,
  LABELS,
  NOW,
  OWNER,
  REPLICANT,
  ROUTER,
  USD,
  USDC,
  VAULT,
  WETH,
} from '../../test/support/caveats/fixtures.ts'

const delegation = (caveats: Caveat[]): Delegation => ({
  delegate: GOLEM,
  delegator: OWNER,
  authority: ROOT_AUTHORITY,
  caveats,
  salt: '0x01',
  signature: '0x',
})
const options = { deployment: DEPLOYMENT, environment: ENV, tokens: LABELS.tokens!, targets: LABELS.targets! }
const builder = () => createBardoCaveatBuilder(ENV, DEPLOYMENT)

describe('summarizeDelegation', () => {
  it('reads the spec example', () => {
    const caveats = builder()
      .addCaveat('erc20PeriodTransfer', { tokenAddress: USDC, periodAmount: 100_000_000n, periodDuration: 86_400, startDate: Number(NOW) })
      .addCaveat('allowedTargets', { targets: [ROUTER, WETH] })
      .addCaveat('golemPhase', { golem: GOLEM, phaseMasks: [0x1f, 0x1f, 0x1e, 0x1e, 0x1e] })
      .addCaveat('timestamp', { afterThreshold: 0, beforeThreshold: Number(DEC_21_2026) })
      .build()
    expect(summarizeDelegation(delegation(caveats), options)).toBe(
      'up to 100 USDC a day, only the Uniswap router and WETH, no new positions after Stable, expires 21 Dec 2026',
    )
  })

  it('reads a full actions delegation in a fixed order whatever the caveat order', () => {
    const caveats = builder()
      .addCaveat('mortalityTimeWindow', { startTime: NOW - DAY, endTime: DEC_21_2026 + 13n * 3600n + 45n * 60n })
      .addCaveat('golemPhase', { golem: GOLEM })
      .addCaveat('dreamMode', { golem: GOLEM })
      .addCaveat('allowedTargets', { targets: [ROUTER, VAULT] })
      .addCaveat('allowedMethods', { selectors: ['0x04e45aaf', '0x6e553f65'] })
      .addCaveat('valueLte', { maxValue: 0n })
      .addCaveat('limitedCalls', { limit: 500 })
      .addCaveat('dailySpendLimit', { dailyLimitUsd: USD(1000), maxPriceAge: 3600, feeds: FEEDS })
      .addCaveat('maxSlippage', { maxSlippageBps: 50, maxPriceAge: 600, feeds: FEEDS })
      .addCaveat('vaultNav', { vault: VAULT, maxNavBps: 2500 })
      .build()
    expect(summarizeDelegation(delegation(caveats), { ...options, now: NOW })).toBe(
      [
        'up to $1,000.00 a day in USD value of USDC and ETH',
        'only the Uniswap router and the USDC vault',
        'only exactInputSingle or deposit calls',
        'no ETH sent with calls',
        'at most 500 calls',
        'swaps with at most 0.5% slippage',
        "at most 25% of the USDC vault's assets per redemption",
        'no Replicants after Thriving',
        'no new positions after Stable',
        'settlement only in Terminal',
        'paused while the Golem dreams',
        'expires 21 Dec 2026 13:45 UTC',
      ].join(', '),
    )
  })

  it('reads an approval delegation as the one spender it may approve', () => {
    const caveats = builder()
      .addCaveat('allowedTargets', { targets: [USDC, WETH] })
      .addCaveat('allowedMethods', { selectors: ['0x095ea7b3'] })
      .addCaveat('valueLte', { maxValue: 0n })
      .addCaveat('allowedCalldata', { startIndex: 4, value: pad(ROUTER) })
      .addCaveat('mortalityTimeWindow', { startTime: NOW, endTime: DEC_21_2026 })
      .build()
    expect(summarizeDelegation(delegation(caveats), { ...options, now: NOW })).toBe(
      'may approve only the Uniswap router to spend USDC and WETH, no ETH sent with calls, expires 21 Dec 2026',
    )
  })

  it('reads an allowedCalldata pin that is not an approval spender as the bytes it fixes', () => {
    const caveats = builder()
      .addCaveat('allowedTargets', { targets: [VAULT] })
      .addCaveat('allowedMethods', { selectors: ['0x6e553f65'] })
      .addCaveat('allowedCalldata', { startIndex: 36, value: pad(REPLICANT) })
      .addCaveat('allowedCalldata', { startIndex: 68, value: '0xabcd' })
      .build()
    expect(summarizeDelegation(delegation(caveats), options)).toBe(
      `only the USDC vault, only deposit calls, only calls whose calldata bytes 36-67 are ${REPLICANT}, only calls whose calldata bytes 68-69 are 0xabcd`,
    )
  })

  it("reads a pin holding the delegator (the owner's account) as the receiver of the calls, in one clause", () => {
    const caveats = builder()
      .addCaveat('allowedTargets', { targets: [VAULT] })
      .addCaveat('allowedMethods', { selectors: ['0x6e553f65'] })
      .addCaveat('allowedCalldata', { startIndex: 36, value: pad(OWNER) })
      .addCaveat('allowedCalldata', { startIndex: 68, value: '0xabcd' })
      .build()
    expect(summarizeDelegation({ ...delegation(caveats), delegator: OWNER }, options)).toBe(
      "may call deposit on the USDC vault only with the owner's account as receiver, only calls whose calldata bytes 68-69 are 0xabcd",
    )
    // Without the delegator nothing says whose account the pin holds.
    expect(summarizeDelegation({ caveats }, options)).toBe(
      `only the USDC vault, only deposit calls, only calls whose calldata bytes 36-67 are ${OWNER}, only calls whose calldata bytes 68-69 are 0xabcd`,
    )
  })

  it("reads golemPhase's window as an expiry, last, like a mortality window", () => {
    const caveats = builder()
      .addCaveat('erc20PeriodTransfer', { tokenAddress: USDC, periodAmount: 100_000_000n, periodDuration: 86_400, startDate: Number(NOW) })
      .addCaveat('golemPhase', { golem: GOLEM, startTime: NOW - DAY, endTime: DEC_21_2026 })
      .addCaveat('dreamMode', { golem: GOLEM })
      .build()
    expect(summarizeDelegation(delegation(caveats), { ...options, now: NOW })).toBe(
      'up to 100 USDC a day, no Replicants after Thriving, no new positions after Stable, settlement only in Terminal, paused while the Golem dreams, expires 21 Dec 2026',
    )
    const later = builder()
      .addCaveat('golemPhase', { golem: GOLEM, phaseMasks: [0x1f, 0x1f, 0x1f, 0x1f, 0x1f], startTime: NOW + DAY, endTime: DEC_21_2026 })
      .build()
    expect(summarizeDelegation(delegation(later), options)).toBe('starts 2 Jan 2026, expires 21 Dec 2026')
    expect(summarizeDelegation(delegation(later), { ...options, now: NOW + 2n * DAY })).toBe('expires 21 Dec 2026')
  })

  it("reads the earlier of golemPhase's window and another expiry", () => {
    const gate = {
      type: 'golemPhase',
      golem: GOLEM,
      phaseMasks: [0x1f, 0x1f, 0x1f, 0x1f, 0x1f],
      startTime: NOW,
      endTime: NOW + 30n * DAY,
    } as const
    expect(summarizeCaveats([gate, { type: 'timestamp', afterThreshold: 0n, beforeThreshold: DEC_21_2026 }], LABELS, NOW)).toBe(
      'expires 31 Jan 2026',
    )
    expect(
      summarizeCaveats(
        [
          { ...gate, endTime: DEC_21_2026 + DAY },
          { type: 'mortalityTimeWindow', startTime: NOW, endTime: DEC_21_2026 },
        ],
        LABELS,
        NOW,
      ),
    ).toBe('expires 21 Dec 2026')
  })

  it('mentions a window start only while it is in the future', () => {
    const caveats = builder()
      .addCaveat('mortalityTimeWindow', { startTime: NOW + DAY, endTime: DEC_21_2026 })
      .build()
    expect(summarizeDelegation(delegation(caveats), options)).toBe('starts 2 Jan 2026, expires 21 Dec 2026')
    expect(summarizeDelegation(delegation(caveats), { ...options, now: NOW + 2n * DAY })).toBe('expires 21 Dec 2026')
  })

  it('reads a gas delegation built from the kit native scope', () => {
    const caveats = builder()
      .addCaveat('exactCalldata', { calldata: '0x' })
      .addCaveat('nativeTokenPeriodTransfer', { periodAmount: 10n ** 16n, periodDuration: 86_400, startDate: Number(NOW) })
      .addCaveat('allowedTargets', { targets: [GOLEM] })
      .build()
    expect(summarizeDelegation(delegation(caveats), options)).toBe(
      `up to 0.01 ETH a day, only ${GOLEM}, plain transfers without calldata only`,
    )
  })

  it('reads a Replicant delegation', () => {
    const caveats = builder()
      .addCaveat('replicantBudget', { maxBudgetUsd: USD(50), maxLifespanSeconds: DAY, maxPriceAge: 600, feeds: FEEDS })
      .addCaveat('mortalityTimeWindow', { startTime: NOW, endTime: NOW + DAY })
      .addCaveat('limitedCalls', { limit: 100 })
      .addCaveat('allowedTargets', { targets: [ROUTER] })
      .addCaveat('redeemer', { redeemers: [REPLICANT] })
      .build()
    expect(summarizeDelegation(delegation(caveats), { ...options, now: NOW })).toBe(
      `a $50.00 budget for 24 hours from first use, only the Uniswap router, at most 100 calls, redeemable only by ${REPLICANT}, expires 2 Jan 2026`,
    )
  })

  it('names caveats it cannot read instead of hiding them', () => {
    const caveats = [
      createCaveat('0x000000000000000000000000000000000000dEaD', '0x'),
      ...builder().addCaveat('nonce', { nonce: '0x01' }).addCaveat('limitedCalls', { limit: 1 }).build(),
    ]
    expect(summarizeDelegation(delegation(caveats), options)).toBe(
      'at most 1 call, plus a nonce caveat, plus an unrecognised caveat at 0x000000000000000000000000000000000000dEaD',
    )
  })

  it('reads totals, royalties, emotional gates and two expiries (the earlier wins)', () => {
    expect(
      summarizeCaveats(
        [
          { type: 'erc20TransferAmount', tokenAddress: USDC, maxAmount: 1_234_500_000n },
          { type: 'knowledgeRoyalty', token: USDC, author: REPLICANT, royaltyBps: 1000 },
          {
            type: 'emotionalState',
            golem: GOLEM,
            minPleasure: -20,
            maxArousal: 60,
            minDominance: -30,
            restrictedSelectors: ['0x04e45aaf', '0x095ea7b3'],
          },
          { type: 'timestamp', afterThreshold: 0n, beforeThreshold: DEC_21_2026 },
          { type: 'mortalityTimeWindow', startTime: NOW, endTime: NOW + 30n * DAY },
        ],
        LABELS,
        NOW,
      ),
    ).toBe(
      `up to 1,234.5 USDC in total, a 10% royalty in USDC to ${REPLICANT}, exactInputSingle and approve refused when pleasure < -20, arousal > 60 or dominance < -30, expires 31 Jan 2026`,
    )
  })
})

describe('summarizeChain', () => {
  it("keeps an ancestor golemPhase window when the leaf's golemPhase has none (both run on-chain)", () => {
    const root = delegation(builder().addCaveat('golemPhase', { golem: GOLEM, startTime: NOW, endTime: DEC_21_2026 }).build())
    const leaf = delegation(
      builder()
        .addCaveat('limitedCalls', { limit: 3 })
        .addCaveat('golemPhase', { golem: GOLEM, phaseMasks: [0x1f, 0x10, 0x10, 0x10, 0x10] })
        .build(),
    )
    expect(summarizeChain([leaf, root], { ...options, now: NOW })).toBe(
      'at most 3 calls, settlement only from Stable on, expires 21 Dec 2026',
    )
  })
})

describe('describePhaseMasks', () => {
  it.each([
    [
      [0x1f, 0x17, 0x16, 0x16, 0x10],
      ['no Replicants after Thriving', 'no new positions after Stable', 'settlement only in Terminal'],
    ],
    [[0x1f, 0x1f, 0x1f, 0x1f, 0x1f], []],
    [[0x10, 0x10, 0x10, 0x10, 0x10], ['settlement only, in every phase']],
    [
      [0x17, 0x17, 0x10, 0x10, 0x10],
      ['no Replicants', 'settlement only from Conservation on'],
    ],
    [[0x1f, 0x1e, 0x1f, 0x1e, 0x1e], ['new positions only in Thriving and Conservation']],
    [
      [0x1f, 0x17, 0x16, 0x16, 0x00],
      [
        'no Replicants after Thriving',
        'no new positions after Stable',
        'no closing positions after Declining',
        'no transfers after Declining',
        'no settlement after Declining',
      ],
    ],
  ] as const)('%o', (masks, clauses) => {
    expect(describePhaseMasks(masks)).toEqual(clauses)
  })
})
