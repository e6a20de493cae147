// A Golem's metabolism, folded from its journal: what it cost per period by kind (runtime it bought
// through self-extension, gas redeemed from the owner's grant), the runway it redeemed, and how long
// its money projects it to live. Pure: the journal's events come in, the view goes out.
import { SECONDS_PER_HOUR } from '../x402/pricing.ts'

export const METABOLISM_EVENTS = { runway: 'RunwayRedeemed', runtime: 'RuntimeBought', gas: 'GasRedeemed' } as const
/** A payment whose settlement left the chain and expired unused: the runtime it bought was never paid for. */
const PAYMENT_REVERSED = 'PaymentReversed'

export type JournalEntry = { type: string; at: number; data: Record<string, unknown> }

export type MetabolismPeriod = {
  /** Period start, unix seconds (periods start at multiples of `periodSeconds`). */
  start: bigint
  runwayRedeemed: bigint
  runtimeBought: bigint
  /** Wei. */
  gasRedeemed: bigint
}

export type Metabolism = {
  periodSeconds: bigint
  /** Oldest first; only periods with an entry. */
  periods: MetabolismPeriod[]
  totals: Omit<MetabolismPeriod, 'start'>
  /** Runway redeemed and not yet spent on runtime: what the key holds for its runtime. */
  held: bigint
  /** The TTL plus what `held` buys at the price, never past the owner's grant. */
  projectedEnd: bigint
  projectedLifespanSeconds: bigint
}

export type MetabolismInput = {
  now: bigint
  /** The paid TTL (`life.runwayEndsAt`). */
  ttl: bigint
  /** The owner's grant end: the Golem cannot live past it without the owner's new signature. */
  grantEndsAt: bigint
  runtimeCostPerHour: bigint
  periodSeconds: bigint
}

/**
 * When the Golem's money runs out: its paid TTL plus the runtime what it holds buys at the price, never
 * past the owner's grant (it cannot live past it without the owner's new signature).
 */
export function projectedEndOf(p: { now: bigint; ttl: bigint; grantEndsAt: bigint; held: bigint; runtimeCostPerHour: bigint }): bigint {
  const from = p.ttl > p.now ? p.ttl : p.now
  const funded = from + (p.held * SECONDS_PER_HOUR) / p.runtimeCostPerHour
  return funded < p.grantEndsAt ? funded : p.grantEndsAt > p.now ? p.grantEndsAt : p.now
}

function amountOf(data: Record<string, unknown>): bigint {
  const v = data.amount
  if (typeof v === 'bigint') return v
  return typeof v === 'string' && /^\d+$/.test(v) ? BigInt(v) : typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : 0n
}

/** The payment's authorization nonce, as both the runtime bought and its reversal name it. */
const nonceOf = (data: Record<string, unknown>) => (typeof data.nonce === 'string' ? data.nonce.toLowerCase() : undefined)

export function metabolismOf(entries: readonly JournalEntry[], input: MetabolismInput): Metabolism {
  if (input.periodSeconds <= 0n) throw new RangeError(`periodSeconds: must be positive, got ${input.periodSeconds}`)
  if (input.runtimeCostPerHour <= 0n) throw new RangeError(`runtimeCostPerHour: must be positive, got ${input.runtimeCostPerHour}`)
  const byStart = new Map<bigint, MetabolismPeriod>()
  const totals = { runwayRedeemed: 0n, runtimeBought: 0n, gasRedeemed: 0n }
  // Runtime bought with a payment later reversed cost nothing: the key still holds what it would have paid.
  const reversed = new Set(entries.filter((e) => e.type === PAYMENT_REVERSED).map((e) => nonceOf(e.data)))
  for (const e of entries) {
    if (e.type === METABOLISM_EVENTS.runtime && reversed.has(nonceOf(e.data))) continue
    const kind =
      e.type === METABOLISM_EVENTS.runway
        ? 'runwayRedeemed'
        : e.type === METABOLISM_EVENTS.runtime
          ? 'runtimeBought'
          : e.type === METABOLISM_EVENTS.gas
            ? 'gasRedeemed'
            : undefined
    if (!kind) continue
    const amount = amountOf(e.data)
    const start = (BigInt(Math.floor(e.at / 1000)) / input.periodSeconds) * input.periodSeconds
    const period = byStart.get(start) ?? { start, runwayRedeemed: 0n, runtimeBought: 0n, gasRedeemed: 0n }
    period[kind] += amount
    totals[kind] += amount
    byStart.set(start, period)
  }
  const held = totals.runwayRedeemed > totals.runtimeBought ? totals.runwayRedeemed - totals.runtimeBought : 0n
  const projectedEnd = projectedEndOf({ ...input, held })
  return {
    periodSeconds: input.periodSeconds,
    periods: [...byStart.values()].sort((a, b) => (a.start < b.start ? -1 : 1)),
    totals,
    held,
    projectedEnd,
    projectedLifespanSeconds: projectedEnd - input.now,
  }
}
