// The owner's answer to a key rotation only the owner can sign for (a direct grant): a runway grant to
// the new key the rotation created, following the current grant (same owner, token, period and caveats,
// a higher salt, its phase gate naming the new key), whose first period is the runway grid's next
// boundary, so the old key pays the current period and the new key the ones after it. Installed in the
// profile, it is what the next tick's rotation hands the new key. Pure.
import { isAddressEqual, type Address } from 'viem'
import { BardoError } from '../errors.ts'
import { adjustmentStart } from './adjustment.ts'
import { latestGrant } from './grantInForce.ts'
import type { GolemProfile } from './profile.ts'
import { checkSuccessorGrant, storedGrant, type Refuse, type SuccessorInput } from './successorGrant.ts'

export class RotationGrantError extends BardoError {
  readonly field: string
  constructor(field: string, rule: string, details: Record<string, unknown> = {}) {
    super('ROTATION_GRANT_REFUSED', `${field}: ${rule}`, { details: { field, rule, ...details } })
    this.field = field
  }
}

export type RotationGrant = NonNullable<GolemProfile['rotationGrant']>

const refuse: Refuse = (field, rule, details) => new RotationGrantError(field, rule, details)

/** The grant the rotation waits for, or RotationGrantError naming the field and the rule. */
export function checkRotationGrant(input: SuccessorInput & { to: Address }): RotationGrant {
  const { profile, now, to } = input
  if (profile.pendingRotation) throw refuse('golemId', 'a key rotation is already under way')
  if (profile.adjustment)
    throw refuse(
      'delegation',
      "must wait for the owner's pending adjustment: send the transaction that disables the grant it replaces first",
    )
  if (isAddressEqual(to, profile.golemKey)) throw refuse('delegation.delegate', 'must be the new key, not the key it replaces')
  const first = adjustmentStart(profile, now)
  const latest = latestGrant(profile)
  const grant = checkSuccessorGrant({ ...input, key: to }, refuse, latest, (w) => {
    // A rotation moves the key only: the newest grant's amount and end, carried to the new key.
    if (w.periodAmount !== latest.periodAmount)
      throw refuse('erc20PeriodTransfer.periodAmount', `must be ${latest.periodAmount}, the newest grant's: a rotation moves the key only`)
    if (w.expiresAt !== latest.expiresAt)
      throw refuse('golemPhase.endTime', `must be ${latest.expiresAt}, the newest grant's end: a rotation moves the key only`)
    if (w.periodStart < first)
      throw refuse(
        'erc20PeriodTransfer.startDate',
        `must be on the runway's period grid at or after ${first}: the old key pays until then, so no period is paid twice`,
        { earliest: first.toString() },
      )
  })
  return { ...storedGrant(grant), to }
}

/** The profile with the owner's grant to the new key waiting for the next tick's rotation. */
export function installRotationGrant(profile: GolemProfile, grant: RotationGrant): GolemProfile {
  return { ...profile, rotationGrant: grant }
}
