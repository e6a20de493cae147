import type { DecodedCaveat, DecodedCaveatOf } from './caveat.ts'
import { AttenuationError } from './errors.ts'
import { formatDate, formatDuration, formatTokenAmount, formatUsd, perPeriod, type Labels } from './format.ts'
import { caveatKey, describeValue, describeWindow, effectiveMasks, includesAddress, lifeWindowOf, timeWindowOf } from './semantics.ts'
import { phaseNames } from '../lifecycle/phase.ts'

/**
 * Off-chain attenuation: a child must be within every ancestor on each caveat they share. On-chain the
 * ancestors' caveats run on every redemption through the child anyway, so a wider child is never
 * exploitable; it is refused because it is misleading (it promises what it can never deliver).
 * A caveat an ancestor has and the child lacks is fine for the same reason.
 */
export type AncestorCaveats = { relation: 'parent' | 'ancestor'; caveats: readonly DecodedCaveat[] }

type Relation = AncestorCaveats['relation']

function sentence(
  c: DecodedCaveat,
  p: DecodedCaveat,
  rel: Relation,
  childPart: string,
  verb: string,
  parentPart: string,
  details: Record<string, unknown> = {},
) {
  return new AttenuationError(c.type, `Child ${c.type} ${childPart} ${verb} ${rel} ${p.type} ${parentPart}.`, {
    relation: rel,
    parentCaveat: p.type,
    ...details,
  })
}

function subset(c: DecodedCaveat, p: DecodedCaveat, rel: Relation, child: readonly string[], parent: readonly string[], labels: Labels) {
  const lower = new Set(parent.map((x) => x.toLowerCase()))
  if (child.every((x) => lower.has(x.toLowerCase()))) return undefined
  return sentence(c, p, rel, describeValue(c, labels), 'is not within', describeValue(p, labels))
}

function periods(
  c: DecodedCaveatOf<'erc20PeriodTransfer' | 'nativeTokenPeriodTransfer'>,
  p: DecodedCaveatOf<'erc20PeriodTransfer' | 'nativeTokenPeriodTransfer'>,
  rel: Relation,
  labels: Labels,
) {
  const dc = describeValue(c, labels)
  const dp = describeValue(p, labels)
  if (c.periodAmount > p.periodAmount) return sentence(c, p, rel, dc, 'exceeds', dp)
  // Equal amounts over a shorter period add up to more: compare per-second rates as well.
  if (c.periodDuration > 0n && p.periodDuration > 0n && c.periodAmount * p.periodDuration > p.periodAmount * c.periodDuration) {
    const token = c.type === 'erc20PeriodTransfer' ? c.tokenAddress : 'native'
    const scaled = formatTokenAmount((c.periodAmount * p.periodDuration) / c.periodDuration, token, labels)
    return sentence(c, p, rel, `${dc} (${scaled}${perPeriod(p.periodDuration)})`, 'exceeds', dp)
  }
  return undefined
}

function timeWithin(c: DecodedCaveat, p: DecodedCaveat, rel: Relation) {
  const wc = timeWindowOf(c)!
  const wp = timeWindowOf(p)!
  // Shown as the first and last valid second, so a timestamp's exclusive bounds compare plainly.
  if (wc.from !== undefined && wp.from !== undefined && wc.from < wp.from) {
    return sentence(c, p, rel, `start ${formatDate(wc.from)}`, 'is before', `start ${formatDate(wp.from)}`)
  }
  if (wc.until !== undefined && wp.until !== undefined && wc.until > wp.until) {
    return sentence(c, p, rel, `end ${formatDate(wc.until)}`, 'is after', `end ${formatDate(wp.until)}`)
  }
  return undefined
}

