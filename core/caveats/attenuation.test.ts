import { getAddress, pad, type Address } from 'viem'
import { describe, expect, it } from 'vitest'
import { findAttenuationViolation, type AncestorCaveats } from './attenuation.ts'
import type { DecodedCaveat } from './caveat.ts'
import { AttenuationError } from './errors.ts'
import {
  DAY,
  DEC_21_2026,
  FEEDS,
  GOLEM,
  LABELS,
  NOW,
  REPLICANT,
  ROUTER,
  USD,
  USDC,
  VAULT,
  WETH,
} from '../../test/support/caveats/fixtures.ts'

const ETH = 10n ** 18n
const usdcPeriod = (amount: number, duration: bigint = DAY): DecodedCaveat => ({
  type: 'erc20PeriodTransfer',
  tokenAddress: USDC,
  periodAmount: BigInt(amount) * 1_000_000n,
  periodDuration: duration,
  startDate: NOW,
})
const daily = (dollars: number): DecodedCaveat => ({
  type: 'dailySpendLimit',
  dailyLimitUsd: USD(dollars),
  maxPriceAge: 3600,
  feeds: FEEDS,
})
const budget = (dollars: number, lifespan: bigint): DecodedCaveat => ({
  type: 'replicantBudget',
  maxBudgetUsd: USD(dollars),
  maxLifespanSeconds: lifespan,
  maxPriceAge: 3600,
  feeds: FEEDS,
})
const mortality = (start: bigint, end: bigint): DecodedCaveat => ({ type: 'mortalityTimeWindow', startTime: start, endTime: end })
/** golemPhase carrying the life window (36-byte terms), as Bardo builds a Golem's delegations. */
const gate = (start: bigint, end: bigint, golem = GOLEM): DecodedCaveat => ({ type: 'golemPhase', golem, startTime: start, endTime: end })
const emotion = (p: number, a: number, d: number, selectors: `0x${string}`[]): DecodedCaveat => ({
  type: 'emotionalState',
  golem: GOLEM,
  minPleasure: p,
  maxArousal: a,
  minDominance: d,
  restrictedSelectors: selectors,
})
const SWAP = '0x04e45aaf'
const APPROVE = '0x095ea7b3'
const TRANSFER = '0xa9059cbb'
const AUTHOR = getAddress('0x00000000000000000000000000000000000a0770')
const SPENDER = getAddress('0x000000000000000000000000000000000000a77a')
const pin = (spender: Address): DecodedCaveat => ({ type: 'allowedCalldata', startIndex: 4n, value: pad(spender) })

type Case = [name: string, parent: DecodedCaveat[], child: DecodedCaveat[], refusal: string | null]

