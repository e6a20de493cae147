import fc from 'fast-check'
import {
  bytesToHex,
  concatHex,
  decodeAbiParameters,
  encodeAbiParameters,
  encodePacked,
  padHex,
  parseAbiParameters,
  toHex,
  zeroAddress,
  type Hex,
} from 'viem'
import { describe, expect, it } from 'vitest'
import { decodeBardoTerms } from './decodeBardoTerms.ts'
import { encodeBardoTerms } from './encodeBardoTerms.ts'
import { CaveatConfigError, InvalidTermsError } from './errors.ts'
import { bardoCaveatOf } from '../../test/support/caveats/arbitraries.ts'
import { BARDO_CAVEAT_TYPES, RUNWAY_PHASE_MASKS, type BardoCaveat, type BardoCaveatType } from './types.ts'

const GOLEM = '0x1111111111111111111111111111111111111111'
const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
const FEED_USDC = '0x8fFfFfd4AfB6115b954Bd326cbe7B4BA576818f6'
const FEED_ETH = '0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8419'
const VAULT = '0x2222222222222222222222222222222222222222'
const AUTHOR = '0x3333333333333333333333333333333333333333'

/** One 32-byte word, built by hand: the independent reference for docs/contracts.md's layouts. */
const word = (v: bigint | number | Hex): Hex =>
  typeof v === 'string' ? padHex(v.toLowerCase() as Hex, { size: 32 }) : toHex(BigInt.asUintN(256, BigInt(v)), { size: 32 })
const leftWord = (v: Hex): Hex => padHex(v, { size: 32, dir: 'right' })

/** Every field name a decoder may blame, per caveat (the "names the field" promise). */
const FIELDS: Record<BardoCaveatType, string[]> = {
  golemPhase: ['golem', 'phaseMasks', 'startTime', 'endTime'],
  mortalityTimeWindow: ['startTime', 'endTime'],
  dreamMode: ['golem'],
  emotionalState: ['golem', 'minPleasure', 'maxArousal', 'minDominance', 'restrictedSelectors', 'restrictedSelectors.length'],
  vaultNav: ['vault', 'maxNavBps'],
  dailySpendLimit: ['dailyLimitUsd', 'maxPriceAge', 'feeds', 'feeds.length'],
  replicantBudget: ['maxBudgetUsd', 'maxLifespanSeconds', 'maxPriceAge', 'feeds', 'feeds.length'],
  maxSlippage: ['maxSlippageBps', 'maxPriceAge', 'feeds', 'feeds.length'],
  knowledgeRoyalty: ['token', 'author', 'royaltyBps'],
  policyCage: ['terms', 'policyCage', 'golem', 'maxPriceAge', 'constitution', 'feeds'],
}

const isValid = (type: BardoCaveatType, terms: Hex) => {
  try {
    decodeBardoTerms(type, terms)
    return true
  } catch {
    return false
  }
}

function expectFieldError(type: BardoCaveatType, terms: Hex) {
  let caught: unknown
  try {
    decodeBardoTerms(type, terms)
  } catch (error) {
    caught = error
  }
  expect(caught).toBeInstanceOf(InvalidTermsError)
  const e = caught as InvalidTermsError
  expect(e.caveat).toBe(type)
  expect(FIELDS[type]).toContain(e.field)
  expect(e.message).toContain(`${type} terms: ${e.field} `)
}

