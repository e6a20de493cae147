import { formatUnits, getAddress, toFunctionSelector, zeroAddress, type Address, type Hex } from 'viem'

/** Names a reader knows things by. Keys are addresses / selectors in any case. */
export type Labels = {
  tokens?: Record<string, { symbol: string; decimals: number }>
  targets?: Record<string, string>
  methods?: Record<string, string>
}

/** Selector names from docs/contracts.md's seeded table, computed from their signatures (never typed by hand). */
const KNOWN_SIGNATURES = [
  'transfer(address,uint256)',
  'transferFrom(address,address,uint256)',
  'approve(address,uint256)',
  'deposit(uint256,address)',
  'mint(uint256,address)',
  'withdraw(uint256,address,address)',
  'redeem(uint256,address,address)',
  'exactInputSingle((address,address,uint24,address,uint256,uint256,uint160))',
  'exactInput((bytes,address,uint256,uint256))',
  'exactOutputSingle((address,address,uint24,address,uint256,uint256,uint160))',
  'exactOutput((bytes,address,uint256,uint256))',
  'exactInputSingle((address,address,uint24,address,uint256,uint256,uint256,uint160))',
  'exactInput((bytes,address,uint256,uint256,uint256))',
  'swapExactTokensForTokens(uint256,uint256,address[],address,uint256)',
  'addLiquidity(address,address,uint256,uint256,uint256,uint256,address,uint256)',
  'removeLiquidity(address,address,uint256,uint256,uint256,address,uint256)',
  'mint((address,address,uint24,int24,int24,uint256,uint256,uint256,uint256,address,uint256))',
  'increaseLiquidity((uint256,uint256,uint256,uint256,uint256,uint256))',
  'decreaseLiquidity((uint256,uint128,uint256,uint256,uint256))',
  'collect((uint256,address,uint128,uint128))',
  'burn(uint256)',
] as const
export const KNOWN_SELECTORS: Readonly<Record<string, string>> = Object.fromEntries(
  KNOWN_SIGNATURES.map((sig) => [toFunctionSelector(`function ${sig}`), sig.slice(0, sig.indexOf('('))]),
)

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const
const lookup = <T>(map: Record<string, T> | undefined, key: string): T | undefined => {
  if (!map) return undefined
  const k = key.toLowerCase()
  for (const [mk, v] of Object.entries(map)) if (mk.toLowerCase() === k) return v
  return undefined
}

/** 1234567 -> "1,234,567"; keeps a fractional part as is. */
export function groupDigits(decimal: string): string {
  const negative = decimal.startsWith('-')
  const [int = '0', frac] = (negative ? decimal.slice(1) : decimal).split('.')
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  return `${negative ? '-' : ''}${grouped}${frac === undefined ? '' : `.${frac}`}`
}

export const labelAddress = (address: Address, labels: Labels = {}): string =>
  lookup(labels.targets, address) ?? lookup(labels.tokens, address)?.symbol ?? getAddress(address)

/** A token by symbol when known; address(0) is native ETH, as the USD enforcers' feeds use it. */
export const labelToken = (token: Address, labels: Labels = {}): string =>
  token.toLowerCase() === zeroAddress ? 'ETH' : labelAddress(token, labels)

export const labelSelector = (selector: Hex, labels: Labels = {}): string =>
  lookup(labels.methods, selector) ?? KNOWN_SELECTORS[selector.toLowerCase()] ?? selector.toLowerCase()

/** "100 USDC", "0.01 ETH"; an unknown token shows base units and its address. */
export function formatTokenAmount(amount: bigint, token: Address | 'native', labels: Labels = {}): string {
  if (token === 'native' || token.toLowerCase() === zeroAddress) return `${groupDigits(formatUnits(amount, 18))} ETH`
  const info = lookup(labels.tokens, token)
  if (!info) return `${groupDigits(amount.toString())} base units of ${getAddress(token)}`
  return `${groupDigits(formatUnits(amount, info.decimals))} ${info.symbol}`
}

/** USD with 6 decimals -> "$1,000.00" (two decimals, more only when they carry value). */
export function formatUsd(usd6: bigint): string {
  const s = formatUnits(usd6, 6)
  const [int = '0', frac = ''] = s.split('.')
  return `$${groupDigits(int)}.${frac.padEnd(2, '0')}`
}

const UNITS = [
  [604_800n, 'week'],
  [86_400n, 'day'],
  [3_600n, 'hour'],
  [60n, 'minute'],
  [1n, 'second'],
] as const

/** 86400 -> "a day"; 2592000 -> "every 30 days"; 5400 -> "every 90 minutes". */
export function formatPeriod(seconds: bigint): string {
  for (const [size, unit] of UNITS) {
    if (seconds === size) return unit === 'hour' ? 'an hour' : `a ${unit}`
  }
  for (const [size, unit] of UNITS.slice(1)) {
    if (seconds % size === 0n) return `every ${seconds / size} ${unit}s`
  }
  return `every ${seconds} seconds`
}

/** The short form for errors: "/day", "/hour", " per 30 days". */
export function perPeriod(seconds: bigint): string {
  for (const [size, unit] of UNITS) if (seconds === size) return `/${unit}`
  return ` per ${formatPeriod(seconds).replace(/^every /, '')}`
}

/** 86400 -> "24 hours", 604800 -> "7 days", 90 -> "90 seconds". */
export function formatDuration(seconds: bigint): string {
  if (seconds === 0n) return '0 seconds'
  const plural = (n: bigint, unit: string) => `${n} ${unit}${n === 1n ? '' : 's'}`
  if (seconds % 86_400n === 0n && seconds > 86_400n) return plural(seconds / 86_400n, 'day')
  if (seconds % 3_600n === 0n) return plural(seconds / 3_600n, 'hour')
  if (seconds % 60n === 0n) return plural(seconds / 60n, 'minute')
  return plural(seconds, 'second')
}

/** Unix seconds -> "21 Dec 2026" (UTC), with the time when it is not midnight. */
export function formatDate(seconds: bigint): string {
  if (seconds > 8_640_000_000_000n) return `timestamp ${seconds}`
  const d = new Date(Number(seconds) * 1000)
  const date = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`
  const h = d.getUTCHours()
  const m = d.getUTCMinutes()
  const s = d.getUTCSeconds()
  if (h === 0 && m === 0 && s === 0) return date
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${date} ${pad(h)}:${pad(m)}${s === 0 ? '' : `:${pad(s)}`} UTC`
}

/** 50 -> "0.5%", 500 -> "5%", 1234 -> "12.34%". */
export function formatBps(bps: number): string {
  const whole = Math.floor(bps / 100)
  const frac = String(bps % 100)
    .padStart(2, '0')
    .replace(/0+$/, '')
  return `${whole}${frac ? `.${frac}` : ''}%`
}

/** ["a"] -> "a"; ["a","b"] -> "a and b"; ["a","b","c"] -> "a, b and c". */
export function listPhrase(items: readonly string[], conjunction = 'and'): string {
  if (items.length <= 1) return items[0] ?? ''
  return `${items.slice(0, -1).join(', ')} ${conjunction} ${items[items.length - 1]}`
}

/** "[WETH, 0xAbC…]" for error messages. */
export const bracket = (items: readonly string[]): string => `[${items.join(', ')}]`
