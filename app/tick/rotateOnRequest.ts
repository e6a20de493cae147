// A rotation someone asks for now (the operator's `bardo rotate`, the local stack's rotation route), run
// through the tick's own rotation (rotateSessionKey) on the same period grid the tick's plan uses: the
// renewed grant starts at the old grant's next period boundary. Every refusal is raised before a key is
// made, except the one the rotation itself answers (another tick holds the Golem).
import type { Address } from 'viem'
import { BardoError } from '../../core/errors.ts'
import { grantEndOf } from '../../core/lifecycle/grantInForce.ts'
import { parseGolemProfile, type GolemProfile } from '../../core/lifecycle/profile.ts'
import { nextPeriodBoundary, rotationFitsGrant } from '../../core/lifecycle/renewal.ts'
import type { KeyRotation } from '../../core/custody/signerResolver.ts'
import type { GolemRecord } from '../../core/store/index.ts'
import { rotateSessionKey, rotationStep } from './rotate.ts'
import type { TickDeps } from './types.ts'

export type RotationRequestCode =
  | 'GOLEM_NOT_FOUND'
  | 'GOLEM_DEAD'
  | 'ROTATION_DOES_NOT_FIT'
  | 'ROTATION_ATTEMPTS_SPENT'
  | 'ROTATION_NOT_DONE'

export class RotationRequestError extends BardoError {
  readonly field: string
  readonly rule: string
  constructor(code: RotationRequestCode, field: string, rule: string) {
    super(code, `${field}: ${rule}`, { details: { field, rule } })
    this.field = field
    this.rule = rule
  }
}

/** The Golem's record and profile, refused when it cannot rotate (unknown, dead). */
export async function rotatableGolem(store: TickDeps['store'], golemId: string): Promise<{ record: GolemRecord; profile: GolemProfile }> {
  const record = await store.getGolem(golemId)
  if (!record?.profile) throw new RotationRequestError('GOLEM_NOT_FOUND', 'golem', `names no Golem with a custody profile: ${golemId}`)
  if (record.status === 'dead') throw new RotationRequestError('GOLEM_DEAD', 'golem', `Golem ${golemId} is dead; its key is retired`)
  return { record, profile: parseGolemProfile(record.profile) }
}

/**
 * Rotates the Golem's session key now, once: the new key is in force for the next tick. `before` runs
 * after every check and before the rotation makes a key (a key source's own precondition).
 */
export async function rotateOnRequest(
  deps: TickDeps & { rotation: KeyRotation },
  golemId: string,
  o: { reason?: string; before?: (profile: GolemProfile) => Promise<void> } = {},
): Promise<{ from: Address; to: Address; reason: string }> {
  const { record, profile } = await rotatableGolem(deps.store, golemId)
  const now = (await deps.client.getBlock()).timestamp
  const nextPeriodStart = nextPeriodBoundary(profile.runway.periodStart, profile.runway.periodDuration, now)
  // A rotation in flight is finished with the key and grant it recorded; a new one needs grant left to hand over.
  if (!profile.pendingRotation && !rotationFitsGrant(nextPeriodStart, grantEndOf(profile)))
    throw new RotationRequestError(
      'ROTATION_DOES_NOT_FIT',
      'golem',
      `Golem ${golemId}'s grant ends before its next period (${nextPeriodStart}); renew it before rotating`,
    )
  if ((await rotationStep(deps, golemId, profile.golemKey)) === null)
    throw new RotationRequestError(
      'ROTATION_ATTEMPTS_SPENT',
      'golem',
      `Golem ${golemId}'s key ${profile.golemKey} has spent its rotation attempts; the operator must look at its failed rotation transactions`,
    )
  await o.before?.(profile)
  const rotated = await rotateSessionKey(deps, record, profile, {
    now,
    nowMs: Number(now) * 1000,
    reason: profile.pendingRotation?.reason ?? o.reason ?? 'operator',
    nextPeriodStart,
  })
  if (!rotated)
    throw new RotationRequestError(
      'ROTATION_NOT_DONE',
      'golem',
      `Golem ${golemId} did not rotate this time (another tick holds it, or a rotation transaction did not confirm); try again`,
    )
  return rotated
}