describe.each(BARDO_CAVEAT_TYPES)('%s terms', (type) => {
  const arb = bardoCaveatOf[type]() as fc.Arbitrary<Parameters<typeof encodeBardoTerms>[0]>

  it('round-trips: decode(encode(c)) equals c and encode(decode(t)) equals t', () => {
    fc.assert(
      fc.property(arb, (c) => {
        const terms = encodeBardoTerms(c)
        const back = decodeBardoTerms(type, terms)
        expect(back).toEqual(c)
        expect(encodeBardoTerms(back)).toBe(terms)
      }),
      { numRuns: 150 },
    )
  })

  it('refuses truncated terms with an error naming the field', () => {
    fc.assert(
      fc.property(arb, fc.nat(), (c, cut) => {
        const terms = encodeBardoTerms(c)
        const bytes = (terms.length - 2) / 2
        const keep = cut % bytes
        const truncated = `0x${terms.slice(2, 2 + keep * 2)}` as Hex
        fc.pre(!isValid(type, truncated)) // a 25-byte golemPhase cut to 20 bytes is the valid short form (41 to 36 or 25 may be too)
        expectFieldError(type, truncated)
      }),
      { numRuns: 100 },
    )
  })

  it('refuses trailing bytes with an error naming the field', () => {
    fc.assert(
      fc.property(arb, fc.uint8Array({ minLength: 1, maxLength: 70 }), (c, extra) => {
        const longer = concatHex([encodeBardoTerms(c), bytesToHex(extra)])
        fc.pre(!isValid(type, longer)) // 20-byte golemPhase + 5 or 16 bytes is a valid longer form
        expectFieldError(type, longer)
      }),
      { numRuns: 100 },
    )
  })
})

