// Pure period arithmetic for the spend tables, matching the enforcers' own rules, so handlers stay
// thin and these rules can be tested without a chain.

export const SECONDS_PER_DAY = 86_400n
export const NATIVE_ASSET = '0x0000000000000000000000000000000000000000'
export const USD_ASSET = 'usd'

/** UTC day number, as DailySpendLimitEnforcer computes it (block.timestamp / 1 days). */
export function utcDay(timestamp: bigint): number {
  return Number(timestamp / SECONDS_PER_DAY)
}

/** The DailySpendLimit period that `day` names: [day * 86400, (day + 1) * 86400). */
export function dayPeriod(day: bigint): { periodStart: bigint; periodEnd: bigint } {
  return { periodStart: day * SECONDS_PER_DAY, periodEnd: (day + 1n) * SECONDS_PER_DAY }
}

/**
 * The window the framework's ERC20/NativeTokenPeriodTransferEnforcer counts `timestamp` in:
 * periods of `periodDuration` seconds starting at `startDate`.
 */
export function transferPeriod(startDate: bigint, periodDuration: bigint, timestamp: bigint): { periodStart: bigint; periodEnd: bigint } {
  if (periodDuration <= 0n || timestamp < startDate) return { periodStart: startDate, periodEnd: startDate + periodDuration }
  const index = (timestamp - startDate) / periodDuration
  const periodStart = startDate + index * periodDuration
  return { periodStart, periodEnd: periodStart + periodDuration }
}

/**
 * The amount one TransferredInPeriod added: the enforcer reports the period's running total, so the
 * step is the difference from the previous total in the same period (the whole total in a new one).
 */
export function periodDelta(previousInPeriod: bigint | undefined, totalInPeriod: bigint): bigint {
  if (previousInPeriod === undefined || totalInPeriod < previousInPeriod) return totalInPeriod
  return totalInPeriod - previousInPeriod
}

/** `YYYY-MM-DD` of a UTC day number. */
export function dayLabel(day: number): string {
  return new Date(day * 86_400_000).toISOString().slice(0, 10)
}

/** UTC day number of `YYYY-MM-DD`, or undefined if it is not such a date. */
export function parseDayLabel(label: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(label)) return undefined
  const ms = Date.parse(`${label}T00:00:00Z`)
  if (Number.isNaN(ms) || dayLabel(ms / 86_400_000) !== label) return undefined
  return ms / 86_400_000
}
