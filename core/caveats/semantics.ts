import { getAddress, type Address } from 'viem'
import { constitutionHash } from '../policy/constitutionHash.ts'
import type { DecodedCaveat, DecodedCaveatOf } from './caveat.ts'
import {
  bracket,
  formatBps,
  formatDate,
  formatDuration,
  formatTokenAmount,
  formatUsd,
  labelAddress,
  labelSelector,
  perPeriod,
  type Labels,
} from './format.ts'
import { DEFAULT_PHASE_MASKS, type LifeWindow, type PhaseMasks } from './types.ts'

/**
 * Shared meaning of caveats for attenuation, contradiction and summary code: which caveats are "the
 * same one" (kind + key), what time window a caveat allows, and a short value for one-sentence errors.
 */

/** Caveats of one kind with the same key constrain the same thing; different keys are independent. */
export function caveatKey(c: DecodedCaveat): string {
  switch (c.type) {
    case 'erc20PeriodTransfer':
    case 'erc20TransferAmount':
      return `${c.type}:${c.tokenAddress.toLowerCase()}`
    case 'vaultNav':
      return `${c.type}:${c.vault.toLowerCase()}`
    case 'golemPhase':
    case 'dreamMode':
    case 'emotionalState':
      return `${c.type}:${c.golem.toLowerCase()}`
    case 'knowledgeRoyalty':
      return `${c.type}:${c.token.toLowerCase()}:${c.author.toLowerCase()}`
    case 'allowedCalldata':
      return `${c.type}:${c.startIndex}`
    case 'otherStandard':
    case 'unknown':
      return `${c.type}:${c.enforcer.toLowerCase()}:${c.terms.toLowerCase()}`
    default:
      return c.type
  }
}

/** An inclusive range of unix seconds in which a caveat lets executions through; undefined = unbounded. */
export type TimeWindow = { from?: bigint; until?: bigint }

/** The life window a caveat carries in MortalityTimeWindow's form: its own, or golemPhase's when it has one. */
export function lifeWindowOf(c: DecodedCaveat): LifeWindow | undefined {
  if (c.type === 'mortalityTimeWindow') return { startTime: c.startTime, endTime: c.endTime }
  if (c.type === 'golemPhase' && c.startTime !== undefined) return { startTime: c.startTime, endTime: c.endTime }
  return undefined
}

/**
 * TimestampEnforcer passes when `now > after` and `now < before` (0 = no bound); MortalityTimeWindow,
 * and GolemPhase with a window, when `start <= now <= end`. All become inclusive ranges so they can be
 * compared with each other.
 */
export function timeWindowOf(c: DecodedCaveat): TimeWindow | undefined {
  if (c.type === 'timestamp') {
    return {
      ...(c.afterThreshold > 0n ? { from: c.afterThreshold + 1n } : {}),
      ...(c.beforeThreshold > 0n ? { until: c.beforeThreshold - 1n } : {}),
    }
  }
  const life = lifeWindowOf(c)
  return life && { from: life.startTime, until: life.endTime }
}

/** The displayed start and end of a time caveat (the caveat's own numbers, not the inclusive range). */
export function windowBounds(c: DecodedCaveat): { start?: bigint; end?: bigint } {
  if (c.type === 'timestamp') {
    return { ...(c.afterThreshold > 0n ? { start: c.afterThreshold } : {}), ...(c.beforeThreshold > 0n ? { end: c.beforeThreshold } : {}) }
  }
  const life = lifeWindowOf(c)
  return life ? { start: life.startTime, end: life.endTime } : {}
}

/** "from 1 Jan 2026 to 21 Dec 2026", "until ...": the time half of a caveat, for one-sentence errors. */
export function describeWindow(c: DecodedCaveat): string {
  const { start, end } = windowBounds(c)
  if (start !== undefined && end !== undefined) return `from ${formatDate(start)} to ${formatDate(end)}`
  if (end !== undefined) return `until ${formatDate(end)}`
  if (start !== undefined) return `from ${formatDate(start)}`
  return 'with no bound'
}

