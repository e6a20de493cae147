import type { Capability } from './capability.ts'
import { StrategyCompileError } from './errors.ts'

/** Structured declarations from the YAML-ish front matter block (`---` ... `---` on the first lines). */
export type FrontMatter = {
  /** Present only when the key was written; then it is the whole, authoritative capability set. */
  capabilities?: Capability[]
  budget?: string
  runwayDays?: number
  override?: boolean
}

export type BudgetDeclaration = { raw: string; where: string }

export type StrategyDocument = {
  frontMatter: FrontMatter
  /**
   * The text a person reads as instructions: front matter and fenced code blanked with spaces; inline
   * code, HTML comments and URLs filled with "_" (a word character, so they glue to adjacent words).
   */
  prose: string
  /** `budget:` lines in prose (front matter budget is in frontMatter.budget). */
  inlineBudgets: BudgetDeclaration[]
  /** `budget:` lines found inside code or comments: never honoured, and never silently ignored. */
  hiddenBudgets: BudgetDeclaration[]
  warnings: string[]
}

/** Front matter names for capabilities, lower-cased with `-` and spaces read as `_`. */
const CAPABILITY_NAMES: Record<string, Capability> = {
  swap: 'Swap',
  swaps: 'Swap',
  dca: 'Swap',
  trade: 'Swap',
  provide_liquidity: 'ProvideLiquidity',
  provideliquidity: 'ProvideLiquidity',
  liquidity: 'ProvideLiquidity',
  lp: 'ProvideLiquidity',
  vault: 'VaultManagement',
  vaults: 'VaultManagement',
  vault_management: 'VaultManagement',
  vaultmanagement: 'VaultManagement',
  bridge: 'Bridge',
  spawn_replicants: 'SpawnReplicants',
  spawnreplicants: 'SpawnReplicants',
  replicants: 'SpawnReplicants',
  limit_orders: 'LimitOrders',
  limitorders: 'LimitOrders',
}

const KNOWN_KEYS = new Set(['capabilities', 'budget', 'runway_days', 'override'])
/** Descriptive keys a STRATEGY.md may carry that the compiler reads past without comment. */
const DESCRIPTIVE_KEYS = new Set(['name', 'title', 'description', 'author', 'version', 'golem'])

// "budget:" anywhere in a line (a whole word, optionally bold); the value runs to the end of the sentence.
const BUDGET_DECLARATION = /(?<![\p{L}\p{N}_-])budget(?:\*\*|__)?\s*:(.*?)(?:;|\.(?=\s|$)|$)/giu

