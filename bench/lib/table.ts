// Shared output helpers for the bench harness: markdown tables (readable on a terminal and pasteable
// into docs/benchmarks.md), grouped integers, ratios against a baseline measured in the same run, and
// a generic rendering for a benchmark result that ships no formatter of its own.

export type Align = 'left' | 'right'
export type Column = { header: string; align?: Align }

/** A markdown table with padded columns; numbers are best passed pre-formatted and right-aligned. */
export function formatTable(columns: readonly (Column | string)[], rows: readonly (readonly string[])[]): string {
  const cols: Column[] = columns.map((c) => (typeof c === 'string' ? { header: c } : c))
  const widths = cols.map((c, i) => Math.max(c.header.length, 3, ...rows.map((r) => (r[i] ?? '').length)))
  const pad = (text: string, i: number) => (cols[i]!.align === 'right' ? text.padStart(widths[i]!) : text.padEnd(widths[i]!))
  const line = (cells: readonly string[]) => `| ${cols.map((_, i) => pad(cells[i] ?? '', i)).join(' | ')} |`
  const rule = `|${cols.map((c, i) => (c.align === 'right' ? `${'-'.repeat(widths[i]! + 1)}:` : '-'.repeat(widths[i]! + 2))).join('|')}|`
  return [line(cols.map((c) => c.header)), rule, ...rows.map(line)].join('\n')
}

/** 150498n -> "150,498". */
export function formatInt(n: bigint | number): string {
  const s = (typeof n === 'bigint' ? n : BigInt(Math.round(n))).toString()
  const neg = s.startsWith('-')
  const digits = neg ? s.slice(1) : s
  return `${neg ? '-' : ''}${digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`
}

/** A signed difference: "+21,830" / "-1,204" / "0". */
export function formatDelta(n: bigint): string {
  return n > 0n ? `+${formatInt(n)}` : formatInt(n)
}

/** value / baseline as a number (exact enough for gas-sized bigints). */
export function ratio(value: bigint | number, baseline: bigint | number): number {
  const b = Number(baseline)
  if (b === 0) throw new Error('ratio: the baseline is 0')
  return Number(value) / b
}

/** "1.234x". */
export function formatRatio(r: number, digits = 3): string {
  return `${r.toFixed(digits)}x`
}

/** PASS when `value` is within the goal (at most `goal` by default, at least `goal` with `atLeast`). */
export function verdict(value: number, goal: number, direction: 'atMost' | 'atLeast' = 'atMost'): 'PASS' | 'MISS' {
  return (direction === 'atMost' ? value <= goal : value >= goal) ? 'PASS' : 'MISS'
}

/** Flattens nested plain objects to dotted keys (arrays are summarised by length). */
export function flatten(value: unknown, prefix = ''): [string, string][] {
  if (value === null || typeof value !== 'object') return [[prefix || 'value', formatScalar(value)]]
  if (Array.isArray(value)) return [[prefix || 'value', `${value.length} item(s)`]]
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => flatten(v, prefix ? `${prefix}.${k}` : k))
}

function formatScalar(v: unknown): string {
  if (typeof v === 'bigint') return formatInt(v)
  if (typeof v === 'number') return Number.isInteger(v) ? formatInt(v) : String(Math.round(v * 1000) / 1000)
  return String(v)
}

/** A two-column table of whatever a benchmark returned, for modules without a formatter. */
export function formatResultTable(result: unknown): string {
  return formatTable(['field', { header: 'value', align: 'right' }], flatten(result))
}
