import { getAddress, isAddress, isHex, size, zeroAddress, type Address, type Hex } from 'viem'
import { formatUsdc, parseBudget, USDC_UNIT } from './budget.ts'
import { BRIDGE_PIN_RULE, CCTP_PINNED_WORDS, type CallLayout } from './callLayouts.ts'
import { analyzeProse, CAPABILITIES, type Capability } from './capabilities.ts'
import { StrategyCompileError, StrategyGuardrailError } from './errors.ts'
import {
  SUPPORTED_CHAIN_IDS,
  type ContractCall,
  type ProtocolFunction,
  type ProtocolRegistry,
  type TokenApproval,
} from './protocolRegistry.ts'
import { SELECTORS } from './selectors.ts'
import { parseStrategyDocument } from './strategyDocument.ts'
import { LIQUIDITY_REMOVAL_RULE } from './ungrantable.ts'

export { LIQUIDITY_REMOVAL_RULE } from './ungrantable.ts'

export const PERIOD_SECONDS = 86_400
/** Every Golem gets a gas allowance: 0.05 ETH a day. */
export const DAILY_GAS_CAP_WEI = 50_000_000_000_000_000n
/** Daily caps by capability, USDC base units per day. */
export const BASE_DAILY_CAP = 100n * USDC_UNIT
export const VAULT_DAILY_CAP = 1_000n * USDC_UNIT
export const LP_DAILY_CAP = 500n * USDC_UNIT
export const BRIDGE_DAILY_EXTRA = 200n * USDC_UNIT
/** The runway guardrail: above these an explicit owner override is required. */
export const GUARDRAIL_MAX_RUNWAY_DAYS = 90
export const GUARDRAIL_MAX_DAILY_CAP = 100n * USDC_UNIT
/** A runway without an explicit length gets a 7-day window. */
export const DEFAULT_RUNWAY_DAYS = 7
/** Hard ceiling, override or not: ten years, the longest period the 7715 types accept. */
export const MAX_RUNWAY_DAYS = 3_650
export const MAX_STRATEGY_CHARS = 65_536

export type CompileStrategyParameters = {
  text: string
  chainId: number
  owner: Address
  sessionKey: Address
  /** From provisioning; must agree with front matter `runway_days` when both are given. */
  runwayDays?: number
  /** Unix seconds; the permission starts here and expires runwayDays later. */
  now: number
  registry: ProtocolRegistry
}

/**
 * The tokens one spender may be approved to pull. Each becomes its own delegation (buildGolemDelegation
 * `approvals`): approve only, on these tokens, its first argument pinned to `spender` by AllowedCalldata.
 */
export type SpenderApproval = { readonly spender: Address; readonly tokens: readonly Address[] }

/**
 * Calls of one capability that share one receiver layout: one actions delegation (buildGolemDelegation
 * `actions[i]`), AllowedTargets + AllowedMethods + an AllowedCalldata pin per receiver word, each holding
 * the owner's smart account. An AllowedCalldata caveat applies to every call of its delegation, hence
 * one delegation per layout.
 */
export type ActionCallSet = {
  /** "Swap: exactInputSingle". */
  readonly name: string
  readonly capability: Capability
  /** Sorted. */
  readonly targets: readonly Address[]
  /** Sorted. */
  readonly selectors: readonly Hex[]
  /** Byte offsets of the ABI words that must hold the owner's smart account; empty for calls with no receiver. */
  readonly receivers: readonly number[]
  /** Words that must hold a constant so each receiver is read where it is pinned (a dynamic tuple's offset). */
  readonly calldata: readonly { readonly startIndex: number; readonly value: Hex }[]
  /** The finer map target -> selectors. */
  readonly calls: readonly { readonly target: Address; readonly selectors: readonly Hex[] }[]
}

