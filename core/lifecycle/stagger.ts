// When in its period a Golem's tick redeems its runway. Every Golem whose grant was built in the same
// minute shares one period grid, so a fleet onboarded in bulk would redeem in the same minute of every
// period; instead each Golem waits a fixed offset into its period, a hash of its id, and the fleet's
// redemptions spread over a window at the start of the period. The grant itself is never changed. Pure.
import { keccak256, stringToBytes } from 'viem'

/** The window is this share of the period (a 24th: an hour of a day)... */
export const STAGGER_WINDOW_DIVISOR = 24n
/** ...and never longer than an hour, so no Golem waits longer than that for its runway. */
export const MAX_STAGGER_WINDOW_SECONDS = 3_600n

/** The stagger window of a period: offsets fall in [0, window). Zero for a period too short to spread. */
export function staggerWindow(periodDuration: bigint): bigint {
  if (periodDuration <= 0n) return 0n
  const share = periodDuration / STAGGER_WINDOW_DIVISOR
  return share < MAX_STAGGER_WINDOW_SECONDS ? share : MAX_STAGGER_WINDOW_SECONDS
}

/**
 * A Golem's offset into each of its periods: keccak256 of its id modulo the window. Deterministic, so
 * every tick (and every retry) of a Golem agrees on it without storing it.
 */
export function staggerOffset(golemId: string, periodDuration: bigint): bigint {
  const window = staggerWindow(periodDuration)
  return window === 0n ? 0n : BigInt(keccak256(stringToBytes(golemId))) % window
}

export type RunwayDueInput = {
  golemId: string
  /** When the Golem was born (its profile's life). */
  bornAt: bigint
  /** The runway grant's period start (the period enforcer's startDate). */
  grantStart: bigint
  /** Start of the period the tick is in, and the period's length. */
  currentPeriodStart: bigint
  periodDuration: bigint
  /** The grant's end. */
  expiresAt: bigint
}

export type RunwayDue = {
  /** The earliest chain time in the current period at which the tick redeems the runway. */
  redeemAt: bigint
  /** Why it is not delayed, when it is not. */
  immediate?: 'first-period' | 'last-period' | 'no-window'
}

/**
 * When the tick may redeem this period's runway. The Golem's first period is never delayed (a new Golem
 * gets its runway at once): the period it was born in, or its grant's first period when the grant starts
 * less than a period after its birth. A rotated key's or a renewed grant's first period is not the
 * Golem's first: those grants start on the same boundary for a fleet rotated together, so they are
 * staggered like any other. A period the grant ends within the window is not delayed either, so the wait
 * never costs a Golem its last runway.
 */
export function runwayDue(input: RunwayDueInput): RunwayDue {
  const start = input.currentPeriodStart
  const firstPeriod = input.bornAt >= start || (start === input.grantStart && input.grantStart - input.bornAt < input.periodDuration)
  if (firstPeriod) return { redeemAt: start, immediate: 'first-period' }
  const window = staggerWindow(input.periodDuration)
  if (window === 0n) return { redeemAt: start, immediate: 'no-window' }
  if (input.expiresAt < start + window) return { redeemAt: start, immediate: 'last-period' }
  return { redeemAt: start + staggerOffset(input.golemId, input.periodDuration) }
}
