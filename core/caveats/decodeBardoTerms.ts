import { bytesToHex, getAddress, size, zeroAddress, type Address, type Hex } from 'viem'
import { ConstitutionError } from '../policy/constitution.ts'
import { decodeConstitution } from '../policy/constitutionHash.ts'
import { readAbiTerms, readWord, termsBytes, wordAt, type Field, type WordValue } from './abiWords.ts'
import { InvalidTermsError } from './errors.ts'
import {
  isBardoCaveatType,
  RUNWAY_PHASE_MASKS,
  type BardoCaveatOf,
  type BardoCaveatType,
  type GolemPhaseCaveat,
  type PhaseMasks,
  type TokenFeed,
} from './types.ts'

const FEED: readonly Field[] = [
  ['token', 'address'],
  ['decimals', 'uint8'],
  ['feed', 'address'],
]

/** The enforcers' UsdValuation.validateFeeds: a feed must exist, and native ETH (token 0x0) has 18 decimals. */
const toFeeds = (caveat: string, items: WordValue[][]): TokenFeed[] =>
  items.map(([token, decimals, feed], i) => {
    if ((feed as Address) === zeroAddress) throw new InvalidTermsError(caveat, `feeds[${i}].feed`, 'must not be the zero address')
    if ((token as Address) === zeroAddress && decimals !== 18) {
      throw new InvalidTermsError(caveat, `feeds[${i}].decimals`, `must be 18 for native ETH (token 0x0), got ${decimals}`)
    }
    return { token: token as Address, decimals: decimals as number, feed: feed as Address }
  })

const GOLEM_PHASE_LENGTHS = '20, 25, 32, 36 or 41'

function packedGolem(caveat: 'golemPhase' | 'dreamMode', terms: Hex): { golem: Address; rest: Uint8Array } {
  const bytes = termsBytes(caveat, terms)
  const allowed = caveat === 'golemPhase' ? `${GOLEM_PHASE_LENGTHS} (golem[, phaseMasks][, startTime, endTime])` : '20 (golem)'
  if (bytes.length < 20) {
    throw new InvalidTermsError(caveat, 'golem', `is missing or truncated: terms are ${bytes.length} bytes, need ${allowed}`, {
      length: bytes.length,
    })
  }
  return { golem: getAddress(bytesToHex(bytes.subarray(0, 20))), rest: bytes.subarray(20) }
}

const uint64At = (bytes: Uint8Array, at: number): bigint => BigInt(bytesToHex(bytes.subarray(at, at + 8)))

/** GolemPhase's packed terms by length: 20, 25 (+ phaseMasks), 32 (runway), 36 (+ window), 41 (+ both). */
function golemPhase(terms: Hex): GolemPhaseCaveat {
  const type = 'golemPhase'
  const { golem, rest } = packedGolem(type, terms)
  const length = 20 + rest.length
  const wrong = (field: string, rule: string) =>
    new InvalidTermsError(type, field, `${rule}: terms are ${length} bytes, must be ${GOLEM_PHASE_LENGTHS}`, { length })
  if (rest.length === 0) return { type, golem }
  if (rest.length < 5) throw wrong('phaseMasks', 'is truncated')
  if (rest.length === 5) return { type, golem, phaseMasks: Array.from(rest) as unknown as PhaseMasks }
  // Runway terms: the window as two uint48s, masks fixed by the enforcer (an inverted window refuses every redemption).
  if (rest.length === 12) {
    const startTime = BigInt(bytesToHex(rest.subarray(0, 6)))
    const endTime = BigInt(bytesToHex(rest.subarray(6, 12)))
    if (endTime < startTime)
      throw new InvalidTermsError(type, 'endTime', `must not be before startTime (${startTime}), got ${endTime}`, { length })
    return { type, golem, phaseMasks: RUNWAY_PHASE_MASKS, startTime, endTime, runway: true }
  }
  // From here a window follows the Golem (36 bytes) or its masks (41 bytes).
  if (rest.length > 21) throw wrong('endTime', `is followed by ${rest.length - 21} unexpected bytes`)
  const masks = rest.length === 21 ? rest.subarray(0, 5) : undefined
  const window = rest.length === 21 ? rest.subarray(5) : rest
  if (rest.length < 8) throw wrong('startTime', 'is truncated')
  if (window.length !== 16) throw wrong('endTime', 'is truncated')
  const startTime = uint64At(window, 0)
  const endTime = uint64At(window, 8)
  if (endTime < startTime)
    throw new InvalidTermsError(type, 'endTime', `must not be before startTime (${startTime}), got ${endTime}`, { length })
  return masks === undefined
    ? { type, golem, startTime, endTime }
    : { type, golem, phaseMasks: Array.from(masks) as unknown as PhaseMasks, startTime, endTime }
}

