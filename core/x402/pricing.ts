// What extend and feed cost and what a settled payment buys. Pure.
import { X402ConfigError } from './errors.ts'

export type PaymentKind = 'extend' | 'feed'

/** Prices in the payment asset's atomic units (USDC: 6 decimals). */
export type GolemPricing = {
  /** What one hour of the Golem's runtime costs; /extend takes at least one hour of it. */
  runtimeCostPerHour: bigint
  /** The death reserve; /feed takes at least this. */
  deathReserve: bigint
}

/**
 * What a settled payment is worth to the Golem. The heartbeat applies it: `extend` adds runway
 * seconds, `feed` adds runway and asks the operator to reset the phase.
 */
export type Credit =
  | { kind: 'extend'; golemId: string; seconds: bigint; amount: bigint }
  | { kind: 'feed'; golemId: string; amount: bigint }

export const SECONDS_PER_HOUR = 3600n
/** The API allows up to 90 days per request; the same bound keeps prices far from overflow concerns. */
export const MAX_EXTEND_HOURS = 24 * 90

export function assertPricing(pricing: GolemPricing): GolemPricing {
  if (typeof pricing.runtimeCostPerHour !== 'bigint' || pricing.runtimeCostPerHour <= 0n) {
    throw new X402ConfigError('pricing.runtimeCostPerHour', 'must be a positive bigint (atomic units of the asset)')
  }
  if (typeof pricing.deathReserve !== 'bigint' || pricing.deathReserve <= 0n) {
    throw new X402ConfigError('pricing.deathReserve', 'must be a positive bigint (atomic units of the asset)')
  }
  return pricing
}

/** The minimum /extend payment for `hours` whole hours (the request names the hours; at least one). */
export function extendPrice(pricing: GolemPricing, hours = 1): bigint {
  if (!Number.isSafeInteger(hours) || hours < 1 || hours > MAX_EXTEND_HOURS) {
    throw new RangeError(`hours: must be an integer from 1 to ${MAX_EXTEND_HOURS}, got ${hours}`)
  }
  return pricing.runtimeCostPerHour * BigInt(hours)
}

export function feedPrice(pricing: GolemPricing): bigint {
  return pricing.deathReserve
}

export function priceFor(kind: PaymentKind, pricing: GolemPricing, hours = 1): bigint {
  return kind === 'extend' ? extendPrice(pricing, hours) : feedPrice(pricing)
}

/**
 * The credit for a settled payment of `amount` (already checked to be at least the price).
 * Extend is pro-rata to the second, rounded down: an overpayment buys more time rather than being
 * kept, and rounding down never gives time that was not paid for.
 */
export function creditFor(kind: PaymentKind, golemId: string, amount: bigint, pricing: GolemPricing): Credit {
  if (kind === 'feed') return { kind, golemId, amount }
  return { kind, golemId, amount, seconds: (amount * SECONDS_PER_HOUR) / pricing.runtimeCostPerHour }
}
