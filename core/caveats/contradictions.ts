import { toFunctionSelector, zeroAddress, type Address } from 'viem'
import type { DecodedCaveat, DecodedCaveatOf } from './caveat.ts'
import { encodeBardoTerms } from './encodeBardoTerms.ts'
import { ContradictionError } from './errors.ts'
import { formatDate, labelAddress, labelSelector, type Labels } from './format.ts'
import { caveatKey, describeValue, describeWindow, effectiveMasks, includesAddress, timeWindowOf } from './semantics.ts'
import { isBardoCaveatType, type BardoCaveat } from './types.ts'

/**
 * Caveat sets that no execution can satisfy, or that promise something they cannot deliver, are
 * refused before signing: on-chain they would only fail later, or mislead the owner reading them.
 */
export type ContradictionOptions = {
  /** Chain time in unix seconds (the clock is passed in; core never reads it). */
  now: bigint
  /** Caveats of the ancestors; they run on every redemption too, so cross-caveat rules see them. */
  inherited?: readonly DecodedCaveat[]
  labels?: Labels
}

const TRANSFER = toFunctionSelector('function transfer(address,uint256)')
type Erc20Family = DecodedCaveatOf<'erc20PeriodTransfer' | 'erc20TransferAmount'>
type NativeFamily = DecodedCaveatOf<'nativeTokenPeriodTransfer' | 'nativeTokenTransferAmount'>
type UsdCaveat = DecodedCaveatOf<'dailySpendLimit' | 'replicantBudget'>

const refuse = (c: DecodedCaveat, sentence: string) => new ContradictionError(c.type, sentence)

function intrinsic(c: DecodedCaveat, now: bigint, labels: Labels): ContradictionError | undefined {
  const v = () => describeValue(c, labels)
  switch (c.type) {
    case 'allowedTargets':
      return c.targets.length === 0 ? refuse(c, 'allowedTargets is empty, so no call can pass.') : undefined
    case 'allowedMethods':
      return c.selectors.length === 0 ? refuse(c, 'allowedMethods is empty, so no call can pass.') : undefined
    case 'redeemer':
      return c.redeemers.length === 0 ? refuse(c, 'redeemer is empty, so nobody can redeem.') : undefined
    case 'limitedCalls':
      return c.limit === 0n ? refuse(c, 'limitedCalls is 0, so no call can pass.') : undefined
    case 'allowedCalldata':
      return c.value === '0x' ? refuse(c, `allowedCalldata pins no bytes at byte ${c.startIndex}, so it restricts nothing.`) : undefined
    case 'erc20PeriodTransfer':
    case 'nativeTokenPeriodTransfer':
      if (c.periodAmount === 0n) return refuse(c, `${c.type} periodAmount is 0, so nothing can ever be transferred.`)
      if (c.periodDuration === 0n) return refuse(c, `${c.type} periodDuration is 0 seconds, which the enforcer refuses.`)
      if (c.startDate === 0n) return refuse(c, `${c.type} startDate is 0, which the enforcer refuses.`)
      return undefined
    case 'erc20TransferAmount':
    case 'nativeTokenTransferAmount':
      return c.maxAmount === 0n ? refuse(c, `${c.type} maxAmount is 0, so nothing can ever be transferred.`) : undefined
    case 'timestamp':
      if (c.afterThreshold === 0n && c.beforeThreshold === 0n) return refuse(c, 'timestamp sets neither bound, so it restricts nothing.')
      if (c.beforeThreshold !== 0n && c.afterThreshold >= c.beforeThreshold) {
        return refuse(c, `timestamp window is empty: after ${formatDate(c.afterThreshold)} is not before ${formatDate(c.beforeThreshold)}.`)
      }
      if (c.beforeThreshold !== 0n && c.beforeThreshold <= now)
        return refuse(c, `timestamp expired at ${formatDate(c.beforeThreshold)}, before now (${formatDate(now)}).`)
      return undefined
    case 'mortalityTimeWindow':
      if (c.endTime <= c.startTime) return refuse(c, `mortalityTimeWindow is empty: ${v()}.`)
      if (c.endTime < now)
        return refuse(c, `mortalityTimeWindow already expired at ${formatDate(c.endTime)}, before now (${formatDate(now)}).`)
      return undefined
    case 'golemPhase':
      if (effectiveMasks(c.phaseMasks).every((m) => m === 0)) return refuse(c, 'golemPhase allows no action class in any phase.')
      if (c.startTime === undefined) return undefined
      // The decoder already refuses an inverted window; a caveat built by hand is checked all the same.
      if (c.endTime < c.startTime) return refuse(c, `golemPhase window is empty: ${describeWindow(c)}.`)
      if (c.endTime < now)
        return refuse(c, `golemPhase window already expired at ${formatDate(c.endTime)}, before now (${formatDate(now)}).`)
      return undefined
    case 'replicantBudget':
      if (c.maxLifespanSeconds === 0n) return refuse(c, 'replicantBudget maxLifespanSeconds is 0, so it expires at its first use.')
      return c.feeds.length === 0 ? refuse(c, 'replicantBudget prices no token (feeds is empty), so it caps nothing.') : undefined
    case 'dailySpendLimit':
      return c.feeds.length === 0 ? refuse(c, 'dailySpendLimit prices no token (feeds is empty), so it caps nothing.') : undefined
    case 'maxSlippage':
      return c.feeds.length === 0 ? refuse(c, 'maxSlippage prices no token (feeds is empty), so every swap it sees is refused.') : undefined
    case 'vaultNav':
      return c.maxNavBps === 0 ? refuse(c, 'vaultNav maxNavBps is 0, which the enforcer refuses.') : undefined
    case 'emotionalState':
      return c.restrictedSelectors.length === 0 ? refuse(c, 'emotionalState restricts no selectors, so it never applies.') : undefined
    default:
      return undefined
  }
}