/**
 * Decodes terms bytes into the typed caveat, refusing exactly what the enforcer's getTermsInfo refuses.
 * Errors name the first field that is missing or wrong.
 */
export function decodeBardoTerms<T extends BardoCaveatType>(type: T, terms: Hex): BardoCaveatOf<T>
export function decodeBardoTerms(type: BardoCaveatType, terms: Hex): BardoCaveatOf<BardoCaveatType> {
  if (!isBardoCaveatType(type)) throw new InvalidTermsError(String(type), 'type', 'is not one of the nine Bardo caveats')
  switch (type) {
    case 'golemPhase':
      return golemPhase(terms)
    case 'dreamMode': {
      const { golem, rest } = packedGolem(type, terms)
      if (rest.length !== 0)
        throw new InvalidTermsError(type, 'golem', `is followed by ${rest.length} unexpected bytes: terms must be exactly 20 bytes`)
      return { type, golem }
    }
    case 'mortalityTimeWindow': {
      const { head } = readAbiTerms(type, terms, [
        ['startTime', 'uint256'],
        ['endTime', 'uint256'],
      ])
      const [startTime, endTime] = head as [bigint, bigint]
      if (endTime <= startTime) throw new InvalidTermsError(type, 'endTime', `must be after startTime (${startTime}), got ${endTime}`)
      return { type, startTime, endTime }
    }
    case 'emotionalState': {
      const { head, items } = readAbiTerms(
        type,
        terms,
        [
          ['golem', 'address'],
          ['minPleasure', 'int8'],
          ['maxArousal', 'int8'],
          ['minDominance', 'int8'],
        ],
        { field: 'restrictedSelectors', element: [['', 'bytes4']] },
      )
      const [golem, minPleasure, maxArousal, minDominance] = head as [Address, number, number, number]
      return { type, golem, minPleasure, maxArousal, minDominance, restrictedSelectors: items.map(([s]) => s as Hex) }
    }
    case 'vaultNav': {
      const { head } = readAbiTerms(type, terms, [
        ['vault', 'address'],
        ['maxNavBps', 'uint16'],
      ])
      const [vault, maxNavBps] = head as [Address, number]
      if (maxNavBps < 1 || maxNavBps > 10_000) throw new InvalidTermsError(type, 'maxNavBps', `must be from 1 to 10000, got ${maxNavBps}`)
      return { type, vault, maxNavBps }
    }
    case 'dailySpendLimit': {
      const { head, items } = readAbiTerms(
        type,
        terms,
        [
          ['dailyLimitUsd', 'uint256'],
          ['maxPriceAge', 'uint32'],
        ],
        { field: 'feeds', element: FEED },
      )
      const [dailyLimitUsd, maxPriceAge] = head as [bigint, number]
      return { type, dailyLimitUsd, maxPriceAge, feeds: toFeeds(type, items) }
    }
    case 'replicantBudget': {
      const { head, items } = readAbiTerms(
        type,
        terms,
        [
          ['maxBudgetUsd', 'uint256'],
          ['maxLifespanSeconds', 'uint64'],
          ['maxPriceAge', 'uint32'],
        ],
        { field: 'feeds', element: FEED },
      )
      const [maxBudgetUsd, maxLifespanSeconds, maxPriceAge] = head as [bigint, bigint, number]
      return { type, maxBudgetUsd, maxLifespanSeconds, maxPriceAge, feeds: toFeeds(type, items) }
    }
    case 'maxSlippage': {
      const { head, items } = readAbiTerms(
        type,
        terms,
        [
          ['maxSlippageBps', 'uint16'],
          ['maxPriceAge', 'uint32'],
        ],
        { field: 'feeds', element: FEED },
      )
      const [maxSlippageBps, maxPriceAge] = head as [number, number]
      if (maxSlippageBps > 10_000) throw new InvalidTermsError(type, 'maxSlippageBps', `must be at most 10000, got ${maxSlippageBps}`)
      return { type, maxSlippageBps, maxPriceAge, feeds: toFeeds(type, items) }
    }
    case 'knowledgeRoyalty': {
      const { head } = readAbiTerms(type, terms, [
        ['token', 'address'],
        ['author', 'address'],
        ['royaltyBps', 'uint16'],
      ])
      const [token, author, royaltyBps] = head as [Address, Address, number]
      if (royaltyBps > 10_000) throw new InvalidTermsError(type, 'royaltyBps', `must be at most 10000, got ${royaltyBps}`)
      return { type, token, author, royaltyBps }
    }
    case 'policyCage':
      return policyCage(terms)
  }
}

