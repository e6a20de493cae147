// Just-in-time runway: how much of the runway token the Golem's key should hold for the coming period.
// The key holds money only to pay its own costs (its runtime, bought over x402); whatever else it held
// would be what a thief with the key could take beyond the period's cap. So the tick tops the key up to
// what the coming period needs, never past the ceiling the owner set, and the rest stays in the owner's
// account. Pure.
import { SECONDS_PER_HOUR } from '../x402/pricing.ts'
import { BardoError } from '../errors.ts'

export type RunwayTargetInput = {
  periodAmount: bigint
  periodDuration: bigint
  /** The most the key may hold (the profile's runway.keyCeiling); default one period's allowance. */
  keyCeiling?: bigint
  /** The runtime's price per hour when the Golem buys its own; absent, its costs are not known here. */
  runtimeCostPerHour?: bigint
}

/** The key's ceiling when the owner set none: one period's allowance, the bound the threat model states. */
export function keyCeilingOf(p: { periodAmount: bigint; keyCeiling?: bigint | undefined }): bigint {
  return p.keyCeiling ?? p.periodAmount
}

/**
 * The runtime of one period, bought in whole hours (the API sells no less than an hour), at least one;
 * capped by the ceiling. A Golem whose costs are not known here (no runtime price) is topped up to the
 * ceiling, which still bounds what its key holds.
 */
export function runwayTarget(input: RunwayTargetInput): bigint {
  for (const [field, value] of [
    ['periodAmount', input.periodAmount],
    ['periodDuration', input.periodDuration],
    ['keyCeiling', input.keyCeiling ?? 0n],
    ['runtimeCostPerHour', input.runtimeCostPerHour ?? 0n],
  ] as const) {
    if (value < 0n) throw new BardoError('INVALID_RUNWAY_TARGET', `${field}: must not be negative, got ${value}`)
  }
  const ceiling = keyCeilingOf(input)
  if (input.runtimeCostPerHour === undefined) return ceiling
  const hours = (input.periodDuration + SECONDS_PER_HOUR - 1n) / SECONDS_PER_HOUR
  const need = (hours > 1n ? hours : 1n) * input.runtimeCostPerHour
  return need < ceiling ? need : ceiling
}
