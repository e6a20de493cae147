import { StrategyCompileError } from './errors.ts'

export const USDC_DECIMALS = 6
export const USDC_UNIT = 1_000_000n

/**
 * The largest daily budget a strategy may declare, override or not: 1,000,000 USDC/day. Above it a
 * number is far more likely a typo (or an attack on the parser) than a plan.
 */
export const MAX_DAILY_BUDGET_USDC = 1_000_000n * USDC_UNIT

const DAY_UNITS = new Set(['day', 'd', '24h'])
const OTHER_PERIODS = new Set([
  'week',
  'wk',
  'w',
  'month',
  'mo',
  'year',
  'yr',
  'y',
  'hour',
  'hr',
  'h',
  'minute',
  'min',
  'second',
  's',
  'fortnight',
])
const ADVERBS: Record<string, string> = {
  daily: 'day',
  weekly: 'week',
  monthly: 'month',
  yearly: 'year',
  annually: 'year',
  hourly: 'hour',
}

const GRAMMAR =
  /^(?<cur>\$|usd\s+|usdc\s+)?\s*(?<num>[0-9][0-9,]*(?:\.[0-9]+)?)\s*(?<tok>usdc|usd|dollars?)?\s*(?:(?:\/|per\s+|a\s+|each\s+)(?<per>[a-z0-9]+)|(?<adv>[a-z]+))?$/

/**
 * Parses a budget declaration ("$250/day", "1,250.50 USDC per day", "100") into USDC base units per day.
 * Exact decimal arithmetic, no floats. Refuses: negative or zero amounts, more than 6 decimals, malformed
 * thousands separators, scientific notation, amounts over MAX_DAILY_BUDGET_USDC, and periods other than a
 * day (the permission's period is 86400 s; converting "$700/week" to $100/day would silently change what
 * the owner wrote, so the owner is asked to write the daily figure).
 */
export function parseBudget(raw: string, field = 'budget'): bigint {
  const value = raw.trim().toLowerCase().replace(/\s+/g, ' ')
  if (/^(?:\$|usdc?\s*)?\s*-/.test(value)) throw new StrategyCompileError(field, `must be a positive amount, got "${raw}"`)
  const m = GRAMMAR.exec(value)
  const groups = m?.groups
  if (groups === undefined || groups.num === undefined) {
    throw new StrategyCompileError(field, `cannot parse "${raw}"; write e.g. "budget: $250/day"`)
  }
  const period = groups.per ?? (groups.adv === undefined ? 'day' : ADVERBS[groups.adv])
  if (period === undefined) throw new StrategyCompileError(field, `cannot parse "${raw}"; write e.g. "budget: $250/day"`)
  if (!DAY_UNITS.has(period)) {
    const rule = OTHER_PERIODS.has(period)
      ? `only daily budgets are supported (the permission period is 86400 s); write the per-day amount, got "${raw}"`
      : `unknown period "${period}" in "${raw}"; write e.g. "budget: $250/day"`
    throw new StrategyCompileError(field, rule)
  }
  const [intPart = '', fracPart = ''] = groups.num.split('.')
  if (intPart.includes(',') && !/^\d{1,3}(?:,\d{3})+$/.test(intPart)) {
    throw new StrategyCompileError(field, `thousands separators must group three digits, got "${raw}"`)
  }
  if (fracPart.length > USDC_DECIMALS) {
    throw new StrategyCompileError(field, `USDC has ${USDC_DECIMALS} decimals; "${raw}" has ${fracPart.length}`)
  }
  const units = BigInt(intPart.replace(/,/g, '')) * USDC_UNIT + BigInt(fracPart.padEnd(USDC_DECIMALS, '0') || '0')
  if (units === 0n) throw new StrategyCompileError(field, `must be greater than 0, got "${raw}"`)
  if (units > MAX_DAILY_BUDGET_USDC) {
    throw new StrategyCompileError(
      field,
      `${formatUsdc(units)} USDC/day is above the hard ceiling of ${formatUsdc(MAX_DAILY_BUDGET_USDC)} USDC/day`,
    )
  }
  return units
}

/** 1234500000n -> "1234.5" (for messages and justifications). */
export function formatUsdc(units: bigint): string {
  const whole = units / USDC_UNIT
  const frac = (units % USDC_UNIT).toString().padStart(USDC_DECIMALS, '0').replace(/0+$/, '')
  return frac === '' ? whole.toString() : `${whole}.${frac}`
}