/**
 * PolicyCageEnforcer terms: `abi.encode(policyCage, golem, uint32 maxPriceAge, bytes constitution, TokenFeed[])`,
 * canonical as the enforcer requires it; the constitution by its own rules.
 */
function policyCage(terms: Hex): BardoCaveatOf<'policyCage'> {
  const type = 'policyCage'
  const bytes = termsBytes(type, terms)
  const len = bytes.length
  const layout = (field: string, rule: string) => new InvalidTermsError(type, field, `${rule} (terms are ${len} bytes)`, { length: len })
  if (len < 224) throw layout('terms', 'are truncated: the head, the constitution and the feeds need at least 224 bytes')
  const [cage, golem, maxPriceAge] = (
    [
      ['policyCage', 'address'],
      ['golem', 'address'],
      ['maxPriceAge', 'uint32'],
    ] as const
  ).map(([name, t], i) => readWord(type, name, t, wordAt(bytes, i))) as [Address, Address, number]
  if (wordAt(bytes, 3) !== 160n) throw layout('constitution', 'offset must be 160')
  const constitutionLength = Number(wordAt(bytes, 5))
  if (constitutionLength > len) throw layout('constitution', 'length runs past the terms')
  const feedsAt = 192 + Math.ceil(constitutionLength / 32) * 32
  if (wordAt(bytes, 4) !== BigInt(feedsAt) || len < feedsAt + 32) throw layout('feeds', `offset must be ${feedsAt}`)
  const count = wordAt(bytes, feedsAt / 32)
  if (BigInt(len) !== BigInt(feedsAt + 32) + count * 96n) throw layout('feeds', `declares ${count} entries, which do not fill the terms`)
  const items: WordValue[][] = []
  for (let i = 0; i < Number(count); i++)
    items.push(FEED.map(([name, t], j) => readWord(type, `feeds[${i}].${name}`, t, wordAt(bytes, feedsAt / 32 + 1 + i * 3 + j))))
  if (cage === zeroAddress) throw new InvalidTermsError(type, 'policyCage', "must be the PolicyCage's address")
  if (golem === zeroAddress) throw new InvalidTermsError(type, 'golem', "must be the Golem's key")
  const encoded = bytesToHex(bytes.subarray(192, 192 + constitutionLength))
  let constitution: ReturnType<typeof decodeConstitution>
  try {
    constitution = decodeConstitution(encoded)
  } catch (e) {
    if (e instanceof ConstitutionError)
      throw new InvalidTermsError(type, `constitution.${e.field}`, e.message.replace(/^constitution\.\S+: /, ''))
    throw new InvalidTermsError(type, 'constitution', `must be abi.encode of the constitution tuple (${size(encoded)} bytes)`)
  }
  return { type, policyCage: cage, golem, maxPriceAge, constitution, feeds: toFeeds(type, items) }
}
