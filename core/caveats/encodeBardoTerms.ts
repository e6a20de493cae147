import { bytesToHex, encodeAbiParameters, encodePacked, isAddress, isHex, zeroAddress, type Address, type Hex } from 'viem'
import { ConstitutionError, parseConstitution, constitutionJson } from '../policy/constitution.ts'
import { encodeConstitution } from '../policy/constitutionHash.ts'
import { CaveatConfigError } from './errors.ts'
import {
  ALL_ACTION_CLASSES,
  MAX_RUNWAY_TIME,
  RUNWAY_PHASE_MASKS,
  type BardoCaveat,
  type GolemPhaseCaveat,
  type PolicyCageCaveat,
  type TokenFeed,
} from './types.ts'

/** ABI parameter lists exactly as docs/contracts.md writes the terms. */
export const TOKEN_FEED_TUPLE = {
  type: 'tuple[]',
  components: [
    { name: 'token', type: 'address' },
    { name: 'decimals', type: 'uint8' },
    { name: 'feed', type: 'address' },
  ],
} as const

const MAX_UINT256 = (1n << 256n) - 1n
const MAX_UINT64 = (1n << 64n) - 1n

function address(caveat: string, field: string, value: Address): Address {
  if (!isAddress(value, { strict: false })) throw new CaveatConfigError(caveat, field, 'must be a 20-byte address')
  return value
}

function int(caveat: string, field: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new CaveatConfigError(caveat, field, `must be an integer from ${min} to ${max}, got ${value}`)
  }
  return value
}

function big(caveat: string, field: string, value: bigint, max: bigint = MAX_UINT256, min = 0n): bigint {
  if (typeof value !== 'bigint' || value < min || value > max) {
    throw new CaveatConfigError(caveat, field, `must be a bigint from ${min} to ${max}, got ${String(value)}`)
  }
  return value
}

function feeds(caveat: string, list: readonly TokenFeed[]): { token: Address; decimals: number; feed: Address }[] {
  // The enforcer takes the first entry for a token; a second one would be silently ignored, so refuse it.
  const seen = new Set<string>()
  return list.map((f, i) => {
    const token = address(caveat, `feeds[${i}].token`, f.token)
    if (seen.has(token.toLowerCase())) throw new CaveatConfigError(caveat, `feeds[${i}].token`, `lists ${token} twice`)
    seen.add(token.toLowerCase())
    const decimals = int(caveat, `feeds[${i}].decimals`, f.decimals, 0, 255)
    // The enforcers price address(0) as native ETH, which always has 18 decimals.
    if (token.toLowerCase() === zeroAddress && decimals !== 18) {
      throw new CaveatConfigError(caveat, `feeds[${i}].decimals`, 'must be 18 for native ETH (token 0x0)')
    }
    const feed = address(caveat, `feeds[${i}].feed`, f.feed)
    if (feed.toLowerCase() === zeroAddress) throw new CaveatConfigError(caveat, `feeds[${i}].feed`, 'must not be the zero address')
    return { token, decimals, feed }
  })
}

/** Runway terms, `encodePacked(golem, uint48 startTime, uint48 endTime)`: 32 bytes. */
function runwayTerms(c: GolemPhaseCaveat & { runway: true }): Hex {
  const t = c.type
  const golem = address(t, 'golem', c.golem)
  // Runway terms fix the masks; the only masks they can be read back with are their own.
  if (c.phaseMasks?.some((m, i) => m !== RUNWAY_PHASE_MASKS[i])) {
    throw new CaveatConfigError(t, 'phaseMasks', 'must be left out on runway terms (they allow plain transfers only)')
  }
  if (c.startTime === undefined || c.endTime === undefined) {
    throw new CaveatConfigError(t, 'startTime', 'runway terms carry the life window: give startTime and endTime')
  }
  const start = big(t, 'startTime', c.startTime, MAX_RUNWAY_TIME)
  const end = big(t, 'endTime', c.endTime, MAX_RUNWAY_TIME)
  if (end < start) throw new CaveatConfigError(t, 'endTime', `must not be before startTime (${start}), got ${end}`)
  return encodePacked(['address', 'uint48', 'uint48'], [golem, Number(start), Number(end)]).toLowerCase() as Hex
}

/**
 * `encodePacked(golem[, bytes5 phaseMasks][, uint64 startTime, uint64 endTime])`: 20, 25, 36 or 41 bytes;
 * runway terms are 32.
 */
function golemPhaseTerms(c: GolemPhaseCaveat): Hex {
  if (c.runway === true) return runwayTerms(c as GolemPhaseCaveat & { runway: true })
  const t = c.type
  const golem = address(t, 'golem', c.golem)
  let packed: Hex = golem
  if (c.phaseMasks !== undefined) {
    if (c.phaseMasks.length !== 5)
      throw new CaveatConfigError(t, 'phaseMasks', `must have 5 entries (one per phase), got ${c.phaseMasks.length}`)
    const masks = c.phaseMasks.map((m, i) => int(t, `phaseMasks[${i}]`, m, 0, ALL_ACTION_CLASSES))
    packed = encodePacked(['address', 'bytes5'], [golem, bytesToHex(Uint8Array.from(masks))])
  }
  if (c.startTime === undefined && c.endTime === undefined) return packed.toLowerCase() as Hex
  // A window has both bounds; one alone would silently mean "unbounded" on the other side.
  if (c.startTime === undefined)
    throw new CaveatConfigError(t, 'startTime', 'must be given with endTime (a window has both bounds, or none)')
  if (c.endTime === undefined) throw new CaveatConfigError(t, 'endTime', 'must be given with startTime (a window has both bounds, or none)')
  const start = big(t, 'startTime', c.startTime, MAX_UINT64)
  const end = big(t, 'endTime', c.endTime, MAX_UINT64)
  if (end < start) throw new CaveatConfigError(t, 'endTime', `must not be before startTime (${start}), got ${end}`)
  return encodePacked(['bytes', 'uint64', 'uint64'], [packed, start, end]).toLowerCase() as Hex
}