function budgetsIn(line: string): string[] {
  return [...line.matchAll(BUDGET_DECLARATION)].map((m) => (m[1] ?? '').replace(/^[\s*_]+|[\s*_`]+$/g, ''))
}
const OVERRIDE_LINE = /^\s*(?:[-*+]\s+)?(?:\*\*|__)?override(?:\*\*|__)?\s*:/i

function unquote(value: string): string {
  const v = value.replace(/\s+#.*$/, '').trim()
  return /^(["']).*\1$/.test(v) ? v.slice(1, -1) : v
}

function parseCapabilityList(items: string[]): Capability[] {
  return items.map((item) => {
    const name = unquote(item)
      .toLowerCase()
      .replace(/[-\s]+/g, '_')
    const capability = CAPABILITY_NAMES[name]
    if (capability === undefined) {
      throw new StrategyCompileError(
        'capabilities',
        `unknown capability "${unquote(item)}"; known: ${[...new Set(Object.values(CAPABILITY_NAMES))].join(', ')}`,
      )
    }
    return capability
  })
}

function parseFrontMatter(lines: string[]): { frontMatter: FrontMatter; warnings: string[] } {
  const raw = new Map<string, { value: string; items: string[] }>()
  const warnings: string[] = []
  let lastKey: string | undefined
  lines.forEach((line, i) => {
    if (line.trim() === '' || /^\s*#/.test(line)) return
    const item = /^\s+-\s*(.*)$|^-\s+(.*)$/.exec(line)
    if (item !== null && lastKey !== undefined && raw.get(lastKey)?.value === '') {
      raw.get(lastKey)?.items.push((item[1] ?? item[2] ?? '').trim())
      return
    }
    const kv = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line)
    if (kv === null) throw new StrategyCompileError('frontMatter', `line ${i + 2}: expected "key: value", got "${line.trim()}"`)
    const key = (kv[1] ?? '').toLowerCase().replace(/-/g, '_')
    if (raw.has(key)) throw new StrategyCompileError(key, `declared twice in front matter`)
    raw.set(key, { value: unquote(kv[2] ?? ''), items: [] })
    lastKey = key
    if (!KNOWN_KEYS.has(key) && !DESCRIPTIVE_KEYS.has(key)) warnings.push(`front matter key "${key}" is not used by the compiler`)
  })

  const frontMatter: FrontMatter = {}
  const caps = raw.get('capabilities')
  if (caps !== undefined) {
    const v = caps.value
    const list = v === '' ? caps.items : /^\[.*\]$/.test(v) ? v.slice(1, -1).split(',') : v.split(',')
    frontMatter.capabilities = parseCapabilityList(list.map((s) => s.trim()).filter((s) => s !== ''))
  }
  const budget = raw.get('budget')
  if (budget !== undefined) frontMatter.budget = budget.value
  const runway = raw.get('runway_days')
  if (runway !== undefined) {
    if (!/^\d{1,6}$/.test(runway.value)) {
      throw new StrategyCompileError('runway_days', `must be a whole number of days, got "${runway.value}"`)
    }
    frontMatter.runwayDays = Number(runway.value)
  }
  const override = raw.get('override')
  if (override !== undefined) {
    // A safety switch takes exactly true or false: "yes", "1" or "on" are refused rather than guessed.
    if (override.value !== 'true' && override.value !== 'false') {
      throw new StrategyCompileError('override', `must be true or false, got "${override.value}"`)
    }
    frontMatter.override = override.value === 'true'
  }
  return { frontMatter, warnings }
}

/** Replaces a match with `fill` of the same shape, keeping newlines so line numbers and clauses survive. */
function blank(match: string, fill = ' '): string {
  return match.replace(/[^\n]/g, fill)
}

/** Fenced code blocks (``` or ~~~, CommonMark: an unclosed fence runs to the end). */
function blankFences(lines: string[], hidden: string[]): string[] {
  const out: string[] = []
  let fence: string | undefined
  for (const line of lines) {
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(line)
    if (fence === undefined && open !== null) {
      fence = open[1]
      hidden.push(line)
      out.push(blank(line))
    } else if (fence !== undefined) {
      if (new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`).test(line)) fence = undefined
      hidden.push(line)
      out.push(blank(line))
    } else out.push(line)
  }
  return out
}

const HIDDEN_SPANS: RegExp[] = [
  /<!--[\s\S]*?(?:-->|$)/g, // HTML comments: invisible when rendered, so never instructions
  /(`+)[^`]*?\1/g, // inline code
  /\b(?:https?|ftp):\/\/[^\s<>)\]]+/gi, // URLs
  /\bwww\.[^\s<>)\]]+/gi,
  /\b[\w-]+(?:\.[a-z][\w-]*)+\/[^\s<>)\]]*/gi, // bare domain with a path (uniswap.org/swap); not 250.50/day
]

/**
 * Splits a STRATEGY.md into front matter, readable prose and budget declarations.
 * Throws StrategyCompileError for malformed front matter.
 */
export function parseStrategyDocument(text: string): StrategyDocument {
  const lines = text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .split('\n')
  let frontMatter: FrontMatter = {}
  const warnings: string[] = []
  let body = lines
  if (lines[0]?.trim() === '---') {
    const end = lines.findIndex((l, i) => i > 0 && (l.trim() === '---' || l.trim() === '...'))
    if (end === -1) throw new StrategyCompileError('frontMatter', 'opened with "---" on line 1 but never closed')
    const parsed = parseFrontMatter(lines.slice(1, end))
    frontMatter = parsed.frontMatter
    warnings.push(...parsed.warnings)
    body = [...lines.slice(0, end + 1).map(() => ''), ...lines.slice(end + 1)]
  }

  const hiddenText: string[] = []
  const visible = blankFences(body, hiddenText).join('\n')
  // Two blankings of the same spans: for capabilities a removed span is filled with a word character, so
  // a word touching it ("swap-https://...", "`x`lp") stays glued to it and matches nothing; for budgets it
  // is filled with spaces, so a declaration next to code is still found rather than silently dropped.
  let prose = visible
  let budgetText = visible
  for (const pattern of HIDDEN_SPANS) {
    prose = prose.replace(pattern, (m) => {
      hiddenText.push(...m.split('\n'))
      return blank(m, '_')
    })
    budgetText = budgetText.replace(pattern, (m) => blank(m))
  }

  const inlineBudgets: BudgetDeclaration[] = []
  budgetText.split('\n').forEach((line, i) => {
    for (const raw of budgetsIn(line)) inlineBudgets.push({ raw, where: `line ${i + 1}` })
    if (OVERRIDE_LINE.test(line)) warnings.push(`line ${i + 1}: override is honoured only in front matter; this line is ignored`)
  })
  const hiddenBudgets = hiddenText.flatMap((l) => budgetsIn(l).map((raw) => ({ raw, where: 'code, comment or URL' })))
  return { frontMatter, prose, inlineBudgets, hiddenBudgets, warnings }
}