export type PermissionPlan = {
  readonly chainId: number
  readonly owner: Address
  readonly sessionKey: Address
  /** In CAPABILITIES order. */
  readonly capabilities: readonly Capability[]
  readonly usdc: Address
  /** USDC base units (6 decimals) per period. */
  readonly dailyUsdcCap: bigint
  readonly budgetSource: 'explicit' | 'capabilities'
  /** Wei per period. */
  readonly dailyGasCap: bigint
  /**
   * The capabilities' calls, one entry per (capability, receiver layout): each is one actions delegation
   * with its receivers pinned to `owner`. Never the runway's transfer, an approve or a transferFrom.
   */
  readonly actions: readonly ActionCallSet[]
  /** Union of every actions entry's targets, sorted: for display. Build delegations from `actions`. */
  readonly targets: readonly Address[]
  /** Union of every actions entry's selectors, sorted: for display. Build delegations from `actions`. */
  readonly selectors: readonly Hex[]
  /** The union as a map target -> selectors, for display. */
  readonly calls: readonly { readonly target: Address; readonly selectors: readonly Hex[] }[]
  /** One entry per spender (sorted), its tokens sorted: each is one approvals delegation with the spender pinned. */
  readonly approvals: readonly SpenderApproval[]
  readonly startTime: number
  readonly expiry: number
  readonly runwayDays: number
  readonly period: typeof PERIOD_SECONDS
  readonly override: boolean
  readonly warnings: readonly string[]
}

/** The estimated daily spend of the capabilities, without the explicit budget (that is applied by the caller). */
export function capabilityDailyCap(capabilities: ReadonlySet<Capability>): bigint {
  let cap = BASE_DAILY_CAP
  if (capabilities.has('VaultManagement')) cap = cap > VAULT_DAILY_CAP ? cap : VAULT_DAILY_CAP
  if (capabilities.has('ProvideLiquidity')) cap = cap > LP_DAILY_CAP ? cap : LP_DAILY_CAP
  if (capabilities.has('Bridge')) cap += BRIDGE_DAILY_EXTRA
  return cap
}

function checkParty(field: string, value: unknown): Address {
  if (typeof value !== 'string' || !isAddress(value) || value.toLowerCase() === zeroAddress) {
    throw new StrategyCompileError(
      field,
      `must be a non-zero 20-byte hex address (checksum-valid if mixed case), got ${JSON.stringify(value)}`,
    )
  }
  return getAddress(value)
}

function checkInputs(p: CompileStrategyParameters): { owner: Address; sessionKey: Address } {
  if (typeof p.text !== 'string' || p.text.trim() === '') throw new StrategyCompileError('text', 'must be a non-empty strategy')
  if (p.text.length > MAX_STRATEGY_CHARS)
    throw new StrategyCompileError('text', `must be at most ${MAX_STRATEGY_CHARS} characters, got ${p.text.length}`)
  if (!Number.isSafeInteger(p.chainId) || !SUPPORTED_CHAIN_IDS.includes(p.chainId)) {
    throw new StrategyCompileError('chainId', `unknown chain ${String(p.chainId)}; supported: ${SUPPORTED_CHAIN_IDS.join(', ')}`)
  }
  if (p.registry?.chainId !== p.chainId) {
    throw new StrategyCompileError('registry', `is for chain ${String(p.registry?.chainId)}, not ${p.chainId}`)
  }
  if (!Number.isSafeInteger(p.now) || p.now <= 0)
    throw new StrategyCompileError('now', `must be positive unix seconds, got ${String(p.now)}`)
  const owner = checkParty('owner', p.owner)
  const sessionKey = checkParty('sessionKey', p.sessionKey)
  if (owner === sessionKey) throw new StrategyCompileError('sessionKey', 'must differ from owner')
  return { owner, sessionKey }
}

function resolveRunwayDays(param: number | undefined, declared: number | undefined): number {
  if (param !== undefined && (!Number.isSafeInteger(param) || param <= 0)) {
    throw new StrategyCompileError('runwayDays', `must be a positive whole number of days, got ${String(param)}`)
  }
  if (param !== undefined && declared !== undefined && param !== declared) {
    throw new StrategyCompileError('runwayDays', `caller asks ${param} days but front matter runway_days says ${declared}; they must agree`)
  }
  const days = param ?? declared ?? DEFAULT_RUNWAY_DAYS
  if (days <= 0) throw new StrategyCompileError('runway_days', `must be at least 1 day, got ${days}`)
  if (days > MAX_RUNWAY_DAYS) throw new StrategyCompileError('runwayDays', `${days} days is above the hard ceiling of ${MAX_RUNWAY_DAYS}`)
  return days
}

