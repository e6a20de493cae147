// What a settled x402 payment does to a Golem's profile. Pure: the API applies the
// result with a compare-and-swap on the store's Golem record and retries on a version conflict, so
// the function must give the same answer for the same inputs, and must recognise a credit it has
// already applied (exactly once, keyed on the payment).
import { concat, getAddress, keccak256, type Address, type Hex } from 'viem'
import { BardoError } from '../errors.ts'
import type { GolemProfile } from './profile.ts'

/** How many applied payment ids a profile keeps (about 60 bytes each in the profile's JSON). */
export const MAX_APPLIED_CREDITS = 128

export type CreditKind = 'extend' | 'feed'

/** A settled payment as the profile sees it. `seconds` is resolved by the caller from the pricing. */
export type ProfileCredit = {
  kind: CreditKind
  /** paymentCreditId(payer, nonce): the payment's identity, the same (payer, nonce) the ledger keys on. */
  id: string
  payer: Address
  /** What was paid, in the asset's atomic units. */
  amount: bigint
  /** Runway bought: floor(amount * 3600 / runtimeCostPerHour) for both kinds. */
  seconds: bigint
  /** When the ledger recorded the credit (unix ms, PaymentRecord.creditedAt): orders and bounds the applied list. */
  creditedAtMs: number
}

export type CreditResult =
  | { applied: true; profile: GolemProfile }
  /** already: this payment is in the applied list. beforeHorizon: older than every id the list still holds (see horizonMs). */
  | { applied: false; reason: 'already' | 'beforeHorizon'; profile: GolemProfile }

/**
 * The payment's id in the profile: 16 bytes of keccak256(payer ‖ nonce). (payer, nonce) is the key
 * of the ledger too: EIP-3009 nonces are per authorizer. 128 bits keep the list small and make an
 * accidental collision between two payments of one Golem negligible.
 */
export function paymentCreditId(payer: Address, nonce: Hex): string {
  return keccak256(concat([getAddress(payer).toLowerCase() as Hex, nonce.toLowerCase() as Hex])).slice(0, 34)
}

export function isCreditApplied(profile: GolemProfile, id: string): boolean {
  return profile.credits?.applied.some((c) => c.id === id) ?? false
}

/**
 * Applies one credit at `now` (unix seconds, chain time).
 *
 * - extend and feed both move `life.runwayEndsAt` to `max(runwayEndsAt, now) + seconds`: paid time is
 *   time ahead, so an extension of a runway that already ended starts now instead of vanishing into
 *   the past. `life.runwayTotalSeconds` stays: it is the economic clock's full scale (the runway at
 *   birth). Kept fixed, an hour is worth the same share of vitality however many extensions came
 *   before, and the clock's clamp at 1 caps a Golem at "fully funded". Growing it with each extension
 *   would make every later extension worth less and pull the clock of an extended Golem down.
 *   `runway.expiresAt` (the delegation's on-chain end) does not move: only the owner can re-sign.
 * - feed also leaves a `reprieve` request for the operator's audited phase reset, which the tick
 *   carries out and clears. A second feed before that: the amounts add up, `requestedAt` keeps the
 *   first request, `payer` names the latest.
 * - the payment's id is recorded; a credit whose id is recorded already changes nothing.
 */
export function applyCredit(profile: GolemProfile, credit: ProfileCredit, now: bigint): CreditResult {
  if (credit.seconds < 0n) throw new BardoError('INVALID_CREDIT', `seconds: must not be negative, got ${credit.seconds}`)
  if (credit.amount <= 0n) throw new BardoError('INVALID_CREDIT', `amount: must be positive, got ${credit.amount}`)
  if (!/^0x[0-9a-f]{32}$/.test(credit.id)) throw new BardoError('INVALID_CREDIT', 'id: must be paymentCreditId(payer, nonce)')
  if (!Number.isSafeInteger(credit.creditedAtMs) || credit.creditedAtMs < 0)
    throw new BardoError('INVALID_CREDIT', 'creditedAtMs: must be unix milliseconds')

  const credits = profile.credits ?? { applied: [], horizonMs: 0n }
  if (credits.applied.some((c) => c.id === credit.id)) return { applied: false, reason: 'already', profile }
  const at = BigInt(credit.creditedAtMs)
  // Ids older than the horizon were dropped from the list, so "not in the list" proves nothing for them.
  if (at <= credits.horizonMs) return { applied: false, reason: 'beforeHorizon', profile }

  const base = profile.life.runwayEndsAt > now ? profile.life.runwayEndsAt : now
  const life = { ...profile.life, runwayEndsAt: base + credit.seconds }

  const applied = [...credits.applied, { id: credit.id, creditedAtMs: at }].sort((a, b) =>
    a.creditedAtMs < b.creditedAtMs ? -1 : a.creditedAtMs > b.creditedAtMs ? 1 : a.id < b.id ? -1 : 1,
  )
  let horizonMs = credits.horizonMs
  while (applied.length > MAX_APPLIED_CREDITS) {
    const dropped = applied.shift()!
    if (dropped.creditedAtMs > horizonMs) horizonMs = dropped.creditedAtMs
  }

  const next: GolemProfile = { ...profile, life, credits: { applied, horizonMs } }
  if (credit.kind === 'feed') {
    const prior = profile.reprieve
    next.reprieve = prior
      ? { requestedAt: prior.requestedAt, amount: prior.amount + credit.amount, payer: getAddress(credit.payer) }
      : { requestedAt: now, amount: credit.amount, payer: getAddress(credit.payer) }
  }
  return { applied: true, profile: next }
}

/** Runway seconds a payment of `amount` buys at `runtimeCostPerHour` (rounded down, as core/x402 credits extend). */
export function runwaySecondsFor(amount: bigint, runtimeCostPerHour: bigint): bigint {
  if (runtimeCostPerHour <= 0n) throw new BardoError('INVALID_CREDIT', 'runtimeCostPerHour: must be positive')
  return (amount * 3600n) / runtimeCostPerHour
}