const cases: Case[] = [
  // Period caps (same token): amount per period and per-second rate.
  ['period: smaller daily amount', [usdcPeriod(100)], [usdcPeriod(50)], null],
  [
    'period: larger daily amount',
    [usdcPeriod(100)],
    [usdcPeriod(200)],
    'Child erc20PeriodTransfer 200 USDC/day exceeds parent erc20PeriodTransfer 100 USDC/day.',
  ],
  [
    'period: hourly that adds up to more a day',
    [usdcPeriod(100)],
    [usdcPeriod(10, 3600n)],
    'Child erc20PeriodTransfer 10 USDC/hour (240 USDC/day) exceeds parent erc20PeriodTransfer 100 USDC/day.',
  ],
  ['period: hourly within the daily rate', [usdcPeriod(100)], [usdcPeriod(2, 3600n)], null],
  ['period: weekly amount equal to the daily one', [usdcPeriod(100)], [usdcPeriod(100, 7n * DAY)], null],
  [
    'period: weekly amount above the daily one',
    [usdcPeriod(100)],
    [usdcPeriod(700, 7n * DAY)],
    'Child erc20PeriodTransfer 700 USDC/week exceeds parent erc20PeriodTransfer 100 USDC/day.',
  ],
  [
    'period: a different token is not shared',
    [usdcPeriod(100)],
    [{ type: 'erc20PeriodTransfer', tokenAddress: WETH, periodAmount: ETH, periodDuration: DAY, startDate: NOW }],
    null,
  ],
  [
    'native period: larger',
    [{ type: 'nativeTokenPeriodTransfer', periodAmount: ETH / 100n, periodDuration: DAY, startDate: NOW }],
    [{ type: 'nativeTokenPeriodTransfer', periodAmount: ETH / 50n, periodDuration: DAY, startDate: NOW }],
    'Child nativeTokenPeriodTransfer 0.02 ETH/day exceeds parent nativeTokenPeriodTransfer 0.01 ETH/day.',
  ],
  // Totals.
  [
    'erc20 total: larger',
    [{ type: 'erc20TransferAmount', tokenAddress: USDC, maxAmount: 500_000_000n }],
    [{ type: 'erc20TransferAmount', tokenAddress: USDC, maxAmount: 600_000_000n }],
    'Child erc20TransferAmount 600 USDC in total exceeds parent erc20TransferAmount 500 USDC in total.',
  ],
  [
    'native total: larger',
    [{ type: 'nativeTokenTransferAmount', maxAmount: ETH }],
    [{ type: 'nativeTokenTransferAmount', maxAmount: 2n * ETH }],
    'Child nativeTokenTransferAmount 2 ETH in total exceeds parent nativeTokenTransferAmount 1 ETH in total.',
  ],
  [
    'period under a total: a period above the whole total',
    [{ type: 'erc20TransferAmount', tokenAddress: USDC, maxAmount: 500_000_000n }],
    [usdcPeriod(600)],
    'Child erc20PeriodTransfer 600 USDC/day exceeds parent erc20TransferAmount 500 USDC in total.',
  ],
  // Targets and methods.
  ['targets: subset', [{ type: 'allowedTargets', targets: [ROUTER, WETH] }], [{ type: 'allowedTargets', targets: [WETH] }], null],
  [
    'targets: subset in another letter case',
    [{ type: 'allowedTargets', targets: [ROUTER] }],
    [{ type: 'allowedTargets', targets: [ROUTER.toLowerCase() as `0x${string}`] }],
    null,
  ],
  [
    'targets: wider',
    [{ type: 'allowedTargets', targets: [WETH] }],
    [{ type: 'allowedTargets', targets: [ROUTER, WETH] }],
    'Child allowedTargets [the Uniswap router, WETH] is not within parent allowedTargets [WETH].',
  ],
  ['methods: subset', [{ type: 'allowedMethods', selectors: [SWAP, APPROVE] }], [{ type: 'allowedMethods', selectors: [SWAP] }], null],
  [
    'methods: wider',
    [{ type: 'allowedMethods', selectors: [APPROVE] }],
    [{ type: 'allowedMethods', selectors: [TRANSFER] }],
    'Child allowedMethods [transfer] is not within parent allowedMethods [approve].',
  ],
  [
    'redeemer: another redeemer',
    [{ type: 'redeemer', redeemers: [GOLEM] }],
    [{ type: 'redeemer', redeemers: [REPLICANT] }],
    `Child redeemer [${REPLICANT}] is not within parent redeemer [${GOLEM}].`,
  ],
  // Value, calls.
  [
    'valueLte: larger',
    [{ type: 'valueLte', maxValue: ETH / 10n }],
    [{ type: 'valueLte', maxValue: ETH / 5n }],
    'Child valueLte 0.2 ETH exceeds parent valueLte 0.1 ETH.',
  ],
  ['valueLte: zero under a cap', [{ type: 'valueLte', maxValue: ETH / 10n }], [{ type: 'valueLte', maxValue: 0n }], null],
  [
    'limitedCalls: more calls',
    [{ type: 'limitedCalls', limit: 100n }],
    [{ type: 'limitedCalls', limit: 1000n }],
    'Child limitedCalls 1000 calls exceeds parent limitedCalls 100 calls.',
  ],
  // Time windows (timestamp and MortalityTimeWindow compare with each other).
  ['window: inside', [mortality(NOW, DEC_21_2026)], [mortality(NOW + DAY, DEC_21_2026 - DAY)], null],
  [
    'window: ends later',
    [mortality(NOW, DEC_21_2026)],
    [mortality(NOW, DEC_21_2026 + DAY)],
    'Child mortalityTimeWindow end 22 Dec 2026 is after parent mortalityTimeWindow end 21 Dec 2026.',
  ],
  [
    'window: timestamp starts before the mortality window',
    [mortality(NOW, DEC_21_2026)],
    [{ type: 'timestamp', afterThreshold: NOW - 10n * DAY, beforeThreshold: 0n }],
    'Child timestamp start 22 Dec 2025 00:00:01 UTC is before parent mortalityTimeWindow start 1 Jan 2026.',
  ],
  [
    'window: mortality ends after a timestamp expiry (exclusive bound shown as the last valid second)',
    [{ type: 'timestamp', afterThreshold: 0n, beforeThreshold: DEC_21_2026 }],
    [mortality(NOW, DEC_21_2026)],
    'Child mortalityTimeWindow end 21 Dec 2026 is after parent timestamp end 20 Dec 2026 23:59:59 UTC.',
  ],
  [
    'window: a bound the child does not set is inherited',
    [mortality(NOW, DEC_21_2026)],
    [{ type: 'timestamp', afterThreshold: 0n, beforeThreshold: DEC_21_2026 }],
    null,
  ],
  // golemPhase's window is a time window like any other, whichever side carries it.
  ['golemPhase window: inside a parent golemPhase window', [gate(NOW, DEC_21_2026)], [gate(NOW + DAY, DEC_21_2026)], null],
  [
    'golemPhase window: ends after a parent golemPhase window',
    [gate(NOW, DEC_21_2026)],
    [gate(NOW, DEC_21_2026 + DAY)],
    'Child golemPhase end 22 Dec 2026 is after parent golemPhase end 21 Dec 2026.',
  ],
  [
    'golemPhase window: starts before a parent golemPhase window',
    [gate(NOW, DEC_21_2026)],
    [gate(NOW - DAY, DEC_21_2026)],
    'Child golemPhase start 31 Dec 2025 is before parent golemPhase start 1 Jan 2026.',
  ],
  ['golemPhase window: inside a parent mortality window', [mortality(NOW, DEC_21_2026)], [gate(NOW, DEC_21_2026 - DAY)], null],
  [
    'golemPhase window: ends after a parent mortality window',
    [mortality(NOW, DEC_21_2026)],
    [gate(NOW, DEC_21_2026 + DAY)],
    'Child golemPhase end 22 Dec 2026 is after parent mortalityTimeWindow end 21 Dec 2026.',
  ],
  [
    'mortality window: ends after a parent golemPhase window',
    [gate(NOW, DEC_21_2026)],
    [mortality(NOW, DEC_21_2026 + DAY)],
    'Child mortalityTimeWindow end 22 Dec 2026 is after parent golemPhase end 21 Dec 2026.',
  ],
  ['mortality window: inside a parent golemPhase window', [gate(NOW, DEC_21_2026)], [mortality(NOW + DAY, NOW + 2n * DAY)], null],
  [
    'golemPhase window: ends after a parent timestamp expiry (exclusive)',
    [{ type: 'timestamp', afterThreshold: 0n, beforeThreshold: DEC_21_2026 }],
    [gate(NOW, DEC_21_2026)],
    'Child golemPhase end 21 Dec 2026 is after parent timestamp end 20 Dec 2026 23:59:59 UTC.',
  ],
  [
    "golemPhase window: another Golem's window still bounds time",
    [gate(NOW, DEC_21_2026, REPLICANT)],
    [gate(NOW, DEC_21_2026 + DAY)],
    'Child golemPhase end 22 Dec 2026 is after parent golemPhase end 21 Dec 2026.',
  ],
  [
    "golemPhase without a window under a windowed one (the parent's window still runs)",
    [gate(NOW, DEC_21_2026)],
    [{ type: 'golemPhase', golem: GOLEM }],
    null,
  ],
  [
    'golemPhase window inside, but masks wider',
    [gate(NOW, DEC_21_2026)],
    [{ type: 'golemPhase', golem: GOLEM, phaseMasks: [0x1f, 0x1f, 0x16, 0x16, 0x10], startTime: NOW, endTime: DEC_21_2026 }],
    'Child golemPhase mask 0x1f for Stable exceeds parent golemPhase mask 0x17 for Stable.',
  ],
  // USD caps and budgets.
  [
    'dailySpendLimit: larger (the spec example)',
    [daily(1000)],
    [daily(2000)],
    'Child dailySpendLimit $2,000.00/day exceeds parent dailySpendLimit $1,000.00/day.',
  ],
  ['dailySpendLimit: smaller', [daily(1000)], [daily(500)], null],
  [
    'dailySpendLimit under a Replicant budget',
    [budget(50, DAY)],
    [daily(100)],
    'Child dailySpendLimit $100.00/day exceeds parent replicantBudget $50.00 over 24 hours.',
  ],
  [
    'replicantBudget: larger budget',
    [budget(50, DAY)],
    [budget(100, DAY)],
    'Child replicantBudget budget $100.00 exceeds parent replicantBudget budget $50.00.',
  ],
  [
    'replicantBudget: longer lifespan',
    [budget(50, DAY)],
    [budget(50, 2n * DAY)],
    'Child replicantBudget lifespan 2 days exceeds parent replicantBudget lifespan 24 hours.',
  ],
  ['replicantBudget: within budget and lifespan', [budget(50, DAY)], [budget(20, 3600n)], null],
  [
    'replicantBudget: lifespan longer than the parent window',
    [mortality(NOW, NOW + 30n * DAY)],
    [budget(50, 60n * DAY)],
    'Child replicantBudget lifespan 60 days exceeds parent mortalityTimeWindow from 1 Jan 2026 to 31 Jan 2026 (30 days).',
  ],
  [
    'replicantBudget: lifespan longer than the parent golemPhase window',
    [gate(NOW, NOW + 10n * DAY)],
    [budget(50, 30n * DAY)],
    'Child replicantBudget lifespan 30 days exceeds parent golemPhase from 1 Jan 2026 to 11 Jan 2026 (10 days).',
  ],
  ['replicantBudget: lifespan within the parent golemPhase window', [gate(NOW, NOW + 10n * DAY)], [budget(50, 10n * DAY)], null],
  // Bps caps.
  [
    'maxSlippage: looser',
    [{ type: 'maxSlippage', maxSlippageBps: 50, maxPriceAge: 60, feeds: FEEDS }],
    [{ type: 'maxSlippage', maxSlippageBps: 100, maxPriceAge: 60, feeds: FEEDS }],
    'Child maxSlippage 1% exceeds parent maxSlippage 0.5%.',
  ],
  [
    'vaultNav: same vault, larger share',
    [{ type: 'vaultNav', vault: VAULT, maxNavBps: 500 }],
    [{ type: 'vaultNav', vault: VAULT, maxNavBps: 1000 }],
    'Child vaultNav 10% of the USDC vault exceeds parent vaultNav 5% of the USDC vault.',
  ],
  [
    'vaultNav: another vault is not shared',
    [{ type: 'vaultNav', vault: VAULT, maxNavBps: 500 }],
    [{ type: 'vaultNav', vault: WETH, maxNavBps: 1000 }],
    null,
  ],
  // Phase masks: the child's classes per phase must be a subset.
  ['golemPhase: defaults under defaults', [{ type: 'golemPhase', golem: GOLEM }], [{ type: 'golemPhase', golem: GOLEM }], null],
  [
    'golemPhase: narrower masks',
    [{ type: 'golemPhase', golem: GOLEM }],
    [{ type: 'golemPhase', golem: GOLEM, phaseMasks: [0x17, 0x16, 0x16, 0x16, 0x10] }],
    null,
  ],
  [
    'golemPhase: sub-delegation in Stable',
    [{ type: 'golemPhase', golem: GOLEM }],
    [{ type: 'golemPhase', golem: GOLEM, phaseMasks: [0x1f, 0x1f, 0x16, 0x16, 0x10] }],
    'Child golemPhase mask 0x1f for Stable exceeds parent golemPhase mask 0x17 for Stable.',
  ],
  [
    'golemPhase: another Golem is not shared',
    [{ type: 'golemPhase', golem: GOLEM, phaseMasks: [1, 1, 1, 1, 1] }],
    [{ type: 'golemPhase', golem: REPLICANT }],
    null,
  ],
  // Emotional state: at least as strict.
  ['emotionalState: stricter', [emotion(-20, 60, -30, [SWAP])], [emotion(0, 40, -10, [SWAP, APPROVE])], null],
  [
    'emotionalState: lower pleasure floor',
    [emotion(-20, 60, -30, [SWAP])],
    [emotion(-50, 60, -30, [SWAP])],
    'Child emotionalState minPleasure -50 is looser than parent emotionalState minPleasure -20.',
  ],
  [
    'emotionalState: higher arousal ceiling',
    [emotion(-20, 60, -30, [SWAP])],
    [emotion(-20, 80, -30, [SWAP])],
    'Child emotionalState maxArousal 80 is looser than parent emotionalState maxArousal 60.',
  ],
  [
    'emotionalState: restricts fewer selectors',
    [emotion(-20, 60, -30, [SWAP, APPROVE])],
    [emotion(-20, 60, -30, [SWAP])],
    'Child emotionalState pleasure >= -20, arousal <= 60, dominance >= -30 on [exactInputSingle] does not cover parent emotionalState pleasure >= -20, arousal <= 60, dominance >= -30 on [exactInputSingle, approve].',
  ],
  [
    'knowledgeRoyalty: lower royalty',
    [{ type: 'knowledgeRoyalty', token: USDC, author: AUTHOR, royaltyBps: 1000 }],
    [{ type: 'knowledgeRoyalty', token: USDC, author: AUTHOR, royaltyBps: 500 }],
    `Child knowledgeRoyalty 5% to ${AUTHOR} is below parent knowledgeRoyalty 10% to ${AUTHOR}.`,
  ],
  // allowedCalldata pins (an approval's spender): a child must carry each one, same byte and value.
  ['allowedCalldata: the same pin', [pin(ROUTER)], [pin(ROUTER.toLowerCase() as Address)], null],
  [
    'allowedCalldata: the same pin and one more',
    [pin(ROUTER)],
    [pin(ROUTER), { type: 'allowedCalldata', startIndex: 36n, value: pad('0x01') }],
    null,
  ],
  [
    'allowedCalldata: another spender',
    [pin(ROUTER)],
    [pin(SPENDER)],
    `Child allowedCalldata ${SPENDER} at byte 4 differs from parent allowedCalldata the Uniswap router at byte 4.`,
  ],
  [
    'allowedCalldata: dropped',
    [pin(ROUTER), { type: 'allowedMethods', selectors: [APPROVE] }],
    [{ type: 'allowedMethods', selectors: [APPROVE] }],
    'Child has no allowedCalldata at byte 4, so it drops parent allowedCalldata the Uniswap router at byte 4.',
  ],
  [
    'allowedCalldata: moved to another byte',
    [pin(ROUTER)],
    [{ type: 'allowedCalldata', startIndex: 36n, value: pad(ROUTER) }],
    'Child has no allowedCalldata at byte 4, so it drops parent allowedCalldata the Uniswap router at byte 4.',
  ],
  [
    'allowedCalldata: a value that is not an address word',
    [{ type: 'allowedCalldata', startIndex: 36n, value: '0x01' }],
    [{ type: 'allowedCalldata', startIndex: 36n, value: '0x02' }],
    'Child allowedCalldata 0x02 at byte 36 differs from parent allowedCalldata 0x01 at byte 36.',
  ],
  ['allowedCalldata: the child adds a pin the parent lacks', [{ type: 'allowedMethods', selectors: [APPROVE] }], [pin(ROUTER)], null],
  [
    'exactCalldata: different calldata',
    [{ type: 'exactCalldata', calldata: '0x' }],
    [{ type: 'exactCalldata', calldata: '0x1234' }],
    'Child exactCalldata 0x1234 differs from parent exactCalldata 0x.',
  ],
  // Missing caveats on either side.
  ['the parent has a caveat the child lacks', [daily(1000), { type: 'limitedCalls', limit: 5n }], [usdcPeriod(1)], null],
  ['the child adds a caveat the parent lacks', [usdcPeriod(100)], [usdcPeriod(100), { type: 'limitedCalls', limit: 10n }], null],
]