function sameKind(c: DecodedCaveat, p: DecodedCaveat, rel: Relation, labels: Labels): AttenuationError | undefined {
  const dc = () => describeValue(c, labels)
  const dp = () => describeValue(p, labels)
  const over = (a: bigint | number, b: bigint | number) => (a > b ? sentence(c, p, rel, dc(), 'exceeds', dp()) : undefined)
  switch (c.type) {
    case 'erc20PeriodTransfer':
    case 'nativeTokenPeriodTransfer':
      return periods(c, p as typeof c, rel, labels)
    case 'erc20TransferAmount':
    case 'nativeTokenTransferAmount':
      return over(c.maxAmount, (p as typeof c).maxAmount)
    case 'allowedTargets':
      return subset(c, p, rel, c.targets, (p as typeof c).targets, labels)
    case 'allowedMethods':
      return subset(c, p, rel, c.selectors, (p as typeof c).selectors, labels)
    case 'redeemer':
      return subset(c, p, rel, c.redeemers, (p as typeof c).redeemers, labels)
    case 'valueLte':
      return over(c.maxValue, (p as typeof c).maxValue)
    case 'limitedCalls':
      return over(c.limit, (p as typeof c).limit)
    case 'dailySpendLimit':
      return over(c.dailyLimitUsd, (p as typeof c).dailyLimitUsd)
    case 'maxSlippage':
      return over(c.maxSlippageBps, (p as typeof c).maxSlippageBps)
    case 'vaultNav':
      return over(c.maxNavBps, (p as typeof c).maxNavBps)
    case 'replicantBudget': {
      const q = p as typeof c
      if (c.maxBudgetUsd > q.maxBudgetUsd)
        return sentence(c, p, rel, `budget ${formatUsd(c.maxBudgetUsd)}`, 'exceeds', `budget ${formatUsd(q.maxBudgetUsd)}`)
      if (c.maxLifespanSeconds > q.maxLifespanSeconds) {
        return sentence(
          c,
          p,
          rel,
          `lifespan ${formatDuration(c.maxLifespanSeconds)}`,
          'exceeds',
          `lifespan ${formatDuration(q.maxLifespanSeconds)}`,
        )
      }
      return undefined
    }
    case 'golemPhase': {
      const cm = effectiveMasks(c.phaseMasks)
      const pm = effectiveMasks((p as typeof c).phaseMasks)
      const i = cm.findIndex((m, k) => (m & ~pm[k]!) !== 0)
      if (i < 0) return undefined
      const hex = (n: number) => `0x${n.toString(16).padStart(2, '0')}`
      return sentence(c, p, rel, `mask ${hex(cm[i]!)} for ${phaseNames[i]}`, 'exceeds', `mask ${hex(pm[i]!)} for ${phaseNames[i]}`)
    }
    case 'emotionalState': {
      const q = p as typeof c
      if (c.minPleasure < q.minPleasure)
        return sentence(c, p, rel, `minPleasure ${c.minPleasure}`, 'is looser than', `minPleasure ${q.minPleasure}`)
      if (c.maxArousal > q.maxArousal)
        return sentence(c, p, rel, `maxArousal ${c.maxArousal}`, 'is looser than', `maxArousal ${q.maxArousal}`)
      if (c.minDominance < q.minDominance)
        return sentence(c, p, rel, `minDominance ${c.minDominance}`, 'is looser than', `minDominance ${q.minDominance}`)
      const mine = new Set(c.restrictedSelectors.map((s) => s.toLowerCase()))
      if (q.restrictedSelectors.every((s) => mine.has(s.toLowerCase()))) return undefined
      return sentence(c, p, rel, dc(), 'does not cover', dp())
    }
    case 'knowledgeRoyalty':
      return c.royaltyBps < (p as typeof c).royaltyBps ? sentence(c, p, rel, dc(), 'is below', dp()) : undefined
    case 'exactCalldata':
      return c.calldata.toLowerCase() === (p as typeof c).calldata.toLowerCase()
        ? undefined
        : sentence(c, p, rel, dc(), 'differs from', dp())
    case 'blockNumber': {
      const q = p as typeof c
      if (q.afterThreshold > 0n && c.afterThreshold < q.afterThreshold) return sentence(c, p, rel, dc(), 'starts before', dp())
      if (q.beforeThreshold > 0n && c.beforeThreshold > q.beforeThreshold) return sentence(c, p, rel, dc(), 'ends after', dp())
      return undefined
    }
    default:
      return undefined
  }
}