describe('layouts match docs/contracts.md byte for byte', () => {
  it('GolemPhase: abi.encodePacked(address golem) or (address golem, bytes5 phaseMasks)', () => {
    expect(encodeBardoTerms({ type: 'golemPhase', golem: GOLEM })).toBe(GOLEM.toLowerCase())
    expect(encodeBardoTerms({ type: 'golemPhase', golem: GOLEM, phaseMasks: [0x1f, 0x17, 0x16, 0x16, 0x10] })).toBe(
      `${GOLEM.toLowerCase()}1f17161610`,
    )
    expect(encodeBardoTerms({ type: 'golemPhase', golem: GOLEM, phaseMasks: [1, 2, 3, 4, 5] })).toBe(
      encodePacked(['address', 'bytes5'], [GOLEM, '0x0102030405']),
    )
  })

  it('GolemPhase with a window: abi.encodePacked(address golem[, bytes5 phaseMasks], uint64 startTime, uint64 endTime)', () => {
    const window = { startTime: 1_780_000_000n, endTime: 1_797_811_200n }
    const t36 = encodeBardoTerms({ type: 'golemPhase', golem: GOLEM, ...window })
    expect(t36).toBe(`${GOLEM.toLowerCase()}${'000000006a18a500'}${'000000006b286c00'}`)
    expect(t36).toBe(encodePacked(['address', 'uint64', 'uint64'], [GOLEM, window.startTime, window.endTime]).toLowerCase())
    expect((t36.length - 2) / 2).toBe(36)
    const t41 = encodeBardoTerms({ type: 'golemPhase', golem: GOLEM, phaseMasks: [1, 2, 3, 4, 5], ...window })
    expect(t41).toBe(
      encodePacked(['address', 'bytes5', 'uint64', 'uint64'], [GOLEM, '0x0102030405', window.startTime, window.endTime]).toLowerCase(),
    )
    expect((t41.length - 2) / 2).toBe(41)
    // The extremes of uint64 and a one-second window (inclusive, so valid).
    const max = (1n << 64n) - 1n
    expect(encodeBardoTerms({ type: 'golemPhase', golem: GOLEM, startTime: 0n, endTime: max })).toBe(
      `${GOLEM.toLowerCase()}${'0'.repeat(16)}${'f'.repeat(16)}`,
    )
    expect(decodeBardoTerms('golemPhase', encodeBardoTerms({ type: 'golemPhase', golem: GOLEM, startTime: 7n, endTime: 7n }))).toEqual({
      type: 'golemPhase',
      golem: GOLEM,
      startTime: 7n,
      endTime: 7n,
    })
  })

  it('GolemPhase runway terms: abi.encodePacked(address golem, uint48 startTime, uint48 endTime), 32 bytes', () => {
    const window = { startTime: 1_780_000_000n, endTime: 1_797_811_200n }
    const t32 = encodeBardoTerms({ type: 'golemPhase', golem: GOLEM, ...window, runway: true })
    expect(t32).toBe(`${GOLEM.toLowerCase()}${'00006a18a500'}${'00006b286c00'}`)
    expect(t32).toBe(encodePacked(['address', 'uint48', 'uint48'], [GOLEM, Number(window.startTime), Number(window.endTime)]).toLowerCase())
    // Decoded with the masks the enforcer applies, and encoded back to the same bytes.
    const decoded = decodeBardoTerms('golemPhase', t32)
    expect(decoded).toEqual({ type: 'golemPhase', golem: GOLEM, phaseMasks: RUNWAY_PHASE_MASKS, ...window, runway: true })
    expect(encodeBardoTerms(decoded)).toBe(t32)
    const max = (1n << 48n) - 1n
    expect(encodeBardoTerms({ type: 'golemPhase', golem: GOLEM, startTime: max, endTime: max, runway: true })).toBe(
      `${GOLEM.toLowerCase()}${'f'.repeat(24)}`,
    )
    // runway: false is the table's shape.
    expect(encodeBardoTerms({ type: 'golemPhase', golem: GOLEM, ...window, runway: false })).toBe(
      encodeBardoTerms({ type: 'golemPhase', golem: GOLEM, ...window }),
    )
  })

  it('MortalityTimeWindow: abi.encode(uint256 startTime, uint256 endTime), 64 bytes', () => {
    const t = encodeBardoTerms({ type: 'mortalityTimeWindow', startTime: 1_780_000_000n, endTime: 1_797_811_200n })
    expect(t).toBe(concatHex([word(1_780_000_000n), word(1_797_811_200n)]))
    expect(t).toBe(encodeAbiParameters(parseAbiParameters('uint256 startTime, uint256 endTime'), [1_780_000_000n, 1_797_811_200n]))
  })

  it('DreamMode: abi.encodePacked(address golem), 20 bytes', () => {
    expect(encodeBardoTerms({ type: 'dreamMode', golem: GOLEM })).toBe(encodePacked(['address'], [GOLEM]).toLowerCase())
  })

  it('EmotionalState: abi.encode(address, int8, int8, int8, bytes4[]) with sign-extended int8 words', () => {
    const t = encodeBardoTerms({
      type: 'emotionalState',
      golem: GOLEM,
      minPleasure: -20,
      maxArousal: 60,
      minDominance: -128,
      restrictedSelectors: ['0x04e45aaf', '0x095ea7b3'],
    })
    const expected = concatHex([
      word(GOLEM),
      word(-20),
      word(60),
      word(-128),
      word(0xa0),
      word(2),
      leftWord('0x04e45aaf'),
      leftWord('0x095ea7b3'),
    ])
    expect(t).toBe(expected)
    expect(word(-20)).toBe(`0x${'f'.repeat(62)}ec`)
    const viem = encodeAbiParameters(
      parseAbiParameters('address golem, int8 minPleasure, int8 maxArousal, int8 minDominance, bytes4[] restrictedSelectors'),
      [GOLEM, -20, 60, -128, ['0x04e45aaf', '0x095ea7b3']],
    )
    expect(t).toBe(viem)
  })

  it('VaultNAV: abi.encode(address vault, uint16 maxNavBps)', () => {
    expect(encodeBardoTerms({ type: 'vaultNav', vault: VAULT, maxNavBps: 500 })).toBe(concatHex([word(VAULT), word(500)]))
  })

  it('DailySpendLimit: abi.encode(uint256, uint32, TokenFeed[]) with the tuple array in the tail', () => {
    const feeds = [
      { token: USDC, decimals: 6, feed: FEED_USDC },
      { token: zeroAddress, decimals: 18, feed: FEED_ETH },
    ] as const
    const t = encodeBardoTerms({ type: 'dailySpendLimit', dailyLimitUsd: 1_000_000_000n, maxPriceAge: 3600, feeds })
    const expected = concatHex([
      word(1_000_000_000n),
      word(3600),
      word(0x60),
      word(2),
      word(USDC),
      word(6),
      word(FEED_USDC),
      word(zeroAddress),
      word(18),
      word(FEED_ETH),
    ])
    expect(t).toBe(expected)
    const abi = parseAbiParameters('uint256 dailyLimitUsd, uint32 maxPriceAge, (address token, uint8 decimals, address feed)[] feeds')
    expect(t).toBe(encodeAbiParameters(abi, [1_000_000_000n, 3600, [...feeds]]))
    // What Solidity's abi.decode (and so getTermsInfo) reads back:
    expect(decodeAbiParameters(abi, t)).toEqual([1_000_000_000n, 3600, [...feeds]])
  })

  it('ReplicantBudget: abi.encode(uint256, uint64, uint32, TokenFeed[])', () => {
    const t = encodeBardoTerms({
      type: 'replicantBudget',
      maxBudgetUsd: 50_000_000n,
      maxLifespanSeconds: 86_400n,
      maxPriceAge: 900,
      feeds: [{ token: USDC, decimals: 6, feed: FEED_USDC }],
    })
    expect(t).toBe(concatHex([word(50_000_000n), word(86_400n), word(900), word(0x80), word(1), word(USDC), word(6), word(FEED_USDC)]))
  })

  it('MaxSlippage: abi.encode(uint16, uint32, TokenFeed[]); an empty feed list still has its length word', () => {
    const t = encodeBardoTerms({ type: 'maxSlippage', maxSlippageBps: 50, maxPriceAge: 600, feeds: [] })
    expect(t).toBe(concatHex([word(50), word(600), word(0x60), word(0)]))
  })

  it('KnowledgeRoyalty: abi.encode(address token, address author, uint16 royaltyBps)', () => {
    expect(encodeBardoTerms({ type: 'knowledgeRoyalty', token: USDC, author: AUTHOR, royaltyBps: 1000 })).toBe(
      concatHex([word(USDC), word(AUTHOR), word(1000)]),
    )
  })
})