/** The terms bytes of a Bardo caveat, byte for byte what the enforcer's getTermsInfo decodes. */
export function encodeBardoTerms(c: BardoCaveat): Hex {
  const t = c.type
  switch (c.type) {
    case 'golemPhase':
      return golemPhaseTerms(c)
    case 'mortalityTimeWindow': {
      const start = big(t, 'startTime', c.startTime)
      const end = big(t, 'endTime', c.endTime)
      if (end <= start) throw new CaveatConfigError(t, 'endTime', `must be after startTime (${start}), got ${end}`)
      return encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [start, end])
    }
    case 'dreamMode':
      return encodePacked(['address'], [address(t, 'golem', c.golem)]).toLowerCase() as Hex
    case 'emotionalState': {
      const selectors = c.restrictedSelectors.map((s, i) => {
        if (!isHex(s) || s.length !== 10) throw new CaveatConfigError(t, `restrictedSelectors[${i}]`, 'must be a 4-byte selector')
        return s.toLowerCase() as Hex
      })
      return encodeAbiParameters(
        [{ type: 'address' }, { type: 'int8' }, { type: 'int8' }, { type: 'int8' }, { type: 'bytes4[]' }],
        [
          address(t, 'golem', c.golem),
          int(t, 'minPleasure', c.minPleasure, -128, 127),
          int(t, 'maxArousal', c.maxArousal, -128, 127),
          int(t, 'minDominance', c.minDominance, -128, 127),
          selectors,
        ],
      )
    }
    case 'vaultNav':
      return encodeAbiParameters(
        [{ type: 'address' }, { type: 'uint16' }],
        [address(t, 'vault', c.vault), int(t, 'maxNavBps', c.maxNavBps, 1, 10_000)],
      )
    case 'dailySpendLimit':
      return encodeAbiParameters(
        [{ type: 'uint256' }, { type: 'uint32' }, TOKEN_FEED_TUPLE],
        [big(t, 'dailyLimitUsd', c.dailyLimitUsd), int(t, 'maxPriceAge', c.maxPriceAge, 0, 2 ** 32 - 1), feeds(t, c.feeds)],
      )
    case 'replicantBudget':
      return encodeAbiParameters(
        [{ type: 'uint256' }, { type: 'uint64' }, { type: 'uint32' }, TOKEN_FEED_TUPLE],
        [
          big(t, 'maxBudgetUsd', c.maxBudgetUsd),
          big(t, 'maxLifespanSeconds', c.maxLifespanSeconds, (1n << 64n) - 1n),
          int(t, 'maxPriceAge', c.maxPriceAge, 0, 2 ** 32 - 1),
          feeds(t, c.feeds),
        ],
      )
    case 'maxSlippage':
      return encodeAbiParameters(
        [{ type: 'uint16' }, { type: 'uint32' }, TOKEN_FEED_TUPLE],
        [int(t, 'maxSlippageBps', c.maxSlippageBps, 0, 10_000), int(t, 'maxPriceAge', c.maxPriceAge, 0, 2 ** 32 - 1), feeds(t, c.feeds)],
      )
    case 'knowledgeRoyalty':
      return encodeAbiParameters(
        [{ type: 'address' }, { type: 'address' }, { type: 'uint16' }],
        [address(t, 'token', c.token), address(t, 'author', c.author), int(t, 'royaltyBps', c.royaltyBps, 0, 10_000)],
      )
    case 'policyCage':
      return policyCageTerms(c)
    default: {
      const never: never = c
      throw new CaveatConfigError(String((never as { type: unknown }).type), 'type', 'is not a Bardo caveat')
    }
  }
}

/** PolicyCageEnforcer terms, `abi.encode(policyCage, golem, uint32 maxPriceAge, bytes constitution, TokenFeed[])`. */
function policyCageTerms(c: PolicyCageCaveat): Hex {
  const t = c.type
  const cage = address(t, 'policyCage', c.policyCage)
  if (cage.toLowerCase() === zeroAddress) throw new CaveatConfigError(t, 'policyCage', "must be the PolicyCage's address")
  const golem = address(t, 'golem', c.golem)
  if (golem.toLowerCase() === zeroAddress) throw new CaveatConfigError(t, 'golem', "must be the Golem's key")
  let constitution: Hex
  try {
    // The constitution's own rules, as the profile's parse applies them: the enforcer refuses the same.
    constitution = encodeConstitution(parseConstitution(constitutionJson(c.constitution)))
  } catch (e) {
    if (e instanceof ConstitutionError)
      throw new CaveatConfigError(t, `constitution.${e.field}`, e.message.replace(/^constitution\.\S+: /, ''))
    throw e
  }
  return encodeAbiParameters(
    [{ type: 'address' }, { type: 'address' }, { type: 'uint32' }, { type: 'bytes' }, TOKEN_FEED_TUPLE],
    [cage, golem, int(t, 'maxPriceAge', c.maxPriceAge, 0, 2 ** 32 - 1), constitution, feeds(t, c.feeds)],
  )
}
