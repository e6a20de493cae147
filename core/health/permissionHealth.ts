// The on-chain facts of a Golem's grant as the caller reads them, the RevocationState they show and
// what the grant can still pay out; golemHealth.ts judges health from them. Pure.

export type RevocationState =
  | { kind: 'Active' }
  /** When and in which transaction, once the caller found the owner's revoking transaction; never guessed. */
  | { kind: 'RevokedByOwner'; revokedAt?: bigint; txHash?: string }
  | { kind: 'Expired'; expiredAt: bigint }
  | { kind: 'Exhausted'; totalCalls: bigint }

export type PermissionFacts = {
  now: bigint
  /** disabledDelegations(hash) on the DelegationManager (any delegation in the chain). */
  disabled: boolean
  /** The block time and transaction of the owner's revocation, when the caller looked it up. */
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

export function revocationState(f: PermissionFacts): RevocationState {
  if (f.disabled) {
    return {
      kind: 'RevokedByOwner',
      ...(f.disabledAt === undefined ? {} : { revokedAt: f.disabledAt }),
      ...(f.disabledTxHash === undefined ? {} : { txHash: f.disabledTxHash }),
    }
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
