// When a Golem buys its own runtime: a pure rule over its TTL (`life.runwayEndsAt`), the runway it holds
// on its key, the price of an hour and its payment bounds. app/tick/selfExtend.ts pays
// `POST /api/v1/extend` with the answer, once per decision (the slot is keyed by the TTL it extends).
import { MAX_EXTEND_HOURS, SECONDS_PER_HOUR } from '../x402/pricing.ts'
import { Phase } from './phase.ts'

/** Beats of TTL the Golem keeps ahead of now, besides the margin. */
export const SELF_EXTENSION_BEATS_AHEAD = 3n

export type SelfExtensionInput = {
  /** Chain time (unix seconds). */
  now: bigint
  /** The paid TTL: `life.runwayEndsAt`. */
  ttl: bigint
  /** Seconds between the Golem's beats (its tick interval). */
  beatSeconds: bigint
  /** Extra seconds kept beyond the next beats (a late delivery); default one beat. */
  marginSeconds?: bigint
  phase: Phase
  /** The Golem dies this tick: it buys nothing. */
  dying: boolean
  /** The latest the Golem can live: the end of the owner's grant. Declining buys nothing past it. */
  expectedEnd: bigint
  /** Runway on the session key (the payment asset's balance), the only money it pays with. */
  held: bigint
  runtimeCostPerHour: bigint
  maxPerPayment: bigint
  maxPerPeriod: bigint
  /** Already authorized (spent or reserved) in the payment period. */
  spentInPeriod: bigint
}

export type SelfExtensionStep =
  | {
      kind: 'extend'
      /** One decision per TTL: a duplicate delivery that saw the same TTL claims the same slot. */
      slot: { period: bigint; step: 'extend' }
      hours: number
      amount: bigint
      /** The TTL once the payment is credited. */
      ttlAfter: bigint
    }
  | { kind: 'none'; reason: string; refused?: 'runway' | 'payment-bound' | 'payment-period-bound' | 'expected-end' }

const min = (...xs: bigint[]) => xs.reduce((a, b) => (b < a ? b : a))

/**
 * Buy whole hours when the TTL falls within `SELF_EXTENSION_BEATS_AHEAD` beats and the margin of now:
 * enough to cover that horizon again, at least one hour (the API's minimum), fewer when the runway held
 * or a payment bound allows fewer, none when not one hour fits. Terminal and a dying Golem buy nothing;
 * Declining never buys past the grant's end, where it dies whatever it paid.
 */
export function planSelfExtension(input: SelfExtensionInput): SelfExtensionStep {
  const { now, ttl, beatSeconds, phase, runtimeCostPerHour: price } = input
  if (price <= 0n) throw new RangeError(`runtimeCostPerHour: must be positive, got ${price}`)
  if (beatSeconds <= 0n) throw new RangeError(`beatSeconds: must be positive, got ${beatSeconds}`)
  if (input.dying || phase >= Phase.Terminal) return { kind: 'none', reason: 'Terminal: the Golem buys no more runtime' }
  const margin = input.marginSeconds ?? beatSeconds
  const horizon = now + SELF_EXTENSION_BEATS_AHEAD * beatSeconds + margin
  if (ttl >= horizon) return { kind: 'none', reason: `TTL ${ttl} is ahead of the horizon ${horizon}` }
  // A credit starts from now when the TTL has already passed (core/lifecycle/credit.ts).
  const base = ttl > now ? ttl : now
  let hours = (horizon - base + SECONDS_PER_HOUR - 1n) / SECONDS_PER_HOUR
  if (hours < 1n) hours = 1n
  hours = min(hours, BigInt(MAX_EXTEND_HOURS))
  if (phase === Phase.Declining) {
    const fits = input.expectedEnd > base ? (input.expectedEnd - base) / SECONDS_PER_HOUR : 0n
    if (fits < 1n)
      return { kind: 'none', reason: `Declining: one hour would pass the expected end ${input.expectedEnd}`, refused: 'expected-end' }
    hours = min(hours, fits)
  }
  const remaining = input.maxPerPeriod > input.spentInPeriod ? input.maxPerPeriod - input.spentInPeriod : 0n
  const limits = [
    { hours: input.held / price, refused: 'runway' as const, why: `the runway held (${input.held})` },
    { hours: input.maxPerPayment / price, refused: 'payment-bound' as const, why: `the per-payment bound (${input.maxPerPayment})` },
    {
      hours: remaining / price,
      refused: 'payment-period-bound' as const,
      why: `the per-period bound (${input.maxPerPeriod}, ${input.spentInPeriod} already authorized)`,
    },
  ]
  for (const limit of limits) {
    if (limit.hours < 1n) return { kind: 'none', reason: `one hour (${price}) exceeds ${limit.why}: no payment`, refused: limit.refused }
    hours = min(hours, limit.hours)
  }
  return {
    kind: 'extend',
    slot: { period: ttl, step: 'extend' },
    hours: Number(hours),
    amount: hours * price,
    ttlAfter: base + hours * SECONDS_PER_HOUR,
  }
}
