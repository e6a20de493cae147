import type { Delegation, SmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import { hexToBigInt, size, toFunctionSelector, type Address } from 'viem'
import { decodeDelegationCaveats, type DecodedCaveat, type DecodedCaveatOf } from './caveat.ts'
import {
  formatBps,
  formatDate,
  formatDuration,
  formatPeriod,
  formatTokenAmount,
  formatUsd,
  labelAddress,
  labelSelector,
  labelToken,
  listPhrase,
  type Labels,
} from './format.ts'
import { phaseNames } from '../lifecycle/phase.ts'
import { caveatKey, effectiveMasks, pinnedAddress, windowBounds } from './semantics.ts'
import { ACTION_CLASS, RUNWAY_PHASE_MASKS, type BardoDeployment, type PhaseMasks } from './types.ts'

export type SummarizeOptions = {
  deployment: BardoDeployment
  environment: SmartAccountsEnvironment
  tokens?: Labels['tokens']
  targets?: Labels['targets']
  methods?: Labels['methods']
  /** When given, a window start already in the past is left out ("expires ..." only). */
  now?: bigint
}

/** The order a reader wants: how much, where, under which conditions, until when. */
const ORDER: readonly DecodedCaveat['type'][] = [
  'erc20PeriodTransfer',
  'nativeTokenPeriodTransfer',
  'erc20TransferAmount',
  'nativeTokenTransferAmount',
  'dailySpendLimit',
  'replicantBudget',
  'allowedTargets',
  'allowedMethods',
  'allowedCalldata',
  'exactCalldata',
  'valueLte',
  'limitedCalls',
  'maxSlippage',
  'vaultNav',
  'knowledgeRoyalty',
  'redeemer',
  'golemPhase',
  'dreamMode',
  'emotionalState',
  'blockNumber',
  'timestamp',
  'mortalityTimeWindow',
  'otherStandard',
  'unknown',
]

const CLASS_NOUNS: readonly (readonly [number, string])[] = [
  [ACTION_CLASS.SUBDELEGATION, 'Replicants'],
  [ACTION_CLASS.OPEN, 'new positions'],
  [ACTION_CLASS.CLOSE, 'closing positions'],
  [ACTION_CLASS.TRANSFER, 'transfers'],
  [ACTION_CLASS.SETTLEMENT, 'settlement'],
]

/** "no Replicants after Thriving, no new positions after Stable, settlement only in Terminal". */
export function describePhaseMasks(masks: PhaseMasks): string[] {
  // The first phase from which only settlement is left (the death protocol), if any.
  const count: number = masks.length
  let settleFrom = count
  while (settleFrom > 0 && masks[settleFrom - 1] === ACTION_CLASS.SETTLEMENT) settleFrom--
  const clauses: { at: number; text: string }[] = []
  if (settleFrom > 0 && settleFrom < count) {
    const phase = phaseNames[settleFrom as 0 | 1 | 2 | 3 | 4]
    clauses.push({
      at: settleFrom - 0.5,
      text: settleFrom === count - 1 ? `settlement only in ${phase}` : `settlement only from ${phase} on`,
    })
  }
  if (settleFrom === 0) return ['settlement only, in every phase']
  for (const [bit, noun] of CLASS_NOUNS) {
    const allowed = masks.map((m) => (m & bit) !== 0)
    if (allowed.every(Boolean)) continue
    if (!allowed.some(Boolean)) {
      clauses.push({ at: -1, text: `no ${noun}` })
      continue
    }
    const last = allowed.lastIndexOf(true)
    const isPrefix = allowed.slice(0, last + 1).every(Boolean)
    if (isPrefix) {
      if (last === settleFrom - 1) continue // already said by "settlement only in ..."
      clauses.push({ at: last, text: `no ${noun} after ${phaseNames[last]}` })
    } else {
      clauses.push({ at: 5, text: `${noun} only in ${listPhrase(phaseNames.filter((_, i) => allowed[i]))}` })
    }
  }
  return clauses.sort((a, b) => a.at - b.at).map((c) => c.text)
}

function phrase(c: DecodedCaveat, labels: Labels, now: bigint | undefined): string[] {
  switch (c.type) {
    case 'erc20PeriodTransfer':
      return [`up to ${formatTokenAmount(c.periodAmount, c.tokenAddress, labels)} ${formatPeriod(c.periodDuration)}`]
    case 'nativeTokenPeriodTransfer':
      return [`up to ${formatTokenAmount(c.periodAmount, 'native')} ${formatPeriod(c.periodDuration)}`]
    case 'erc20TransferAmount':
      return [`up to ${formatTokenAmount(c.maxAmount, c.tokenAddress, labels)} in total`]
    case 'nativeTokenTransferAmount':
      return [`up to ${formatTokenAmount(c.maxAmount, 'native')} in total`]
    case 'dailySpendLimit':
      return [
        `up to ${formatUsd(c.dailyLimitUsd)} a day in USD value${c.feeds.length ? ` of ${listPhrase(c.feeds.map((f) => labelToken(f.token, labels)))}` : ''}`,
      ]
    case 'replicantBudget':
      return [`a ${formatUsd(c.maxBudgetUsd)} budget for ${formatDuration(c.maxLifespanSeconds)} from first use`]
    case 'allowedTargets':
      return [`only ${listPhrase(c.targets.map((t) => labelAddress(t, labels)))}`]
    case 'allowedMethods':
      return [
        `only ${listPhrase(
          c.selectors.map((s) => labelSelector(s, labels)),
          'or',
        )} calls`,
      ]
    case 'allowedCalldata': {
      const end = c.startIndex + BigInt(size(c.value)) - 1n
      const address = pinnedAddress(c)
      return [
        `only calls whose calldata bytes ${c.startIndex}-${end} are ${address === undefined ? c.value : labelAddress(address, labels)}`,
      ]
    }
    case 'exactCalldata':
      return [c.calldata === '0x' ? 'plain transfers without calldata only' : `only the exact calldata ${c.calldata}`]
    case 'valueLte':
      return [c.maxValue === 0n ? 'no ETH sent with calls' : `at most ${formatTokenAmount(c.maxValue, 'native')} per call`]
    case 'limitedCalls':
      return [`at most ${c.limit} call${c.limit === 1n ? '' : 's'}`]
    case 'maxSlippage':
      return [`swaps with at most ${formatBps(c.maxSlippageBps)} slippage`]
    case 'vaultNav':
      return [`at most ${formatBps(c.maxNavBps)} of ${labelAddress(c.vault, labels)}'s assets per redemption`]
    case 'knowledgeRoyalty':
      return [`a ${formatBps(c.royaltyBps)} royalty in ${labelAddress(c.token, labels)} to ${labelAddress(c.author, labels)}`]
    case 'policyCage':
      return [
        `only while the PolicyCage holds this constitution for ${labelAddress(c.golem, labels)}: approved assets ${listPhrase([c.constitution.baseAsset, ...c.constitution.assets.map((a) => a.address)].map((a) => labelToken(a, labels)))}, each within its concentration bound, no new risk past ${formatBps(c.constitution.maxDrawdownBps)} below the high-water mark`,
      ]
    case 'redeemer':
      return [
        `redeemable only by ${listPhrase(
          c.redeemers.map((r) => labelAddress(r, labels)),
          'or',
        )}`,
      ]
    case 'golemPhase': {
      // Its window, if any, is read in the time position (see summarizeCaveats).
      if (!c.runway) return describePhaseMasks(effectiveMasks(c.phaseMasks))
      // Runway terms allow nothing but plain transfers, so the other classes need no clause of their own.
      const others = ACTION_CLASS.OPEN | ACTION_CLASS.CLOSE | ACTION_CLASS.SETTLEMENT
      return ['plain transfers only', ...describePhaseMasks(RUNWAY_PHASE_MASKS.map((m) => m | others) as unknown as PhaseMasks)]
    }
    case 'dreamMode':
      return ['paused while the Golem dreams']
    case 'emotionalState':
      return [
        `${listPhrase(c.restrictedSelectors.map((s) => labelSelector(s, labels)))} refused when pleasure < ${c.minPleasure}, arousal > ${c.maxArousal} or dominance < ${c.minDominance}`,
      ]
    case 'blockNumber':
      return [
        `only ${c.afterThreshold > 0n ? `after block ${c.afterThreshold}` : ''}${c.afterThreshold > 0n && c.beforeThreshold > 0n ? ' and ' : ''}${c.beforeThreshold > 0n ? `before block ${c.beforeThreshold}` : ''}`,
      ]
    case 'timestamp':
    case 'mortalityTimeWindow':
      return windowPhrases(c, now)
    case 'otherStandard':
      return [`plus a ${c.name} caveat`]
    case 'unknown':
      return [`plus an unrecognised caveat at ${c.enforcer}`]
  }
}

const APPROVE = toFunctionSelector('function approve(address,uint256)')

/**
 * An approval delegation (only `approve`, its first argument pinned by allowedCalldata at byte 4) reads
 * as one clause, "may approve only the Uniswap router to spend USDC and WETH", in place of the three.
 */
function approvalClause(
  caveats: readonly DecodedCaveat[],
  labels: Labels,
): { clause: string; replaces: readonly DecodedCaveat[] } | undefined {
  const methods = caveats.filter((c): c is DecodedCaveatOf<'allowedMethods'> => c.type === 'allowedMethods')
  if (methods.length !== 1 || methods[0]!.selectors.length !== 1 || methods[0]!.selectors[0]!.toLowerCase() !== APPROVE) return undefined
  const pins = caveats.filter((c): c is DecodedCaveatOf<'allowedCalldata'> => c.type === 'allowedCalldata' && c.startIndex === 4n)
  const spender = pins.length === 1 ? pinnedAddress(pins[0]!) : undefined
  if (spender === undefined) return undefined
  const targets = caveats.filter((c): c is DecodedCaveatOf<'allowedTargets'> => c.type === 'allowedTargets')
  const tokens = targets.length === 1 ? listPhrase(targets[0]!.targets.map((t) => labelToken(t, labels))) : 'any token'
  return { clause: `may approve only ${labelAddress(spender, labels)} to spend ${tokens}`, replaces: [methods[0]!, pins[0]!, ...targets] }
}

/** "starts 1 Feb 2026", "expires 21 Dec 2026": when a time caveat (or golemPhase's window) lets things through. */
function windowPhrases(c: DecodedCaveat, now: bigint | undefined): string[] {
  const { start, end } = windowBounds(c)
  const out: string[] = []
  if (start !== undefined && start > 0n && (now === undefined || start > now))
    out.push(`${c.type === 'timestamp' ? 'valid after' : 'starts'} ${formatDate(start)}`)
  if (end !== undefined) out.push(`expires ${formatDate(end)}`)
  return out
}

/** Phrases with their place in ORDER; golemPhase's window reads where a mortalityTimeWindow would (last: "until when"). */
function placed(c: DecodedCaveat, labels: Labels, now: bigint | undefined): { at: number; parts: string[] }[] {
  const own = { at: ORDER.indexOf(c.type), parts: phrase(c, labels, now) }
  if (c.type !== 'golemPhase' || c.startTime === undefined) return [own]
  return [own, { at: ORDER.indexOf('mortalityTimeWindow'), parts: windowPhrases(c, now) }]
}

/**
 * An actions delegation whose calldata pins hold the delegator (the owner's account) reads as one
 * clause, "may call exactInputSingle on the Uniswap router only with the owner's account as receiver",
 * in place of its methods, targets and pins; a small constant pinned beside it (a tuple's ABI offset)
 * is named in the same clause.
 */
function receiverClause(
  caveats: readonly DecodedCaveat[],
  labels: Labels,
  owner: Address | undefined,
): { clause: string; replaces: readonly DecodedCaveat[] } | undefined {
  if (owner === undefined) return undefined
  const methods = caveats.filter((c): c is DecodedCaveatOf<'allowedMethods'> => c.type === 'allowedMethods')
  if (methods.length !== 1 || methods[0]!.selectors.some((s) => s.toLowerCase() === APPROVE)) return undefined
  const pins = caveats.filter((c): c is DecodedCaveatOf<'allowedCalldata'> => c.type === 'allowedCalldata')
  const receivers = pins.filter((p) => pinnedAddress(p)?.toLowerCase() === owner.toLowerCase())
  if (receivers.length === 0) return undefined
  const fixed = pins.filter((p) => !receivers.includes(p) && size(p.value) === 32 && hexToBigInt(p.value) < 0x10000n)
  const targets = caveats.filter((c): c is DecodedCaveatOf<'allowedTargets'> => c.type === 'allowedTargets')
  const where = targets.length === 1 ? ` on ${listPhrase(targets[0]!.targets.map((t) => labelAddress(t, labels)))}` : ''
  const calls = listPhrase(
    methods[0]!.selectors.map((s) => labelSelector(s, labels)),
    'or',
  )
  const offsets = fixed.map((p) => `bytes ${p.startIndex}-${p.startIndex + 31n} fixed to ${hexToBigInt(p.value)}`)
  const clause = `may call ${calls}${where} only with the owner's account as receiver${offsets.length ? ` (${offsets.join(', ')})` : ''}`
  return { clause, replaces: [...targets, methods[0]!, ...receivers, ...fixed] }
}

/** English for a list of decoded caveats, in reading order, deterministic (dates in UTC). `owner` is the delegator of the root. */
export function summarizeCaveats(caveats: readonly DecodedCaveat[], labels: Labels = {}, now?: bigint, owner?: Address): string {
  const sorted = [...caveats].sort((a, b) => ORDER.indexOf(a.type) - ORDER.indexOf(b.type))
  const approval = approvalClause(sorted, labels) ?? receiverClause(sorted, labels, owner)
  const parts = sorted
    .flatMap((c) => {
      if (!approval?.replaces.includes(c)) return placed(c, labels, now)
      return c === approval.replaces[0] ? [{ at: ORDER.indexOf(c.type), parts: [approval.clause] }] : []
    })
    .sort((a, b) => a.at - b.at)
    .flatMap((p) => p.parts)
  // Two expiries (a timestamp, a mortality window, golemPhase's window) read as the earlier one.
  const expiries = parts.filter((p) => p.startsWith('expires '))
  const kept = expiries.length > 1 ? parts.filter((p) => !p.startsWith('expires ') || p === earliest(sorted)) : parts
  return [...new Set(kept)].join(', ')
}

function earliest(caveats: readonly DecodedCaveat[]): string {
  const ends = caveats.map((c) => windowBounds(c).end).filter((e): e is bigint => e !== undefined)
  return `expires ${formatDate(ends.reduce((a, b) => (b < a ? b : a)))}`
}

const labelsOf = (options: SummarizeOptions): Labels => ({
  ...(options.tokens ? { tokens: options.tokens } : {}),
  ...(options.targets ? { targets: options.targets } : {}),
  ...(options.methods ? { methods: options.methods } : {}),
})

/**
 * "up to 100 USDC a day, only the Uniswap router and WETH, no new positions after Stable, expires
 * 21 Dec 2026": what a delegation lets its delegate do, for owners, dashboards and the Snap.
 */
export function summarizeDelegation(delegation: Pick<Delegation, 'caveats'> & { delegator?: Address }, options: SummarizeOptions): string {
  const decoded = decodeDelegationCaveats(delegation, options.deployment, options.environment)
  return summarizeCaveats(decoded, labelsOf(options), options.now, delegation.delegator)
}

/**
 * What the leaf of a redemption chain (leaf first, as `tree.chain(hash)` returns it) can do: every
 * caveat of every level runs, and the tree already checked each child within its parents, so on a
 * kind they share the leaf-most caveat is the binding one; kinds only an ancestor has are added.
 */
export function summarizeChain(
  chain: readonly (Pick<Delegation, 'caveats'> & { delegator?: Address })[],
  options: SummarizeOptions,
): string {
  const seen = new Map<string, number>()
  const effective: DecodedCaveat[] = []
  for (const delegation of chain) {
    for (const c of decodeDelegationCaveats(delegation, options.deployment, options.environment)) {
      const key = caveatKey(c)
      const at = seen.get(key)
      if (at === undefined) {
        seen.set(key, effective.length)
        effective.push(c)
        continue
      }
      // A leaf-most golemPhase without a window does not lift an ancestor's window: both run on-chain.
      const kept = effective[at]!
      if (kept.type === 'golemPhase' && kept.startTime === undefined && c.type === 'golemPhase' && c.startTime !== undefined) {
        effective[at] = { ...kept, startTime: c.startTime, endTime: c.endTime }
      }
    }
  }
  return summarizeCaveats(effective, labelsOf(options), options.now, chain[chain.length - 1]?.delegator)
}