/** V2 routers' liquidity removal: no caveat prices a V2 pair (V3's decreaseLiquidity is granted, price-bounded). */
const LIQUIDITY_REMOVAL_SELECTORS: readonly Hex[] = [
  '0xbaa2abde', // V2 removeLiquidity(address,address,uint256,uint256,uint256,address,uint256)
  '0x02751cec', // V2 removeLiquidityETH(address,uint256,uint256,uint256,address,uint256)
  '0x2195995c', // V2 removeLiquidityWithPermit
  '0xded9382a', // V2 removeLiquidityETHWithPermit
  '0xaf2979eb', // V2 removeLiquidityETHSupportingFeeOnTransferTokens
  '0x5b0d5984', // V2 removeLiquidityETHWithPermitSupportingFeeOnTransferTokens
]

const byLowerCase = (a: string, b: string) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0)
/** Never a capability's call: allowance setters name a spender, transfers a recipient, and AllowedMethods pins neither. */
const REFUSED_CALLS: readonly { selector: Hex; rule: string }[] = [
  { selector: SELECTORS.erc20Approve, rule: 'an approval must be a (token, spender) pair in approvals, so its spender can be pinned' },
  {
    selector: SELECTORS.erc20IncreaseAllowance,
    rule: 'an approval must be a (token, spender) pair in approvals, so its spender can be pinned',
  },
  {
    selector: SELECTORS.erc20Transfer,
    rule: "token movement from the owner's account goes through the runway's capped delegation; AllowedMethods cannot pin the recipient",
  },
  {
    selector: SELECTORS.erc20TransferFrom,
    rule: "token movement from the owner's account goes through the runway's capped delegation; AllowedMethods cannot pin the recipient",
  },
  ...LIQUIDITY_REMOVAL_SELECTORS.map((selector) => ({ selector, rule: LIQUIDITY_REMOVAL_RULE })),
]

const isOffset = (n: unknown, min: number): n is number => Number.isSafeInteger(n) && (n as number) >= min

/** A layout the compiler can act on, or a StrategyCompileError: a call whose receiver is not stated is never granted. */
function checkLayout(call: ContractCall, f: ProtocolFunction): CallLayout {
  const where = `${call.name} ${f.name} (${f.selector}) on ${call.target}`
  const refused = REFUSED_CALLS.find((r) => r.selector === f.selector.toLowerCase())
  if (refused !== undefined) throw new StrategyCompileError('registry', `${where} is listed as a call; ${refused.rule}`)
  const layout = f.layout as CallLayout | undefined
  const unknown = () =>
    new StrategyCompileError(
      'registry',
      `${where} states no valid receiver layout; every call must state where its receivers sit or that it has none, so that none is granted unpinned`,
    )
  if (layout === undefined || layout === null || typeof layout !== 'object') throw unknown()
  if (layout.kind === 'none' || layout.kind === 'unpinnable') return layout
  if (layout.kind !== 'receivers' || !Array.isArray(layout.receivers) || layout.receivers.length === 0) throw unknown()
  // A pinned word starts after the selector, and a receiver word is never also a fixed word.
  const offsets = [...layout.receivers.map((r) => r.startIndex), ...(layout.fixed ?? []).map((w) => w.startIndex)]
  if (!offsets.every((o) => isOffset(o, 4)) || new Set(offsets).size !== offsets.length) throw unknown()
  if (!(layout.fixed ?? []).every((w) => isHex(w.value) && size(w.value) === 32)) throw unknown()
  if (f.selector.toLowerCase() === SELECTORS.cctpDepositForBurn) {
    const pinned = new Set((layout.fixed ?? []).map((w) => w.startIndex))
    const free = Object.entries(CCTP_PINNED_WORDS)
      .filter(([, at]) => !pinned.has(at))
      .map(([name, at]) => `${name} (byte ${at})`)
    if (free.length > 0) throw new StrategyCompileError('registry', `${where} leaves ${free.join(', ')} free; ${BRIDGE_PIN_RULE}`)
  }
  return layout
}

const layoutKey = (layout: CallLayout): string =>
  layout.kind !== 'receivers'
    ? 'none'
    : JSON.stringify([
        layout.receivers.map((r) => r.startIndex).sort((a, b) => a - b),
        [...(layout.fixed ?? [])].sort((a, b) => a.startIndex - b.startIndex).map((w) => [w.startIndex, w.value.toLowerCase()]),
      ])