describe('attenuation table', () => {
  it('has at least 30 cases', () => expect(cases.length).toBeGreaterThanOrEqual(30))
  it.each(cases)('%s', (_name, parent, child, refusal) => {
    const error = findAttenuationViolation(child, [{ relation: 'parent', caveats: parent }], LABELS)
    if (refusal === null) {
      expect(error).toBeUndefined()
    } else {
      expect(error).toBeInstanceOf(AttenuationError)
      expect(error!.message).toBe(refusal)
      expect(error!.code).toBe('ATTENUATION')
    }
  })
})

describe('ancestors beyond the parent', () => {
  it('checks the child against a grandparent on a caveat the parent lacks, calling it ancestor', () => {
    const layers: AncestorCaveats[] = [
      { relation: 'parent', caveats: [{ type: 'limitedCalls', limit: 10n }] },
      { relation: 'ancestor', caveats: [daily(1000)] },
    ]
    expect(findAttenuationViolation([daily(2000)], layers, LABELS)?.message).toBe(
      'Child dailySpendLimit $2,000.00/day exceeds ancestor dailySpendLimit $1,000.00/day.',
    )
  })

  it("refuses a child that drops a grandparent's allowedCalldata pin the parent carried, calling it ancestor", () => {
    const layers: AncestorCaveats[] = [
      { relation: 'parent', caveats: [{ type: 'limitedCalls', limit: 10n }] },
      { relation: 'ancestor', caveats: [pin(ROUTER)] },
    ]
    const error = findAttenuationViolation([{ type: 'limitedCalls', limit: 5n }], layers, LABELS)
    expect(error?.message).toBe(
      'Child has no allowedCalldata at byte 4, so it drops ancestor allowedCalldata the Uniswap router at byte 4.',
    )
    expect(error?.caveat).toBe('allowedCalldata')
    expect(findAttenuationViolation([{ type: 'limitedCalls', limit: 5n }, pin(ROUTER)], layers, LABELS)).toBeUndefined()
  })

  it('without labels, names tokens by address and base units', () => {
    expect(findAttenuationViolation([usdcPeriod(2)], [{ relation: 'parent', caveats: [usdcPeriod(1)] }])?.message).toBe(
      `Child erc20PeriodTransfer 2,000,000 base units of ${USDC}/day exceeds parent erc20PeriodTransfer 1,000,000 base units of ${USDC}/day.`,
    )
  })
})
