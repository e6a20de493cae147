// When a session key rotates, and what the profile becomes once the oracle has moved the Golem's
// identity to the new key. The policy itself (operations, age, budget floor) is SessionKey's; this
// decides for a tick.
import type { Address } from 'viem'
import { resolveRotationPolicy, shouldRotate, type RotationDecision, type RotationPolicy } from '../custody/rotation.ts'
import { observationOf, type ObservedGolem } from './observation.ts'
import type { ReturnAsset } from './deathPlan.ts'
import { grantEndOf, withRenewalsFolded } from './grantInForce.ts'
import type { GolemProfile } from './profile.ts'
import { rotationFitsGrant } from './renewal.ts'

/** Attempts at rotating one key before the tick stops trying (each is one operator transaction at most). */
export const MAX_ROTATION_ATTEMPTS = 5

/**
 * The slot step of one rotation attempt: `rotate-<key>` first, `rot<n>-<key>` after an attempt that
 * ended without rotating (`reconciled`: another operator transaction took its nonce; `failed`:
 * reverted), so a lost attempt is retried under a fresh slot instead of blocking the rotation for good.
 */
export function rotationStepName(oldKey: Address, attempt: number): string {
  const key = oldKey.slice(2).toLowerCase()
  return attempt === 0 ? `rotate-${key}` : `rot${attempt}-${key}`
}

export type RotationPlan = { reason: string; nextPeriodStart: bigint }

/**
 * A rotation in flight is finished whatever the old key's state (the oracle may already have moved the
 * identity, and the old key then reads unregistered); otherwise a registered Golem rotates when its
 * key's policy says so. The renewed grant starts on the old grant's next period boundary: the same
 * period grid, and the current period (already redeemed by the old key) cannot be redeemed again. So a
 * new rotation waits while this period's runway is still staggered (`runwayStaggered`: the old key has
 * not redeemed it yet), or the Golem would lose the period's runway; the wait is under an hour.
 */
export function planRotation(
  golemId: string,
  profile: GolemProfile,
  read: ObservedGolem,
  due: (now: number) => { rotate: boolean; reason?: string } | undefined,
  runwayStaggered = false,
): RotationPlan | null {
  let reason = profile.pendingRotation?.reason
  if (reason === undefined) {
    if (!read.registered || runwayStaggered) return null
    const decision = due(Number(read.timestamp))
    if (!decision?.rotate) return null
    reason = decision.reason ?? 'policy'
  }
  const nextPeriodStart = observationOf(golemId, profile, read, 0n).permission.currentPeriodStart + profile.runway.periodDuration
  // A rotation already in flight is finished; a new one needs grant left to hand over.
  if (!profile.pendingRotation && !rotationFitsGrant(nextPeriodStart, grantEndOf(profile))) return null
  return { reason, nextPeriodStart }
}

/**
 * The profile once the identity moved: the new key, its signer and grants; the old key's reports reset.
 * The old gas grant names the old key as its only redeemer, so it goes with it: the new key has the
 * renewed one, or none.
 */
export function profileAfterRotation(current: GolemProfile, pending: NonNullable<GolemProfile['pendingRotation']>): GolemProfile {
  // The new key's grant runs to the newest end: the renewals queued for the old key are folded into it.
  const profile = withRenewalsFolded(current)
  const { pendingRotation: _done, gas: _oldGas, rotationGrant: _answered, rotationAwaits: _waited, ...rest } = profile
  return {
    ...rest,
    golemKey: pending.to,
    signer: pending.signer,
    runway: { ...profile.runway, ...pending.runway },
    ...(pending.gas ? { gas: pending.gas } : {}),
    ...(pending.at === undefined ? {} : { keyGrantedAt: pending.at }),
    known: { ...profile.known, revokedReported: false },
  }
}

/**
 * The slot of one attempt at sending a rotating key's funds home to the owner, before the identity
 * moves (by the old key's address, so each rotation of a Golem has its own slots).
 */
export function rotationReturnStep(oldKey: Address, asset: ReturnAsset, attempt: number): string {
  const key = oldKey.slice(2, 18).toLowerCase()
  const base = asset.kind === 'native' ? `rot-return-${key}-eth` : `rot-return-${key}-${asset.token.slice(2, 10).toLowerCase()}`
  return attempt === 0 ? base : `${base}-${attempt}`
}

/** The slot of the operator's first gas to the new key a rotation hands the Golem (by the new key's address). */
export function rotationGasStep(newKey: Address): string {
  return `rot-gas-${newKey.slice(2, 18).toLowerCase()}`
}

/**
 * The rotation policy for a key that lives outside the process (KMS), from durable facts: its age since
 * it took over (keyGrantedAt, else the Golem's birth) and the transactions it has signed (its nonce on
 * the chain). A runway key tracks no budget, so the budget floor does not apply. A Privy wallet is never
 * due: the tick does not rotate it.
 */
export function durableRotationDecision(
  profile: GolemProfile,
  transactionsSigned: number,
  now: number,
  policy: Partial<RotationPolicy> = {},
): RotationDecision {
  // A Privy wallet lives in the owner's Privy app: the tick can neither create one nor move the Golem out
  // of the custody its owner chose, so its key is rotated in Privy and onboarded again, never by the tick.
  if (profile.signer.kind === 'privy') return { rotate: false, reasons: [] }
  const grantedAt = Number(profile.keyGrantedAt ?? profile.life.bornAt)
  return shouldRotate(
    { grantedAt, operationsSigned: transactionsSigned, initialBudget: 0n, remainingBudget: 0n },
    resolveRotationPolicy(policy),
    now,
  )
}