describe('decoders refuse what getTermsInfo refuses, naming the field', () => {
  const cases: [BardoCaveatType, Hex, string, string][] = [
    [
      'golemPhase',
      '0x1111',
      'golem',
      'golemPhase terms: golem is missing or truncated: terms are 2 bytes, need 20, 25, 32, 36 or 41 (golem[, phaseMasks][, startTime, endTime])',
    ],
    [
      'golemPhase',
      `${GOLEM}0102`,
      'phaseMasks',
      'golemPhase terms: phaseMasks is truncated: terms are 22 bytes, must be 20, 25, 32, 36 or 41',
    ],
    [
      'golemPhase',
      `${GOLEM}1f1716161000`,
      'startTime',
      'golemPhase terms: startTime is truncated: terms are 26 bytes, must be 20, 25, 32, 36 or 41',
    ],
    [
      'golemPhase',
      `${GOLEM}000000006a18a500000000`,
      'endTime',
      'golemPhase terms: endTime is truncated: terms are 31 bytes, must be 20, 25, 32, 36 or 41',
    ],
    [
      'golemPhase',
      `${GOLEM}000000006a18a500000000006b286c0000`,
      'endTime',
      'golemPhase terms: endTime is truncated: terms are 37 bytes, must be 20, 25, 32, 36 or 41',
    ],
    [
      'golemPhase',
      `${GOLEM}1f17161610000000006a18a500000000006b286c0000`,
      'endTime',
      'golemPhase terms: endTime is followed by 1 unexpected bytes: terms are 42 bytes, must be 20, 25, 32, 36 or 41',
    ],
    [
      'golemPhase',
      `${GOLEM}00006b286c0000006a18a500`,
      'endTime',
      'golemPhase terms: endTime must not be before startTime (1797811200), got 1780000000',
    ],
    [
      'golemPhase',
      `${GOLEM}000000006b286c00000000006a18a500`,
      'endTime',
      'golemPhase terms: endTime must not be before startTime (1797811200), got 1780000000',
    ],
    [
      'golemPhase',
      `${GOLEM}1f17161610000000006b286c00000000006a18a500`,
      'endTime',
      'golemPhase terms: endTime must not be before startTime (1797811200), got 1780000000',
    ],
    ['dreamMode', `${GOLEM}00`, 'golem', 'dreamMode terms: golem is followed by 1 unexpected bytes: terms must be exactly 20 bytes'],
    [
      'mortalityTimeWindow',
      concatHex([word(10), word(10)]),
      'endTime',
      'mortalityTimeWindow terms: endTime must be after startTime (10), got 10',
    ],
    [
      'mortalityTimeWindow',
      word(10),
      'endTime',
      'mortalityTimeWindow terms: endTime is missing or truncated: terms are 32 bytes, the head needs 64',
    ],
    ['vaultNav', concatHex([word(VAULT), word(0)]), 'maxNavBps', 'vaultNav terms: maxNavBps must be from 1 to 10000, got 0'],
    ['vaultNav', concatHex([word(VAULT), word(70_000)]), 'maxNavBps', 'vaultNav terms: maxNavBps does not fit uint16'],
    [
      'vaultNav',
      concatHex([word(`0x01${'0'.repeat(22)}${VAULT.slice(2)}`), word(5)]),
      'vault',
      'vaultNav terms: vault is not a clean address word (the high 12 bytes must be zero)',
    ],
    [
      'knowledgeRoyalty',
      concatHex([word(USDC), word(AUTHOR), word(10_001)]),
      'royaltyBps',
      'knowledgeRoyalty terms: royaltyBps must be at most 10000, got 10001',
    ],
    [
      'emotionalState',
      concatHex([word(GOLEM), word(200), word(0), word(0), word(0xa0), word(0)]),
      'minPleasure',
      'emotionalState terms: minPleasure is not a sign-extended int8 (-128..127)',
    ],
    [
      'emotionalState',
      concatHex([word(GOLEM), word(0), word(0), word(0), word(0xc0), word(0)]),
      'restrictedSelectors',
      'emotionalState terms: restrictedSelectors offset must be 160, got 192',
    ],
    [
      'emotionalState',
      concatHex([word(GOLEM), word(0), word(0), word(0), word(0xa0), word(1), word('0x04e45aaf')]),
      'restrictedSelectors[0]',
      'emotionalState terms: restrictedSelectors[0] is not a clean bytes4 word (the low 28 bytes must be zero)',
    ],
    [
      'dailySpendLimit',
      concatHex([word(1), word(1), word(0x60), word(2), word(USDC), word(6), word(FEED_USDC)]),
      'feeds',
      'dailySpendLimit terms: feeds declares 2 entries (192 bytes) but 96 bytes follow its length word',
    ],
    [
      'dailySpendLimit',
      concatHex([word(1), word(1), word(0x60), word(1), word(USDC), word(300), word(FEED_USDC)]),
      'feeds[0].decimals',
      'dailySpendLimit terms: feeds[0].decimals does not fit uint8',
    ],
    [
      'dailySpendLimit',
      concatHex([word(1), word(1), word(0x60), word(1), word(zeroAddress), word(6), word(FEED_ETH)]),
      'feeds[0].decimals',
      'dailySpendLimit terms: feeds[0].decimals must be 18 for native ETH (token 0x0), got 6',
    ],
    [
      'replicantBudget',
      concatHex([word(1), word(1), word(1), word(0x80), word(1), word(USDC), word(6), word(0)]),
      'feeds[0].feed',
      'replicantBudget terms: feeds[0].feed must not be the zero address',
    ],
    [
      'maxSlippage',
      concatHex([word(10_001), word(600), word(0x60), word(0)]),
      'maxSlippageBps',
      'maxSlippage terms: maxSlippageBps must be at most 10000, got 10001',
    ],
    [
      'replicantBudget',
      concatHex([word(1), word(1n << 64n), word(1), word(0x80), word(0)]),
      'maxLifespanSeconds',
      'replicantBudget terms: maxLifespanSeconds does not fit uint64',
    ],
    [
      'maxSlippage',
      concatHex([word(50), word(600), word(0x60)]),
      'feeds.length',
      'maxSlippage terms: feeds.length is missing: terms are 96 bytes, need at least 128',
    ],
  ]
  it.each(cases)('%s %s', (type, terms, field, message) => {
    expect(() => decodeBardoTerms(type, terms)).toThrowError(message)
    try {
      decodeBardoTerms(type, terms)
    } catch (error) {
      expect((error as InvalidTermsError).field).toBe(field)
    }
  })
})

