// Permission health (what the wallet's permission-health check shows the owner) and RevocationState,
// classified from on-chain facts the caller reads. Pure.
import { BardoError } from '../errors.ts'

export type PermissionHealth = 'healthy' | 'low' | 'critical' | 'revoked'

export type RevocationState =
  | { kind: 'Active' }
  | { kind: 'RevokedByOwner'; revokedAt: bigint; txHash?: string }
  | { kind: 'Expired'; expiredAt: bigint }
  | { kind: 'Exhausted'; totalCalls: bigint }

export type PermissionFacts = {
  now: bigint
  /** disabledDelegations(hash) on the DelegationManager (any delegation in the chain). */
  disabled: boolean
  disabledAt?: bigint
  disabledTxHash?: string
  /** The delegation's end (golemPhase's window, a MortalityTimeWindow or a timestamp caveat: semantics' windowBounds). */
  expiresAt: bigint
  periodAmount: bigint
  periodDuration: bigint
  /** Still available in the current period (the kit's caveat enforcer client). */
  availableInPeriod: bigint
  /** Start of the current period (the period enforcer's start + n * duration). */
  currentPeriodStart: bigint
  /** LimitedCalls: calls used and allowed, when the delegation has that caveat. */
  callsUsed?: bigint
  callsLimit?: bigint
  lastRedemptionAt?: bigint
}

export type PermissionHealthResult = {
  health: PermissionHealth
  revocation: RevocationState
  /** Amounts as decimal strings in token units (6 decimals for USDC). */
  remaining_today: string
  days_remaining: number
  last_redemption_at: number
  total_remaining: string
}

/** Where healthy, low and critical begin (days left on the grant, share of the period cap left). */
export const healthThresholds = {
  healthyMinShareBps: 5_000n, // >50% of the period cap left
  healthyMinSeconds: 7n * 86_400n, // >7 days left
  lowMaxSeconds: 3n * 86_400n, // <3 days left is at least low
  criticalShareBps: 1_000n, // <10% of the period cap left
  criticalSeconds: 86_400n, // <1 day left
} as const

export function revocationState(f: PermissionFacts): RevocationState {
  if (f.disabled) {
    const s: RevocationState = { kind: 'RevokedByOwner', revokedAt: f.disabledAt ?? f.now }
    return f.disabledTxHash ? { ...s, txHash: f.disabledTxHash } : s
  }
  if (f.now > f.expiresAt) return { kind: 'Expired', expiredAt: f.expiresAt }
  if (f.callsLimit !== undefined && f.callsUsed !== undefined && f.callsUsed >= f.callsLimit) {
    return { kind: 'Exhausted', totalCalls: f.callsUsed }
  }
  return { kind: 'Active' }
}

/** What the delegation can still pay out: this period's remainder plus every later period before expiry. */
export function totalRemaining(f: PermissionFacts): bigint {
  if (f.now > f.expiresAt) return 0n
  const nextStart = f.currentPeriodStart + f.periodDuration
  const laterPeriods = f.expiresAt >= nextStart ? (f.expiresAt - nextStart) / f.periodDuration + 1n : 0n
  return f.availableInPeriod + laterPeriods * f.periodAmount
}

/**
 * Classifies health. The thresholds leave a gap (3-7 days left with more than half the cap): anything that is
 * not healthy and not critical is `low`, so the classification is total. Expired or exhausted
 * permissions are `critical` (nothing left, but not revoked by the owner); only an owner revocation is
 * `revoked`.
 */
export function classifyPermissionHealth(f: PermissionFacts): PermissionHealthResult {
  if (f.periodAmount <= 0n) throw new BardoError('INVALID_PERMISSION_FACTS', `periodAmount: must be greater than 0, got ${f.periodAmount}`)
  if (f.periodDuration <= 0n)
    throw new BardoError('INVALID_PERMISSION_FACTS', `periodDuration: must be greater than 0, got ${f.periodDuration}`)
  if (f.availableInPeriod < 0n)
    throw new BardoError('INVALID_PERMISSION_FACTS', `availableInPeriod: must not be negative, got ${f.availableInPeriod}`)
  const revocation = revocationState(f)
  const secondsLeft = f.expiresAt > f.now ? f.expiresAt - f.now : 0n
  const active = revocation.kind === 'Active'
  const shareBps = (f.availableInPeriod * 10_000n) / f.periodAmount
  let health: PermissionHealth
  if (revocation.kind === 'RevokedByOwner') health = 'revoked'
  else if (!active || shareBps < healthThresholds.criticalShareBps || secondsLeft < healthThresholds.criticalSeconds) health = 'critical'
  else if (shareBps > healthThresholds.healthyMinShareBps && secondsLeft > healthThresholds.healthyMinSeconds) health = 'healthy'
  else health = 'low'
  return {
    health,
    revocation,
    remaining_today: (active ? f.availableInPeriod : 0n).toString(),
    days_remaining: Number(secondsLeft / 86_400n),
    last_redemption_at: Number(f.lastRedemptionAt ?? 0n),
    total_remaining: (active ? totalRemaining(f) : 0n).toString(),
  }
}
