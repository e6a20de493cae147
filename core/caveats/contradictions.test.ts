import { pad, zeroAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import type { DecodedCaveat } from './caveat.ts'
import { findContradiction } from './contradictions.ts'
import { ContradictionError } from './errors.ts'
import {
  DAY,
  DEC_21_2026,
  FEEDS,
  FEED_ETH,
  FEED_USDC,
  GOLEM,
  LABELS,
  NOW,
  ROUTER,
  USD,
  USDC,
  VAULT,
  WETH,
} from '../../test/support/caveats/fixtures.ts'

const ETH = 10n ** 18n
const usdcPeriod: DecodedCaveat = {
  type: 'erc20PeriodTransfer',
  tokenAddress: USDC,
  periodAmount: 100_000_000n,
  periodDuration: DAY,
  startDate: NOW,
}
const gas: DecodedCaveat = { type: 'nativeTokenPeriodTransfer', periodAmount: ETH / 100n, periodDuration: DAY, startDate: NOW }
const daily = (dollars: number, feeds = FEEDS): DecodedCaveat => ({
  type: 'dailySpendLimit',
  dailyLimitUsd: USD(dollars),
  maxPriceAge: 3600,
  feeds,
})
const TRANSFER = '0xa9059cbb'
const APPROVE = '0x095ea7b3'
const FEB_1 = 1_769_904_000n
const MAR_1 = 1_772_323_200n

type Case = [name: string, own: DecodedCaveat[], refusal: string | null, inherited?: DecodedCaveat[]]

const cases: Case[] = [
  ['empty caveat set', [], 'An empty caveat set grants unrestricted authority, and Bardo never signs one.'],
  [
    'timestamp window empty',
    [{ type: 'timestamp', afterThreshold: DEC_21_2026, beforeThreshold: NOW }],
    'timestamp window is empty: after 21 Dec 2026 is not before 1 Jan 2026.',
  ],
  [
    'timestamp already expired',
    [{ type: 'timestamp', afterThreshold: 0n, beforeThreshold: NOW - DAY }],
    'timestamp expired at 31 Dec 2025, before now (1 Jan 2026).',
  ],
  [
    'timestamp with no bound',
    [{ type: 'timestamp', afterThreshold: 0n, beforeThreshold: 0n }],
    'timestamp sets neither bound, so it restricts nothing.',
  ],
  [
    'mortality window already expired',
    [{ type: 'mortalityTimeWindow', startTime: NOW - DAY, endTime: NOW - 1n }],
    'mortalityTimeWindow already expired at 31 Dec 2025 23:59:59 UTC, before now (1 Jan 2026).',
  ],
  ['mortality window ending this very second is still valid', [{ type: 'mortalityTimeWindow', startTime: NOW - DAY, endTime: NOW }], null],
  [
    'valueLte 0 with a native allowance',
    [{ type: 'valueLte', maxValue: 0n }, gas],
    'valueLte 0 ETH forbids native value, so nativeTokenPeriodTransfer 0.01 ETH/day can never be spent.',
  ],
  ['allowedMethods empty', [{ type: 'allowedMethods', selectors: [] }], 'allowedMethods is empty, so no call can pass.'],
  ['allowedTargets empty', [{ type: 'allowedTargets', targets: [] }], 'allowedTargets is empty, so no call can pass.'],
  ['two dailySpendLimits disagree', [daily(1000), daily(500)], 'Two dailySpendLimit caveats disagree: $1,000.00/day and $500.00/day.'],
  ['two identical dailySpendLimits agree', [daily(1000), daily(1000)], null],
  [
    'two allowedTargets disagree',
    [
      { type: 'allowedTargets', targets: [WETH] },
      { type: 'allowedTargets', targets: [ROUTER] },
    ],
    'Two allowedTargets caveats disagree: [WETH] and [the Uniswap router].',
  ],
  [
    'vaultNav on two vaults are independent',
    [
      { type: 'vaultNav', vault: VAULT, maxNavBps: 500 },
      { type: 'vaultNav', vault: WETH, maxNavBps: 100 },
    ],
    null,
  ],
  [
    'period amount 0',
    [{ ...usdcPeriod, periodAmount: 0n } as DecodedCaveat],
    'erc20PeriodTransfer periodAmount is 0, so nothing can ever be transferred.',
  ],
  [
    'native period duration 0',
    [{ ...gas, periodDuration: 0n } as DecodedCaveat],
    'nativeTokenPeriodTransfer periodDuration is 0 seconds, which the enforcer refuses.',
  ],
  ['limitedCalls 0', [{ type: 'limitedCalls', limit: 0n }], 'limitedCalls is 0, so no call can pass.'],
  [
    'allowedCalldata pinning no bytes',
    [{ type: 'allowedCalldata', startIndex: 4n, value: '0x' }],
    'allowedCalldata pins no bytes at byte 4, so it restricts nothing.',
  ],
  [
    'two allowedCalldata pins at one byte disagree',
    [
      { type: 'allowedCalldata', startIndex: 4n, value: pad(ROUTER) },
      { type: 'allowedCalldata', startIndex: 4n, value: pad(VAULT) },
    ],
    'Two allowedCalldata caveats disagree: the Uniswap router at byte 4 and the USDC vault at byte 4.',
  ],
  [
    'allowedCalldata pins at different bytes are independent',
    [
      { type: 'allowedCalldata', startIndex: 4n, value: pad(ROUTER) },
      { type: 'allowedCalldata', startIndex: 36n, value: pad('0x01') },
    ],
    null,
  ],
  [
    'golemPhase masks all zero',
    [{ type: 'golemPhase', golem: GOLEM, phaseMasks: [0, 0, 0, 0, 0] }],
    'golemPhase allows no action class in any phase.',
  ],
  // golemPhase with its window reads like a mortalityTimeWindow.
  [
    'golemPhase window empty (built by hand: the decoder refuses it)',
    [{ type: 'golemPhase', golem: GOLEM, startTime: DEC_21_2026, endTime: NOW }],
    'golemPhase window is empty: from 21 Dec 2026 to 1 Jan 2026.',
  ],
  [
    'golemPhase window already expired',
    [{ type: 'golemPhase', golem: GOLEM, startTime: NOW - DAY, endTime: NOW - 1n }],
    'golemPhase window already expired at 31 Dec 2025 23:59:59 UTC, before now (1 Jan 2026).',
  ],
  [
    'golemPhase window ending this very second is still valid',
    [{ type: 'golemPhase', golem: GOLEM, startTime: NOW - DAY, endTime: NOW }],
    null,
  ],
  ['golemPhase one-second window now is valid', [{ type: 'golemPhase', golem: GOLEM, startTime: NOW, endTime: NOW }], null],
  [
    'golemPhase window disjoint from a timestamp',
    [
      { type: 'timestamp', afterThreshold: 0n, beforeThreshold: FEB_1 },
      { type: 'golemPhase', golem: GOLEM, startTime: MAR_1, endTime: DEC_21_2026 },
    ],
    'timestamp until 1 Feb 2026 and golemPhase from 1 Mar 2026 to 21 Dec 2026 do not overlap, so no moment satisfies both.',
  ],
  [
    'golemPhase window disjoint from a mortality window',
    [
      { type: 'golemPhase', golem: GOLEM, startTime: NOW, endTime: FEB_1 },
      { type: 'mortalityTimeWindow', startTime: MAR_1, endTime: DEC_21_2026 },
    ],
    'golemPhase from 1 Jan 2026 to 1 Feb 2026 and mortalityTimeWindow from 1 Mar 2026 to 21 Dec 2026 do not overlap, so no moment satisfies both.',
  ],
  [
    'a child mortality window disjoint from an inherited golemPhase window',
    [{ type: 'mortalityTimeWindow', startTime: MAR_1, endTime: DEC_21_2026 }],
    'golemPhase from 1 Jan 2026 to 1 Feb 2026 and mortalityTimeWindow from 1 Mar 2026 to 21 Dec 2026 do not overlap, so no moment satisfies both.',
    [{ type: 'golemPhase', golem: GOLEM, startTime: NOW, endTime: FEB_1 }],
  ],
  [
    'two golemPhase caveats for one Golem with different windows disagree',
    [
      { type: 'golemPhase', golem: GOLEM, startTime: NOW, endTime: DEC_21_2026 },
      { type: 'golemPhase', golem: GOLEM, startTime: NOW, endTime: FEB_1 },
    ],
    'Two golemPhase caveats disagree: [0x1f, 0x17, 0x16, 0x16, 0x10] from 1 Jan 2026 to 21 Dec 2026 and [0x1f, 0x17, 0x16, 0x16, 0x10] from 1 Jan 2026 to 1 Feb 2026.',
  ],
  [
    'golemPhase window overlapping a mortality window',
    [
      { type: 'golemPhase', golem: GOLEM, startTime: NOW, endTime: MAR_1 },
      { type: 'mortalityTimeWindow', startTime: FEB_1, endTime: DEC_21_2026 },
    ],
    null,
  ],
  [
    'replicantBudget lifespan 0',
    [{ type: 'replicantBudget', maxBudgetUsd: USD(5), maxLifespanSeconds: 0n, maxPriceAge: 60, feeds: FEEDS }],
    'replicantBudget maxLifespanSeconds is 0, so it expires at its first use.',
  ],
  ['dailySpendLimit pricing nothing', [daily(1000, [])], 'dailySpendLimit prices no token (feeds is empty), so it caps nothing.'],
  [
    'maxSlippage pricing nothing',
    [{ type: 'maxSlippage', maxSlippageBps: 50, maxPriceAge: 60, feeds: [] }],
    'maxSlippage prices no token (feeds is empty), so every swap it sees is refused.',
  ],
  [
    'emotionalState restricting nothing',
    [{ type: 'emotionalState', golem: GOLEM, minPleasure: 0, maxArousal: 0, minDominance: 0, restrictedSelectors: [] }],
    'emotionalState restricts no selectors, so it never applies.',
  ],
  [
    'ERC-20 period with a native period',
    [usdcPeriod, gas],
    'erc20PeriodTransfer admits only zero-value transfers of USDC, so nativeTokenPeriodTransfer 0.01 ETH/day can never be spent.',
  ],
  [
    'ERC-20 period and total on different tokens',
    [usdcPeriod, { type: 'erc20TransferAmount', tokenAddress: WETH, maxAmount: ETH }],
    'erc20PeriodTransfer on USDC and erc20TransferAmount on WETH each admit only transfers of their own token, so no call satisfies both.',
  ],
  [
    'ERC-20 period with targets that exclude its token',
    [usdcPeriod, { type: 'allowedTargets', targets: [ROUTER] }],
    'allowedTargets [the Uniswap router] excludes USDC, the only target erc20PeriodTransfer admits.',
  ],
  [
    'ERC-20 period with extra targets',
    [usdcPeriod, { type: 'allowedTargets', targets: [USDC, ROUTER] }],
    'allowedTargets lists the Uniswap router, but erc20PeriodTransfer admits only transfer() calls on USDC.',
  ],
  [
    'ERC-20 period with methods that exclude transfer',
    [usdcPeriod, { type: 'allowedMethods', selectors: [APPROVE] }],
    'allowedMethods [approve] excludes transfer, the only function erc20PeriodTransfer admits.',
  ],
  [
    'ERC-20 period with extra methods',
    [usdcPeriod, { type: 'allowedMethods', selectors: [TRANSFER, APPROVE] }],
    'allowedMethods lists approve, but erc20PeriodTransfer admits only transfer() calls on USDC.',
  ],
  [
    'ERC-20 period with exactly its token and transfer',
    [usdcPeriod, { type: 'allowedTargets', targets: [USDC] }, { type: 'allowedMethods', selectors: [TRANSFER] }],
    null,
  ],
  [
    'USD cap without a feed for the period token',
    [usdcPeriod, daily(1000, [{ token: WETH, decimals: 18, feed: FEED_ETH }])],
    'dailySpendLimit has no price feed for USDC, the token erc20PeriodTransfer moves, so those transfers would count $0.00.',
  ],
  [
    'USD cap without a native feed, with a native allowance',
    [gas, daily(1000, [{ token: USDC, decimals: 6, feed: FEED_USDC }])],
    'dailySpendLimit has no price feed for native ETH, so nativeTokenPeriodTransfer 0.01 ETH/day can never be spent.',
  ],
  [
    'time windows that do not overlap',
    [
      { type: 'timestamp', afterThreshold: 0n, beforeThreshold: FEB_1 },
      { type: 'mortalityTimeWindow', startTime: MAR_1, endTime: DEC_21_2026 },
    ],
    'timestamp until 1 Feb 2026 and mortalityTimeWindow from 1 Mar 2026 to 21 Dec 2026 do not overlap, so no moment satisfies both.',
  ],
  [
    'plain-transfer calldata with allowedMethods',
    [
      { type: 'exactCalldata', calldata: '0x' },
      { type: 'allowedMethods', selectors: [TRANSFER] },
    ],
    'allowedMethods [transfer] cannot match: exactCalldata 0x admits only calls without calldata.',
  ],
  ['the kit ERC-7715 erc20 shape is consistent', [{ type: 'valueLte', maxValue: 0n }, usdcPeriod], null],
  [
    'the kit native shape plus a gas recipient is consistent',
    [{ type: 'exactCalldata', calldata: '0x' }, gas, { type: 'allowedTargets', targets: [GOLEM] }],
    null,
  ],
  [
    'a child native allowance under an inherited valueLte 0',
    [gas],
    'valueLte 0 ETH forbids native value, so nativeTokenPeriodTransfer 0.01 ETH/day can never be spent.',
    [{ type: 'valueLte', maxValue: 0n }, usdcPeriod],
  ],
  [
    'a child swap target under an inherited ERC-20 period',
    [{ type: 'allowedTargets', targets: [ROUTER] }],
    'allowedTargets [the Uniswap router] excludes USDC, the only target erc20PeriodTransfer admits.',
    [usdcPeriod],
  ],
  [
    'an inherited-only problem is not blamed on the child',
    [{ type: 'limitedCalls', limit: 3n }],
    null,
    [{ type: 'valueLte', maxValue: 0n }, gas],
  ],
  ['an ETH-priced USD cap with a native feed', [gas, daily(10, [{ token: zeroAddress, decimals: 18, feed: FEED_ETH }])], null],
]

describe('contradictions', () => {
  it.each(cases)('%s', (_name, own, refusal, inherited) => {
    const error = findContradiction(own, { now: NOW, labels: LABELS, ...(inherited ? { inherited } : {}) })
    if (refusal === null) {
      expect(error).toBeUndefined()
    } else {
      expect(error).toBeInstanceOf(ContradictionError)
      expect(error!.message).toBe(refusal)
      expect(error!.code).toBe('CONTRADICTORY_CAVEATS')
    }
  })
})