describe('encoders refuse values the enforcer would refuse', () => {
  const bad: [Parameters<typeof encodeBardoTerms>[0], string][] = [
    [{ type: 'mortalityTimeWindow', startTime: 5n, endTime: 5n }, 'mortalityTimeWindow.endTime must be after startTime (5), got 5'],
    [{ type: 'vaultNav', vault: VAULT, maxNavBps: 0 }, 'vaultNav.maxNavBps must be an integer from 1 to 10000, got 0'],
    [
      { type: 'golemPhase', golem: GOLEM, phaseMasks: [0x1f, 0x20, 0, 0, 0] },
      'golemPhase.phaseMasks[1] must be an integer from 0 to 31, got 32',
    ],
    [{ type: 'golemPhase', golem: GOLEM, startTime: 6n, endTime: 5n }, 'golemPhase.endTime must not be before startTime (6), got 5'],
    [
      { type: 'golemPhase', golem: GOLEM, startTime: 0n, endTime: 1n << 64n },
      'golemPhase.endTime must be a bigint from 0 to 18446744073709551615, got 18446744073709551616',
    ],
    [
      { type: 'golemPhase', golem: GOLEM, startTime: 0n, endTime: 1n << 48n, runway: true },
      'golemPhase.endTime must be a bigint from 0 to 281474976710655, got 281474976710656',
    ],
    [
      { type: 'golemPhase', golem: GOLEM, startTime: 6n, endTime: 5n, runway: true },
      'golemPhase.endTime must not be before startTime (6), got 5',
    ],
    [
      { type: 'golemPhase', golem: GOLEM, runway: true } as unknown as BardoCaveat,
      'golemPhase.startTime runway terms carry the life window: give startTime and endTime',
    ],
    [
      { type: 'golemPhase', golem: GOLEM, phaseMasks: [0x1f, 0x17, 0x16, 0x16, 0x10], startTime: 5n, endTime: 6n, runway: true },
      'golemPhase.phaseMasks must be left out on runway terms (they allow plain transfers only)',
    ],
    [
      { type: 'golemPhase', golem: GOLEM, startTime: 5n } as unknown as BardoCaveat,
      'golemPhase.endTime must be given with startTime (a window has both bounds, or none)',
    ],
    [
      { type: 'golemPhase', golem: GOLEM, endTime: 5n } as unknown as BardoCaveat,
      'golemPhase.startTime must be given with endTime (a window has both bounds, or none)',
    ],
    [
      { type: 'emotionalState', golem: GOLEM, minPleasure: 0, maxArousal: 0, minDominance: 0, restrictedSelectors: ['0x1234'] },
      'emotionalState.restrictedSelectors[0] must be a 4-byte selector',
    ],
    [
      { type: 'dailySpendLimit', dailyLimitUsd: 1n, maxPriceAge: 1, feeds: [{ token: zeroAddress, decimals: 6, feed: FEED_ETH }] },
      'dailySpendLimit.feeds[0].decimals must be 18 for native ETH (token 0x0)',
    ],
    [
      {
        type: 'maxSlippage',
        maxSlippageBps: 1,
        maxPriceAge: 1,
        feeds: [
          { token: USDC, decimals: 6, feed: FEED_USDC },
          { token: USDC.toLowerCase() as Hex, decimals: 6, feed: FEED_USDC },
        ],
      },
      `maxSlippage.feeds[1].token lists ${USDC.toLowerCase()} twice`,
    ],
    [{ type: 'knowledgeRoyalty', token: USDC, author: '0x12', royaltyBps: 1 }, 'knowledgeRoyalty.author must be a 20-byte address'],
    [
      { type: 'dailySpendLimit', dailyLimitUsd: 1n, maxPriceAge: 1, feeds: [{ token: USDC, decimals: 6, feed: zeroAddress }] },
      'dailySpendLimit.feeds[0].feed must not be the zero address',
    ],
    [
      { type: 'maxSlippage', maxSlippageBps: 10_001, maxPriceAge: 1, feeds: [] },
      'maxSlippage.maxSlippageBps must be an integer from 0 to 10000, got 10001',
    ],
    [
      { type: 'replicantBudget', maxBudgetUsd: -1n, maxLifespanSeconds: 1n, maxPriceAge: 1, feeds: [] },
      'replicantBudget.maxBudgetUsd must be a bigint from 0 to',
    ],
  ]
  it.each(bad)('%o', (c, message) => {
    expect(() => encodeBardoTerms(c)).toThrowError(CaveatConfigError)
    expect(() => encodeBardoTerms(c)).toThrowError(message)
  })
})