/**
 * A capability's calls grouped by receiver layout, one ActionCallSet each. Groups do not span
 * capabilities, so a target is never callable with another protocol's selector. An unpinnable function
 * is left out with a warning; a capability left with nothing callable is refused.
 */
function actionSets(capability: Capability, calls: readonly ContractCall[], warnings: string[]): ActionCallSet[] {
  const groups = new Map<string, { layout: CallLayout; names: string[]; calls: { target: Address; selectors: Hex[] }[] }>()
  for (const call of calls) {
    for (const f of call.functions) {
      const layout = checkLayout(call, f)
      if (layout.kind === 'unpinnable') {
        warnings.push(`${capability}: ${f.name} on ${call.name} is not granted: ${layout.why}`)
        continue
      }
      const key = layoutKey(layout)
      const group = groups.get(key) ?? { layout, names: [], calls: [] }
      if (!group.names.includes(f.name)) group.names.push(f.name)
      group.calls.push({ target: call.target, selectors: [f.selector] })
      groups.set(key, group)
    }
  }
  if (calls.some((c) => c.functions.length > 0) && groups.size === 0) {
    throw new StrategyCompileError(
      'capabilities',
      `${capability} has no call whose receiver can be pinned to the owner's account, so it is not granted`,
    )
  }
  return [...groups.values()].map(({ layout, names, calls: grouped }) => {
    const merged = mergeCalls(grouped)
    return {
      name: `${capability}: ${names.join(', ')}`,
      capability,
      targets: merged.map((c) => c.target),
      selectors: [...new Set(merged.flatMap((c) => c.selectors))].sort(),
      receivers: layout.kind === 'receivers' ? layout.receivers.map((r) => r.startIndex).sort((a, b) => a - b) : [],
      calldata:
        layout.kind === 'receivers'
          ? [...(layout.fixed ?? [])]
              .sort((a, b) => a.startIndex - b.startIndex)
              .map((w) => ({ startIndex: w.startIndex, value: w.value.toLowerCase() as Hex }))
          : [],
      calls: merged,
    }
  })
}

function groupApprovals(pairs: readonly TokenApproval[]): SpenderApproval[] {
  const bySpender = new Map<string, { spender: Address; tokens: Map<string, Address> }>()
  for (const { token, spender } of pairs) {
    const entry = bySpender.get(spender.toLowerCase()) ?? { spender: getAddress(spender), tokens: new Map<string, Address>() }
    entry.tokens.set(token.toLowerCase(), getAddress(token))
    bySpender.set(spender.toLowerCase(), entry)
  }
  return [...bySpender.values()]
    .sort((a, b) => byLowerCase(a.spender, b.spender))
    .map((e) => ({ spender: e.spender, tokens: [...e.tokens.values()].sort(byLowerCase) }))
}

function mergeCalls(calls: readonly { target: Address; selectors: readonly Hex[] }[]): { target: Address; selectors: Hex[] }[] {
  const byTarget = new Map<string, { target: Address; selectors: Set<Hex> }>()
  for (const call of calls) {
    const entry = byTarget.get(call.target.toLowerCase()) ?? { target: getAddress(call.target), selectors: new Set<Hex>() }
    for (const s of call.selectors) entry.selectors.add(s.toLowerCase() as Hex)
    byTarget.set(call.target.toLowerCase(), entry)
  }
  return [...byTarget.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, e]) => ({ target: e.target, selectors: [...e.selectors].sort() }))
}

/**
 * STRATEGY.md -> the minimal permission plan: only what the text asks for, in whole words, within the guardrail.
 * Pure: the clock comes in as `now`, the chain as `registry`. Throws StrategyCompileError for bad input
 * and StrategyGuardrailError when the plan needs an owner override it does not have.
 */
