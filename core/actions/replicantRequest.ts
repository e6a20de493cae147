// A Thriving Golem's request to spawn a Replicant, and custody's pure decisions on it: the terms the
// parent allots (a daily slice of its runway, a USD budget and a lifespan, each no wider than the
// parent's own), the Replicant's id, and whether the parent's phase lets a sub-delegation act at all.
// Nothing here reads the chain or the store; app/actions/spawnReplicant.ts does.
import { keccak256, stringToBytes, type Address, type Hex } from 'viem'
import type { DecodedCaveat } from '../caveats/caveat.ts'
import { effectiveMasks } from '../caveats/semantics.ts'
import { ACTION_CLASS } from '../caveats/types.ts'
import { Phase } from '../lifecycle/phase.ts'
import type { GolemProfile } from '../lifecycle/profile.ts'
import { ActionRequestError } from './errors.ts'
import { refusalOf, type ActionRefusal } from './refusal.ts'

/**
 * Spawn a Replicant: a child Golem with a key of its own, redeeming a strictly narrower slice of the
 * parent's runway through the chain owner -> Golem -> Replicant. Every field is optional.
 */
export type SpawnReplicantRequest = {
  kind: 'spawnReplicant'
  /** The runway token the Replicant may redeem per parent period (base units); default 2 USDC. */
  dailyRunway?: bigint
  /** Seconds from now the Replicant may live; default until the parent's deadline. */
  lifespanSeconds?: bigint
  /** USD (6 decimals) the Replicant may spend in its whole life; default its daily runway over its lifespan. */
  budgetUsd?: bigint
  /** Redemptions the Replicant may make in its life; default 4 per period of its lifespan. */
  maxCalls?: number
}

/** 2 USDC (6 decimals) a day: what a parent allots a Replicant unless the request says otherwise. */
export const DEFAULT_REPLICANT_DAILY_RUNWAY = 2_000_000n
/** The most redemptions a Replicant's LimitedCalls caveat may allow. */
export const MAX_REPLICANT_CALLS = 1_000_000
const CALLS_PER_PERIOD = 4
/** A plain ERC-20 transfer: what a Replicant's runway redemption calls, so what the parent's phase gate judges. */
const TRANSFER_SELECTOR: Hex = '0xa9059cbb'

/** The terms a parent allots a Replicant, every bound checked against the parent's own. */
export type ReplicantTerms = {
  replicantId: string
  dailyRunway: bigint
  budgetUsd: bigint
  lifespanSeconds: bigint
  /** The sub-delegation's hard window: from now to now + lifespan, ending no later than the parent's deadline. */
  window: { startTime: bigint; endTime: bigint }
  maxCalls: number
}

/**
 * The Replicant's Golem id for a parent's request: the same request id always names the same Replicant,
 * so a retried request finds the one it spawned. Lowercase, within the Golem id rule (at most 63 characters).
 */
export function replicantIdOf(parentId: string, requestId: string): string {
  const digest = keccak256(stringToBytes(`${parentId}\n${requestId}`)).slice(2, 14)
  return `${parentId.slice(0, 48)}-r-${digest}`
}

const positive = (field: string, v: unknown): bigint => {
  if (typeof v !== 'bigint') throw new ActionRequestError(field, 'must be an integer (bigint)')
  if (v <= 0n) throw new ActionRequestError(field, `must be greater than 0, got ${v}`)
  return v
}

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b

/**
 * The Replicant's terms from the request and the parent's profile at chain time `now`. `usdOf` values an
 * amount of the runway token in USD (6 decimals) at the feed's price, as ReplicantBudget values it.
 * Throws ActionRequestError naming the field (`<at>.<field>`) and the rule; nothing has been written.
 */