const fingerprint = (c: DecodedCaveat): string =>
  isBardoCaveatType(c.type)
    ? encodeBardoTerms(c as BardoCaveat)
    : JSON.stringify(c, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : typeof v === 'string' ? v.toLowerCase() : v))

/** Two caveats of one kind and key in one delegation that say different things. */
function disagreement(own: readonly DecodedCaveat[], labels: Labels): ContradictionError | undefined {
  const seen = new Map<string, DecodedCaveat>()
  for (const c of own) {
    const key = caveatKey(c)
    const first = seen.get(key)
    if (!first) {
      seen.set(key, c)
      continue
    }
    if (fingerprint(first) !== fingerprint(c)) {
      return refuse(c, `Two ${c.type} caveats disagree: ${describeValue(first, labels)} and ${describeValue(c, labels)}.`)
    }
  }
  return undefined
}

const hasFeedFor = (c: UsdCaveat, token: Address) => c.feeds.some((f) => f.token.toLowerCase() === token.toLowerCase())

/** Rules across kinds, checked on everything that runs for a redemption (own and inherited caveats). */
function* crossKind(all: readonly DecodedCaveat[], labels: Labels): Generator<{ error: ContradictionError; involved: DecodedCaveat[] }> {
  const v = (c: DecodedCaveat) => describeValue(c, labels)
  const found = (involved: DecodedCaveat[], type: string, s: string) => ({ error: new ContradictionError(type, s), involved })
  const windows = all.filter((c) => timeWindowOf(c) !== undefined)
  for (const a of windows) {
    for (const b of windows) {
      if (a === b) continue
      const wa = timeWindowOf(a)!
      const wb = timeWindowOf(b)!
      if (wa.until !== undefined && wb.from !== undefined && wa.until < wb.from) {
        yield found(
          [a, b],
          b.type,
          `${a.type} ${describeWindow(a)} and ${b.type} ${describeWindow(b)} do not overlap, so no moment satisfies both.`,
        )
      }
    }
  }
  const erc20 = all.filter((c): c is Erc20Family => c.type === 'erc20PeriodTransfer' || c.type === 'erc20TransferAmount')
  const native = all.filter((c): c is NativeFamily => c.type === 'nativeTokenPeriodTransfer' || c.type === 'nativeTokenTransferAmount')
  const nativeSpend = native.filter((c) => (c.type === 'nativeTokenPeriodTransfer' ? c.periodAmount : c.maxAmount) > 0n)
  for (const n of nativeSpend) {
    const zero = all.find((c): c is DecodedCaveatOf<'valueLte'> => c.type === 'valueLte' && c.maxValue === 0n)
    if (zero) yield found([zero, n], n.type, `valueLte 0 ETH forbids native value, so ${n.type} ${v(n)} can never be spent.`)
    const e = erc20[0]
    if (e)
      yield found(
        [e, n],
        n.type,
        `${e.type} admits only zero-value transfers of ${labelAddress(e.tokenAddress, labels)}, so ${n.type} ${v(n)} can never be spent.`,
      )
    for (const u of all.filter((c): c is UsdCaveat => c.type === 'dailySpendLimit' || c.type === 'replicantBudget')) {
      if (u.feeds.length > 0 && !hasFeedFor(u, zeroAddress)) {
        yield found([u, n], u.type, `${u.type} has no price feed for native ETH, so ${n.type} ${v(n)} can never be spent.`)
      }
    }
  }
  for (const e of erc20) {
    const token = labelAddress(e.tokenAddress, labels)
    const other = erc20.find((x) => !includesAddress([x.tokenAddress], e.tokenAddress))
    if (other) {
      yield found(
        [e, other],
        other.type,
        `${e.type} on ${token} and ${other.type} on ${labelAddress(other.tokenAddress, labels)} each admit only transfers of their own token, so no call satisfies both.`,
      )
    }
    for (const c of all) {
      if (c.type === 'allowedTargets') {
        if (!includesAddress(c.targets, e.tokenAddress))
          yield found([e, c], c.type, `allowedTargets ${v(c)} excludes ${token}, the only target ${e.type} admits.`)
        const extra = c.targets.find((t) => !includesAddress([e.tokenAddress], t))
        if (extra)
          yield found(
            [e, c],
            c.type,
            `allowedTargets lists ${labelAddress(extra, labels)}, but ${e.type} admits only transfer() calls on ${token}.`,
          )
      }
      if (c.type === 'allowedMethods') {
        if (!c.selectors.some((s) => s.toLowerCase() === TRANSFER))
          yield found([e, c], c.type, `allowedMethods ${v(c)} excludes transfer, the only function ${e.type} admits.`)
        const extra = c.selectors.find((s) => s.toLowerCase() !== TRANSFER)
        if (extra)
          yield found(
            [e, c],
            c.type,
            `allowedMethods lists ${labelSelector(extra, labels)}, but ${e.type} admits only transfer() calls on ${token}.`,
          )
      }
      if (c.type === 'exactCalldata' && !c.calldata.toLowerCase().startsWith(TRANSFER)) {
        yield found([e, c], c.type, `exactCalldata ${c.calldata} is not a transfer() call, the only call ${e.type} admits.`)
      }
      if ((c.type === 'dailySpendLimit' || c.type === 'replicantBudget') && c.feeds.length > 0 && !hasFeedFor(c, e.tokenAddress)) {
        yield found(
          [e, c],
          c.type,
          `${c.type} has no price feed for ${token}, the token ${e.type} moves, so those transfers would count $0.00.`,
        )
      }
    }
  }
  const plain = all.find((c): c is DecodedCaveatOf<'exactCalldata'> => c.type === 'exactCalldata' && c.calldata === '0x')
  const methods = all.find((c): c is DecodedCaveatOf<'allowedMethods'> => c.type === 'allowedMethods')
  if (plain && methods)
    yield found(
      [plain, methods],
      methods.type,
      `allowedMethods ${v(methods)} cannot match: exactCalldata 0x admits only calls without calldata.`,
    )
}

/**
 * The first contradiction in a delegation's own caveats (empty set, a caveat that admits nothing, two of
 * a kind that disagree) or between its caveats and the inherited ones; undefined when consistent.
 */
export function findContradiction(own: readonly DecodedCaveat[], options: ContradictionOptions): ContradictionError | undefined {
  const labels = options.labels ?? {}
  if (own.length === 0)
    return new ContradictionError('none', 'An empty caveat set grants unrestricted authority, and Bardo never signs one.')
  for (const c of own) {
    const error = intrinsic(c, options.now, labels)
    if (error) return error
  }
  const disagree = disagreement(own, labels)
  if (disagree) return disagree
  const all = [...own, ...(options.inherited ?? [])]
  for (const { error, involved } of crossKind(all, labels)) {
    // A problem among inherited caveats alone belongs to the ancestor, which was checked when it was added.
    if (involved.some((c) => own.includes(c))) return error
  }
  return undefined
}