export function compileStrategy(p: CompileStrategyParameters): PermissionPlan {
  const { owner, sessionKey } = checkInputs(p)
  const doc = parseStrategyDocument(p.text)
  const warnings = [...doc.warnings]
  if (doc.hiddenBudgets.length > 0) {
    throw new StrategyCompileError(
      'budget',
      'declared inside code, a comment or a URL; write it in front matter or as a prose line "budget: $X/day"',
    )
  }

  const prose = analyzeProse(doc.prose)
  warnings.push(...prose.warnings)
  let capabilities: Set<Capability>
  if (doc.frontMatter.capabilities !== undefined) {
    capabilities = new Set(doc.frontMatter.capabilities)
    for (const c of prose.granted)
      if (!capabilities.has(c)) warnings.push(`text mentions ${c} but front matter capabilities are authoritative; not granted`)
    for (const c of prose.negated)
      if (capabilities.has(c)) warnings.push(`text refuses ${c} but front matter declares it; front matter wins`)
  } else {
    capabilities = prose.granted
    for (const c of CAPABILITIES) {
      if (prose.conflicted.has(c)) warnings.push(`text both asks for and refuses ${c}; the refusal wins and ${c} is not granted`)
      else if (prose.negated.has(c)) warnings.push(`text refuses ${c}; not granted`)
    }
  }

  const declarations = [
    ...(doc.frontMatter.budget === undefined ? [] : [{ raw: doc.frontMatter.budget, where: 'front matter' }]),
    ...doc.inlineBudgets,
  ].map((d) => ({ ...d, units: parseBudget(d.raw) }))
  const distinct = [...new Set(declarations.map((d) => d.units))]
  if (distinct.length > 1) {
    throw new StrategyCompileError(
      'budget',
      `declared ${declarations.length} times with different values (${declarations.map((d) => `${formatUsdc(d.units)} in ${d.where}`).join(', ')}); declare it once`,
    )
  }
  const explicit = distinct[0]
  const dailyUsdcCap = explicit ?? capabilityDailyCap(capabilities)
  const runwayDays = resolveRunwayDays(p.runwayDays, doc.frontMatter.runwayDays)
  const override = doc.frontMatter.override === true

  const actions: ActionCallSet[] = []
  const pairs: TokenApproval[] = []
  const ordered = CAPABILITIES.filter((c) => capabilities.has(c))
  for (const c of ordered) {
    const served = p.registry.capabilities[c]
    if (served === undefined) {
      const why = p.registry.unserved?.[c] ?? 'its protocol registry has no contract for it'
      throw new StrategyCompileError('capabilities', `${c} is not available on chain ${p.chainId} (${p.registry.name}): ${why}`)
    }
    actions.push(...actionSets(c, served.calls, warnings))
    pairs.push(...served.approvals)
  }
  const violations: { field: string; rule: string }[] = []
  if (dailyUsdcCap > GUARDRAIL_MAX_DAILY_CAP) {
    violations.push({
      field: 'dailyUsdcCap',
      rule: `${formatUsdc(dailyUsdcCap)} USDC/day is over the ${formatUsdc(GUARDRAIL_MAX_DAILY_CAP)} USDC/day runway guardrail`,
    })
  }
  if (runwayDays > GUARDRAIL_MAX_RUNWAY_DAYS) {
    violations.push({ field: 'runwayDays', rule: `${runwayDays} days is over the ${GUARDRAIL_MAX_RUNWAY_DAYS}-day runway guardrail` })
  }
  const first = violations[0]
  if (first !== undefined && !override) {
    throw new StrategyGuardrailError(first.field, `${first.rule}; the owner must set "override: true" in front matter`, {
      violations,
      dailyUsdcCap: dailyUsdcCap.toString(),
      runwayDays,
    })
  }
  if (override && first === undefined) warnings.push('override: true is set but nothing needs it')

  const merged = mergeCalls(actions.flatMap((a) => a.calls))
  return {
    chainId: p.chainId,
    owner,
    sessionKey,
    capabilities: ordered,
    usdc: getAddress(p.registry.usdc),
    dailyUsdcCap,
    budgetSource: explicit === undefined ? 'capabilities' : 'explicit',
    dailyGasCap: DAILY_GAS_CAP_WEI,
    targets: merged.map((c) => c.target),
    selectors: [...new Set(merged.flatMap((c) => c.selectors))].sort(),
    calls: merged,
    actions,
    approvals: groupApprovals(pairs),
    startTime: p.now,
    expiry: p.now + runwayDays * PERIOD_SECONDS,
    runwayDays,
    period: PERIOD_SECONDS,
    override,
    warnings,
  }
}