export const effectiveMasks = (masks: PhaseMasks | undefined): PhaseMasks => masks ?? DEFAULT_PHASE_MASKS

const hex2 = (n: number) => `0x${n.toString(16).padStart(2, '0')}`

/** The value half of "Child dailySpendLimit $2,000.00/day exceeds ...". */
export function describeValue(c: DecodedCaveat, labels: Labels = {}): string {
  switch (c.type) {
    case 'erc20PeriodTransfer':
      return `${formatTokenAmount(c.periodAmount, c.tokenAddress, labels)}${perPeriod(c.periodDuration)}`
    case 'nativeTokenPeriodTransfer':
      return `${formatTokenAmount(c.periodAmount, 'native')}${perPeriod(c.periodDuration)}`
    case 'erc20TransferAmount':
      return `${formatTokenAmount(c.maxAmount, c.tokenAddress, labels)} in total`
    case 'nativeTokenTransferAmount':
      return `${formatTokenAmount(c.maxAmount, 'native')} in total`
    case 'allowedTargets':
      return bracket(c.targets.map((t) => labelAddress(t, labels)))
    case 'allowedMethods':
      return bracket(c.selectors.map((s) => labelSelector(s, labels)))
    case 'redeemer':
      return bracket(c.redeemers.map((r) => labelAddress(r, labels)))
    case 'valueLte':
      return formatTokenAmount(c.maxValue, 'native')
    case 'limitedCalls':
      return `${c.limit} call${c.limit === 1n ? '' : 's'}`
    case 'timestamp':
    case 'mortalityTimeWindow':
      return describeWindow(c)
    case 'blockNumber':
      return `blocks ${c.afterThreshold} to ${c.beforeThreshold === 0n ? 'any' : c.beforeThreshold}`
    case 'exactCalldata':
      return c.calldata
    case 'allowedCalldata': {
      const address = pinnedAddress(c)
      return `${address === undefined ? c.value : labelAddress(address, labels)} at byte ${c.startIndex}`
    }
    case 'dailySpendLimit':
      return `${formatUsd(c.dailyLimitUsd)}/day`
    case 'replicantBudget':
      return `${formatUsd(c.maxBudgetUsd)} over ${formatDuration(c.maxLifespanSeconds)}`
    case 'maxSlippage':
      return formatBps(c.maxSlippageBps)
    case 'vaultNav':
      return `${formatBps(c.maxNavBps)} of ${labelAddress(c.vault, labels)}`
    case 'knowledgeRoyalty':
      return `${formatBps(c.royaltyBps)} to ${labelAddress(c.author, labels)}`
    case 'policyCage':
      return `the constitution ${constitutionHash(c.constitution)} of ${labelAddress(c.golem, labels)}`
    case 'golemPhase': {
      const masks = bracket(effectiveMasks(c.phaseMasks).map(hex2))
      return c.startTime === undefined ? masks : `${masks} ${describeWindow(c)}`
    }
    case 'dreamMode':
      return labelAddress(c.golem, labels)
    case 'emotionalState':
      return `pleasure >= ${c.minPleasure}, arousal <= ${c.maxArousal}, dominance >= ${c.minDominance} on ${bracket(c.restrictedSelectors.map((s) => labelSelector(s, labels)))}`
    case 'otherStandard':
      return `${c.name} ${c.terms}`
    case 'unknown':
      return `${c.enforcer} ${c.terms}`
  }
}

/** The address an allowedCalldata pin fixes, when its value is one ABI word holding an address (12 zero bytes, then 20). */
export function pinnedAddress(c: DecodedCaveatOf<'allowedCalldata'>): Address | undefined {
  if (c.value.length !== 66 || !/^0x0{24}/i.test(c.value)) return undefined
  return getAddress(`0x${c.value.slice(26)}`)
}

export const sameAddress = (a: Address, b: Address): boolean => a.toLowerCase() === b.toLowerCase()
export const includesAddress = (list: readonly Address[], a: Address): boolean => list.some((x) => sameAddress(x, a))
