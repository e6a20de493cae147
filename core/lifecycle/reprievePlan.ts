// A paid feed asks for a reprieve: the operator's audited, evented phase reset on the VitalityOracle to
// the phase the fed vitality points to — never higher than that, never for an unregistered Golem. The
// API records the request in the profile; the tick serves it exactly once (its slot is keyed by the
// request's time).
import { phaseForVitality, type Phase } from './phase.ts'
import type { GolemProfile } from './profile.ts'

export type ReprievePlan =
  /** No request, or the Golem is not registered: nothing to serve. */
  | { kind: 'none' }
  /** Fed, but the fed vitality points where the Golem is or further on: served without a reset. */
  | { kind: 'served' }
  | { kind: 'reset'; step: string; eventId: string; from: Phase; to: Phase; reason: string; request: NonNullable<GolemProfile['reprieve']> }

export function planReprieve(profile: GolemProfile, read: { registered: boolean; phase: Phase }, vitality: number): ReprievePlan {
  const request = profile.reprieve
  if (!request || !read.registered) return { kind: 'none' }
  const target = phaseForVitality(vitality)
  if (target >= read.phase) return { kind: 'served' }
  return {
    kind: 'reset',
    step: `reprieve-${request.requestedAt}`,
    eventId: `PhaseReset:${request.requestedAt}`,
    from: read.phase,
    to: target,
    reason: `reprieve: fed ${request.amount} by ${request.payer}`,
    request,
  }
}