export function replicantTermsOf(p: {
  request: SpawnReplicantRequest
  parentId: string
  requestId: string
  parent: GolemProfile
  now: bigint
  usdOf: (amount: bigint) => bigint
  at?: string
}): ReplicantTerms {
  const at = p.at ?? 'actions[0]'
  const r = p.request
  const runway = p.parent.runway
  const deadline = runway.expiresAt
  if (p.parent.parent)
    throw new ActionRequestError(
      'golemId',
      'names a Replicant: a Replicant spawns no Replicants (its delegation allows no further delegation)',
    )
  if (p.now >= deadline) throw new ActionRequestError('golemId', `names a Golem whose window ended at ${deadline}`)
  const lifeLeft = deadline - p.now

  const dailyRunway = r.dailyRunway === undefined ? DEFAULT_REPLICANT_DAILY_RUNWAY : positive(`${at}.dailyRunway`, r.dailyRunway)
  if (dailyRunway > runway.periodAmount)
    throw new ActionRequestError(
      `${at}.dailyRunway`,
      `must not exceed the parent's own runway of ${runway.periodAmount} per period, got ${dailyRunway}`,
    )

  const lifespanSeconds = r.lifespanSeconds === undefined ? lifeLeft : positive(`${at}.lifespanSeconds`, r.lifespanSeconds)
  if (lifespanSeconds > lifeLeft)
    throw new ActionRequestError(
      `${at}.lifespanSeconds`,
      `must end by the parent's deadline ${deadline} (at most ${lifeLeft} s from now), got ${lifespanSeconds}`,
    )

  const periods = ceilDiv(lifespanSeconds, runway.periodDuration)
  const parentBudget = p.usdOf(runway.periodAmount * ceilDiv(lifeLeft, runway.periodDuration))
  const budgetUsd = r.budgetUsd === undefined ? p.usdOf(dailyRunway * periods) : positive(`${at}.budgetUsd`, r.budgetUsd)
  if (budgetUsd > parentBudget)
    throw new ActionRequestError(
      `${at}.budgetUsd`,
      `must not exceed what the parent's runway still allows until its deadline ($${parentBudget} in 6 decimals), got ${budgetUsd}`,
    )

  const defaultCalls = Number(periods) * CALLS_PER_PERIOD
  const maxCalls = r.maxCalls ?? Math.min(MAX_REPLICANT_CALLS, defaultCalls)
  if (!Number.isSafeInteger(maxCalls) || maxCalls <= 0 || maxCalls > MAX_REPLICANT_CALLS)
    throw new ActionRequestError(`${at}.maxCalls`, `must be an integer from 1 to ${MAX_REPLICANT_CALLS}, got ${String(r.maxCalls)}`)

  return {
    replicantId: replicantIdOf(p.parentId, p.requestId),
    dailyRunway,
    budgetUsd,
    lifespanSeconds,
    window: { startTime: p.now, endTime: p.now + lifespanSeconds },
    maxCalls,
  }
}

/**
 * Whether the parent may spawn now, judged as the parent's GolemPhase caveat judges every redemption
 * through a sub-delegation: the parent must be registered and Thriving, and its phase mask must allow
 * SUBDELEGATION. The refusal is the one the chain would give the Replicant's first redemption.
 */
export function spawnRefusal(p: {
  golemKey: Address
  registered: boolean
  phase: Phase
  /** The decoded caveats of the parent's runway chain. */
  caveats: readonly DecodedCaveat[]
}): ActionRefusal | undefined {
  if (!p.registered) return refusalOf({ name: 'GolemNotRegistered', args: [p.golemKey] })
  const gate = p.caveats.find((c) => c.type === 'golemPhase')
  const mask = gate?.type === 'golemPhase' ? (effectiveMasks(gate.phaseMasks)[p.phase] ?? 0) : ACTION_CLASS.SUBDELEGATION
  if (p.phase !== Phase.Thriving || (mask & ACTION_CLASS.SUBDELEGATION) === 0)
    return refusalOf(
      { name: 'ActionNotAllowedInPhase', args: [p.golemKey, p.phase, TRANSFER_SELECTOR, ACTION_CLASS.SUBDELEGATION] },
      { detail: 'a Replicant acts through a sub-delegation, which only a Thriving Golem may give' },
    )
  return undefined
}
