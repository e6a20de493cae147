// The death protocol, run once a Golem is Terminal. Irreversible and resumable: every step is a store
// slot, so a crashed or retried tick continues where the last one stopped. The order is the rule:
//   1. settle positions (settlement-only actions)
//   2. disable every sub-delegation the Golem signed (its Replicants die with it)
//   3. zero the key: after this nothing can be signed for the Golem, ever
//   4. deregister on the VitalityOracle with the operator key: every Bardo delegation of the Golem then
//      refuses everything (GolemPhase: GolemNotRegistered)
//   5. write the DeathSettlement record (write-once), then the Golem is dead
// Step 3 is reached only once every sub-delegation is disabled, so a resumed protocol lists them all.
import type { Hex } from 'viem'
import { phaseNames, type Phase } from './phase.ts'
import type { GolemProfile } from './profile.ts'

export const KEY_ZEROED_STEP = 'death-key-zeroed'

/** Deregistration attempts before the tick reports the death as pending (each is one operator transaction at most). */
export const MAX_DEREGISTER_ATTEMPTS = 5

export type DisableStep = { step: string; hash: Hex; delegation: GolemProfile['replicants'][number]['delegation'] }

/** Step 2's slots, one per sub-delegation, in the order the Golem signed them. */
export function disableSteps(profile: GolemProfile): DisableStep[] {
  return profile.replicants.map((r, index) => ({ step: `death-disable-${index}`, hash: r.hash, delegation: r.delegation }))
}

/**
 * Step 4's slot for one attempt. The operator key is shared by every tick, so an attempt can lose its
 * nonce to another operator transaction (its slot ends `reconciled`, nothing deregistered): the next
 * attempt gets a fresh slot while the oracle still lists the Golem.
 */
export function deregisterStep(attempt: number): string {
  return attempt === 0 ? 'death-deregister' : `death-deregister-${attempt}`
}

/** An owner's disable of the grant killed it; otherwise its life ran out. */
export function deathCause(read: { disabled: boolean }): 'OwnerRevocation' | 'NaturalExpiry' {
  return read.disabled ? 'OwnerRevocation' : 'NaturalExpiry'
}

/** What a DelegationExpiry death settled, as the DeathSettlement record of step 5 holds it. */
export type DelegationExpirySettlement = {
  delegationHash: string
  expiryCause: 'OwnerRevocation' | 'NaturalExpiry'
  positionsSettled: string[]
  subDelegationsDisabled: string[]
  deregisterTx: Hex | null
  sessionKeyZeroed: true
  finalPhase: string
  sessionKey: string
}

/** The DeathSettlement record of step 5. */
export function deathSettlementOf(
  profile: GolemProfile,
  read: { disabled: boolean; phase: Phase },
  done: { positionsSettled: readonly string[]; subDelegationsDisabled: readonly Hex[]; deregisterTx: Hex | null },
): DelegationExpirySettlement {
  return {
    delegationHash: profile.runway.chainHashes[0] as string,
    expiryCause: deathCause(read),
    positionsSettled: [...done.positionsSettled],
    subDelegationsDisabled: [...done.subDelegationsDisabled],
    deregisterTx: done.deregisterTx,
    sessionKeyZeroed: true,
    finalPhase: phaseNames[Math.min(read.phase, 4)] ?? 'Terminal',
    sessionKey: profile.golemKey,
  }
}
