// The owner's formation of a council, decided without I/O: who may hold a seat (the owner's own Golems,
// each counting now), the threshold k of the n seats, the bounds the owner's delegation carries, and
// whether a delegation posted back signed is exactly the one drafted.
import type { Delegation } from '@metamask/smart-accounts-kit'
import { isAddressEqual, type Address, type Hex } from 'viem'
import type { TokenFeed } from '../caveats/types.ts'
import type { CouncilBounds, PinnedReceiver } from './buildCouncilDelegation.ts'
import { formationRefused } from './errors.ts'
import { exclusionRule, type CouncilMember, type MemberVerdict } from './membership.ts'

/** A council is several Golems: one alone is a Golem, not a council. */
export const MIN_COUNCIL_SEATS = 2
/** The MultiSigDeleGator's limit on signers (MAX_NUMBER_OF_SIGNERS). */
export const MAX_COUNCIL_SEATS = 30
/** The longest a council's authority may run: the owner grants it again rather than for ever. */
export const MAX_COUNCIL_SECONDS = 365n * 86_400n

/** What the owner's delegation lets the council do: every field a caveat of buildCouncilDelegation. */
export type CouncilScope = {
  targets: Address[]
  selectors: Hex[]
  receivers: PinnedReceiver[]
  /** Native value per call, wei. */
  maxValue: bigint
  /** USD with 6 decimals per UTC day, across the priced tokens. */
  dailyLimitUsd: bigint
  maxPriceAge: number
  feeds: TokenFeed[]
  /** Unix seconds, inclusive: the council's authority runs from `startsAt` to `endsAt`. */
  startsAt: bigint
  endsAt: bigint
}

export const councilBoundsOf = (scope: CouncilScope): CouncilBounds => ({
  targets: scope.targets,
  selectors: scope.selectors,
  receivers: scope.receivers,
  maxValue: scope.maxValue,
  dailySpendLimit: { dailyLimitUsd: scope.dailyLimitUsd, maxPriceAge: scope.maxPriceAge, feeds: scope.feeds },
  window: { startTime: scope.startsAt, endTime: scope.endsAt },
})

/** A scope's window as the chain will run it: it ends after now, and not more than a year from now. */
export function checkCouncilWindow(scope: Pick<CouncilScope, 'startsAt' | 'endsAt'>, now: bigint): void {
  if (scope.endsAt <= now) throw formationRefused('scope.endsAt', `must be after now (${now}), got ${scope.endsAt}`)
  if (scope.endsAt > now + MAX_COUNCIL_SECONDS)
    throw formationRefused('scope.endsAt', `must be at most ${MAX_COUNCIL_SECONDS} seconds (a year) from now, got ${scope.endsAt}`)
  if (scope.startsAt > scope.endsAt) throw formationRefused('scope.startsAt', `must not be after scope.endsAt (${scope.endsAt})`)
}

/** A Golem named for a seat, as custody and the chain know it now; `golem` null when the store has no record. */
export type SeatCandidate = {
  golemId: string
  golem: { owner: Address; currentKey: Address } | null
  /** judgeMember of the seat its current key would hold (VitalityOracle and custody, read fresh). */
  verdict: MemberVerdict | undefined
}

/**
 * The seats of a council the owner may form: every Golem named is the owner's own (one owner for all,
 * `owner` when the signed delegation names it) and counts now (registered, alive, not Terminal), each
 * named once; and a threshold from 1 to the number of seats. Refused naming the Golem's place in
 * `golems` and the rule.
 */
export function checkCouncilSeats(p: { candidates: readonly SeatCandidate[]; threshold: number; owner?: Address }): {
  owner: Address
  members: CouncilMember[]
} {
  const n = p.candidates.length
  if (n < MIN_COUNCIL_SEATS || n > MAX_COUNCIL_SEATS)
    throw formationRefused('golems', `must name ${MIN_COUNCIL_SEATS} to ${MAX_COUNCIL_SEATS} Golems, got ${n}`)
  let owner = p.owner
  const members: CouncilMember[] = []
  for (const [i, c] of p.candidates.entries()) {
    const field = `golems[${i}]`
    if (p.candidates.findIndex((o) => o.golemId === c.golemId) !== i) throw formationRefused(field, `names ${c.golemId} a second time`)
    if (!c.golem) throw formationRefused(field, `names no Golem: ${c.golemId}`)
    owner ??= c.golem.owner
    if (!isAddressEqual(c.golem.owner, owner))
      throw formationRefused(field, `${c.golemId} is not a Golem of the owner ${owner}: a council seats the owner's own Golems only`)
    if (!c.verdict?.counts)
      throw formationRefused(
        field,
        `${c.golemId} ${exclusionRule(c.verdict?.counts === false ? c.verdict.reason : 'unknown')}: a seat is for a living Golem`,
      )
    members.push({ golemId: c.golemId, signer: c.golem.currentKey })
  }
  if (!Number.isSafeInteger(p.threshold) || p.threshold < 1 || p.threshold > n)
    throw formationRefused('threshold', `must be a whole number from 1 to ${n} (the seats), got ${p.threshold}`)
  return { owner: owner!, members }
}

/**
 * Where a posted delegation differs from the drafted one (the field, as the request names it), or
 * undefined when it is exactly the drafted delegation (its signature aside).
 */
export function councilDelegationDifference(drafted: Omit<Delegation, 'signature'>, posted: Delegation): string | undefined {
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()
  if (!same(drafted.delegate, posted.delegate)) return 'delegation.delegate'
  if (!same(drafted.delegator, posted.delegator)) return 'delegation.delegator'
  if (!same(drafted.authority, posted.authority)) return 'delegation.authority'
  if (BigInt(drafted.salt) !== BigInt(posted.salt)) return 'delegation.salt'
  if (drafted.caveats.length !== posted.caveats.length) return 'delegation.caveats'
  for (const [i, c] of drafted.caveats.entries()) {
    const other = posted.caveats[i]!
    for (const key of ['enforcer', 'terms', 'args'] as const)
      if (typeof other[key] !== 'string' || !same(c[key], other[key])) return `delegation.caveats[${i}].${key}`
  }
  return undefined
}
