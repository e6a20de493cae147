import { CustodyConfigError } from './errors.ts'

/** When a session key is replaced. */
export type RotationPolicy = {
  /** Signatures before a forced rotation. Default 10,000. */
  maxOperations: number
  /** Age (seconds since the key was granted) before a forced rotation. Default 7 days. */
  maxAgeSeconds: number
  /** Rotate when remaining budget / initial budget falls to this fraction or below. Default 0.1. */
  budgetFloorFraction: number
}

export const DEFAULT_ROTATION_POLICY: Readonly<RotationPolicy> = Object.freeze({
  maxOperations: 10_000,
  maxAgeSeconds: 7 * 24 * 60 * 60,
  budgetFloorFraction: 0.1,
})

export type RotationReason = 'max-operations' | 'max-age' | 'budget-floor'

export type RotationState = {
  grantedAt: number
  operationsSigned: number
  initialBudget: bigint
  remainingBudget: bigint
}

export type RotationDecision =
  | { rotate: false; reasons: readonly [] }
  | { rotate: true; reasons: readonly RotationReason[]; reason: string }

// The floor is a fraction; budgets are bigint. Compare in parts per million to stay exact.
const PPM = 1_000_000n

export function resolveRotationPolicy(partial: Partial<RotationPolicy> = {}): RotationPolicy {
  const policy = { ...DEFAULT_ROTATION_POLICY, ...partial }
  if (!Number.isSafeInteger(policy.maxOperations) || policy.maxOperations <= 0)
    throw new CustodyConfigError('rotationPolicy.maxOperations', 'must be a positive integer')
  if (!Number.isSafeInteger(policy.maxAgeSeconds) || policy.maxAgeSeconds <= 0)
    throw new CustodyConfigError('rotationPolicy.maxAgeSeconds', 'must be a positive integer')
  if (!(policy.budgetFloorFraction >= 0 && policy.budgetFloorFraction < 1))
    throw new CustodyConfigError('rotationPolicy.budgetFloorFraction', 'must be in [0, 1)')
  return policy
}

/**
 * Pure: should the key be rotated at `now` (unix seconds)? All reasons that hold are returned.
 * A clock behind grantedAt counts as age 0 (saturating, as in the spec). With no budget
 * (initialBudget 0) the budget floor does not apply.
 */
export function shouldRotate(state: RotationState, policy: RotationPolicy, now: number): RotationDecision {
  const reasons: RotationReason[] = []
  const text: string[] = []
  if (state.operationsSigned >= policy.maxOperations) {
    reasons.push('max-operations')
    text.push(`${state.operationsSigned} operations signed (max ${policy.maxOperations})`)
  }
  const age = Math.max(0, now - state.grantedAt)
  if (age >= policy.maxAgeSeconds) {
    reasons.push('max-age')
    text.push(`key is ${age}s old (max ${policy.maxAgeSeconds}s)`)
  }
  if (state.initialBudget > 0n) {
    const floorPpm = BigInt(Math.round(policy.budgetFloorFraction * 1_000_000))
    if (state.remainingBudget * PPM <= state.initialBudget * floorPpm) {
      reasons.push('budget-floor')
      text.push(`remaining budget ${state.remainingBudget} of ${state.initialBudget} is at or below ${policy.budgetFloorFraction * 100}%`)
    }
  }
  return reasons.length === 0 ? { rotate: false, reasons: [] } : { rotate: true, reasons, reason: text.join('; ') }
}
