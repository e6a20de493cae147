// How much runway a tick redeems: the phase multiplier applied to the period amount, bounded by what
// the on-chain period enforcer still allows. Pure; the tick reads the inputs in one multicall.
import { BardoError } from '../errors.ts'
import { Phase, phaseMultiplierBps } from './phase.ts'

export type RedemptionPlanInput = {
  phase: Phase
  /** The period allowance the owner granted (e.g. USDC per day, 6 decimals). */
  periodAmount: bigint
  /** What the period enforcer reports as still available this period (createCaveatEnforcerClient). */
  availableAmount: bigint
  /** Moved by this Golem's redemption in flight: sent, not yet confirmed. */
  inFlightAmount?: bigint
  /** Whether the owner disabled the delegation, or it expired / ran out of calls. */
  revoked: boolean
  /**
   * Just-in-time runway: the key already holds `held` of the token and should hold `target` for the
   * coming period; only the difference is redeemed, so the rest stays in the owner's account.
   */
  target?: { held: bigint; target: bigint }
}

export type RedemptionPlan =
  | { action: 'redeem'; amount: bigint; multiplierBps: bigint }
  | { action: 'skip'; reason: 'revoked' | 'exhausted' | 'nothing-to-redeem' }
  /** This period's one redemption (its slot) is recorded already: a key that spent since waits for the next. */
  | { action: 'skip'; reason: 'redeemed-this-period' }
  /** The key already holds what the coming period needs. */
  | { action: 'skip'; reason: 'held'; held: bigint; target: bigint }
  /** There is runway to redeem, but not before this Golem's offset into its period (core/lifecycle/stagger.ts). */
  | { action: 'skip'; reason: 'staggered'; redeemAt: bigint }
  | { action: 'revoke'; reason: 'terminal' }

export function planRedemption(input: RedemptionPlanInput): RedemptionPlan {
  for (const [field, value] of [
    ['periodAmount', input.periodAmount],
    ['availableAmount', input.availableAmount],
    ['inFlightAmount', input.inFlightAmount ?? 0n],
    ['target.held', input.target?.held ?? 0n],
    ['target.target', input.target?.target ?? 0n],
  ] as const) {
    if (value < 0n) throw new BardoError('INVALID_REDEMPTION_INPUT', `${field}: must not be negative, got ${value}`)
  }
  if (input.revoked) return { action: 'skip', reason: 'revoked' }
  if (input.phase === Phase.Terminal) return { action: 'revoke', reason: 'terminal' }
  const multiplierBps = phaseMultiplierBps[input.phase]
  const wanted = (input.periodAmount * multiplierBps) / 10_000n
  const free = input.availableAmount - (input.inFlightAmount ?? 0n)
  if (free <= 0n) return { action: 'skip', reason: 'exhausted' }
  // The enforcer's available amount already counts what this period redeemed, so bounding by it
  // keeps a second tick in the same period from taking more than the multiplier allows in total.
  const alreadyTaken = input.periodAmount - input.availableAmount
  let amount = wanted - alreadyTaken < free ? wanted - alreadyTaken : free
  if (amount <= 0n) return { action: 'skip', reason: 'nothing-to-redeem' }
  if (input.target) {
    // In flight counts as held: it reaches the key once it confirms.
    const held = input.target.held + (input.inFlightAmount ?? 0n)
    const short = input.target.target - held
    if (short <= 0n) return { action: 'skip', reason: 'held', held, target: input.target.target }
    if (short < amount) amount = short
  }
  return { action: 'redeem', amount, multiplierBps }
}
