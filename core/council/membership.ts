import { getAddress, isAddressEqual, type Address } from 'viem'
import type { GolemStatus } from '../store/records.ts'

/** A council seat: the Golem and the session key the council's multisig lists as its signer. */
export type CouncilMember = { golemId: string; signer: Address }

/**
 * What decides whether a seat counts, read fresh before every decision: the VitalityOracle's view of the
 * signer key (registered, phase) and the custody record's view of the Golem (lifecycle, current key).
 */
export type MemberStanding = {
  /** VitalityOracle: the signer key is a registered Golem. */
  registered: boolean
  /** VitalityOracle: the key was deregistered or rotated away from (never registered again). */
  dead: boolean
  /** VitalityOracle phase (Thriving 0 ... Terminal 4). */
  phase: number
  lifecycle: GolemStatus
  /** The Golem's current session key in custody; a seat whose signer is an older key does not count. */
  currentKey: Address
}

export type MemberExclusion = 'unknown' | 'deregistered' | 'terminal' | 'dying' | 'dead' | 'rotated'

export type MemberVerdict = { signer: Address; golemId: string } & ({ counts: true } | { counts: false; reason: MemberExclusion })

const TERMINAL_PHASE = 4

/**
 * Whether one seat counts toward the threshold. A Golem that is deregistered, Terminal, dying or dead
 * has no say in the owner's money any more, and a key the Golem rotated away from may be the leaked
 * one, so its signature is worth nothing.
 */
export function judgeMember(member: CouncilMember, standing: MemberStanding | undefined): MemberVerdict {
  const seat = { signer: getAddress(member.signer), golemId: member.golemId }
  if (standing === undefined) return { ...seat, counts: false, reason: 'unknown' }
  // Rotation first: the oracle marks a rotated-away key dead too, and "rotated" is the truer reason.
  if (!isAddressEqual(standing.currentKey, member.signer)) return { ...seat, counts: false, reason: 'rotated' }
  if (standing.dead || standing.lifecycle === 'dead') return { ...seat, counts: false, reason: 'dead' }
  if (!standing.registered) return { ...seat, counts: false, reason: 'deregistered' }
  if (standing.lifecycle === 'dying') return { ...seat, counts: false, reason: 'dying' }
  if (standing.phase >= TERMINAL_PHASE) return { ...seat, counts: false, reason: 'terminal' }
  return { ...seat, counts: true }
}

/** Every seat's verdict, keyed by nothing but the seat order; `standings` is keyed by lowercase signer. */
export function judgeMembers(members: readonly CouncilMember[], standings: ReadonlyMap<string, MemberStanding>): MemberVerdict[] {
  return members.map((m) => judgeMember(m, standings.get(m.signer.toLowerCase())))
}

/** The signer keys that count now. */
export function countingSigners(verdicts: readonly MemberVerdict[]): Address[] {
  return verdicts.filter((v) => v.counts).map((v) => v.signer)
}

/** Why a seat does not count, as a sentence for refusals. */
export function exclusionRule(reason: MemberExclusion): string {
  switch (reason) {
    case 'unknown':
      return 'has no standing on record (no VitalityOracle or custody record)'
    case 'deregistered':
      return 'is not registered in the VitalityOracle'
    case 'terminal':
      return 'is Terminal, and a dying Golem has no say in the owner’s money'
    case 'dying':
      return 'is dying (its death protocol has begun)'
    case 'dead':
      return 'is dead (deregistered by its death protocol)'
    case 'rotated':
      return 'is a session key its Golem has rotated away from'
  }
}