/** Rules between different kinds that bound the same thing (a period under a total, a day under a budget). */
function crossKind(c: DecodedCaveat, p: DecodedCaveat, rel: Relation, labels: Labels): AttenuationError | undefined {
  const dc = () => describeValue(c, labels)
  const dp = () => describeValue(p, labels)
  if (c.type === 'erc20PeriodTransfer' && p.type === 'erc20TransferAmount' && includesAddress([p.tokenAddress], c.tokenAddress)) {
    return c.periodAmount > p.maxAmount ? sentence(c, p, rel, dc(), 'exceeds', dp()) : undefined
  }
  if (c.type === 'nativeTokenPeriodTransfer' && p.type === 'nativeTokenTransferAmount') {
    return c.periodAmount > p.maxAmount ? sentence(c, p, rel, dc(), 'exceeds', dp()) : undefined
  }
  if (c.type === 'dailySpendLimit' && p.type === 'replicantBudget') {
    return c.dailyLimitUsd > p.maxBudgetUsd ? sentence(c, p, rel, dc(), 'exceeds', dp()) : undefined
  }
  const window = lifeWindowOf(p)
  if (c.type === 'replicantBudget' && window) {
    const life = window.endTime - window.startTime
    return c.maxLifespanSeconds > life
      ? sentence(c, p, rel, `lifespan ${formatDuration(c.maxLifespanSeconds)}`, 'exceeds', `${describeWindow(p)} (${formatDuration(life)})`)
      : undefined
  }
  return undefined
}

/**
 * An allowedCalldata pin (an approval's spender, say) is the point of the delegation that holds it, so
 * unlike other caveats a child may not leave it out: every ancestor's pin must appear in the child with
 * the same startIndex and value. On-chain the ancestor's pin still runs; the child is refused because
 * it would read as "may approve anyone".
 */
function droppedPin(child: readonly DecodedCaveat[], ancestors: readonly AncestorCaveats[], labels: Labels): AttenuationError | undefined {
  const pins = child.filter((c): c is DecodedCaveatOf<'allowedCalldata'> => c.type === 'allowedCalldata')
  for (const { relation, caveats } of ancestors) {
    for (const p of caveats) {
      if (p.type !== 'allowedCalldata') continue
      if (pins.some((c) => c.startIndex === p.startIndex && c.value.toLowerCase() === p.value.toLowerCase())) continue
      const changed = pins.find((c) => c.startIndex === p.startIndex)
      const parent = `${relation} ${p.type} ${describeValue(p, labels)}`
      const details = { relation, parentCaveat: p.type }
      if (changed) return new AttenuationError(p.type, `Child ${p.type} ${describeValue(changed, labels)} differs from ${parent}.`, details)
      return new AttenuationError(p.type, `Child has no ${p.type} at byte ${p.startIndex}, so it drops ${parent}.`, details)
    }
  }
  return undefined
}

/** The first way `child` asks for more than an ancestor grants, or undefined when it is within all of them. */
export function findAttenuationViolation(
  child: readonly DecodedCaveat[],
  ancestors: readonly AncestorCaveats[],
  labels: Labels = {},
): AttenuationError | undefined {
  for (const c of child) {
    for (const { relation, caveats } of ancestors) {
      for (const p of caveats) {
        // Time is compared whichever caveats carry it (timestamp, mortalityTimeWindow, golemPhase's window).
        const time = timeWindowOf(c) && timeWindowOf(p) ? timeWithin(c, p, relation) : undefined
        const error =
          time ??
          (c.type === p.type && caveatKey(c) === caveatKey(p) ? sameKind(c, p, relation, labels) : crossKind(c, p, relation, labels))
        if (error) return error
      }
    }
  }
  return droppedPin(child, ancestors, labels)
}
