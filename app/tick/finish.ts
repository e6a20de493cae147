// The tick's last write: phase, next tick time, last tick, and the profile with the tick's findings
// merged in (core/lifecycle/tickPlan.ts mergeTickOutcome). Credits may land while the tick runs, so on
// a version conflict it merges into the record the store answered with and tries again; that also
// always releases the tick's lease. No extra read: a conflict answer carries the current record.
import type { Hex } from 'viem'
import type { CustodyEvent } from '../../core/lifecycle/custodyEvents.ts'
import { phaseNames, type Phase } from '../../core/lifecycle/phase.ts'
import { parseGolemProfile, serializeGolemProfile, type GolemProfile } from '../../core/lifecycle/profile.ts'
import { mergeTickOutcome } from '../../core/lifecycle/tickPlan.ts'
import { RETRY, retry } from '../../core/retry.ts'
import type { GolemRecord, TickStore } from '../../core/store/index.ts'

const MAX_ATTEMPTS = 5

/**
 * The record as written with the profile it holds (so nothing after the tick parses it again), or null
 * when the Golem left `alive` meanwhile or the conflicts did not end.
 */
export async function finishTick(p: {
  store: TickStore
  golem: GolemRecord
  profile: GolemProfile
  events: readonly CustodyEvent[]
  phase: Phase
  period: bigint
  nowMs: number
  nextTickAt: number
  outcome: string
  txHash: Hex | null
  /** The tick's vitality in basis points: kept so the API shows the vitality the tick decided from. */
  survivalScoreBps: number
  /** The reprieve this tick served, cleared unless a newer feed arrived meanwhile. */
  servedReprieve: GolemProfile['reprieve']
  phaseEpoch: number
  /** Chain time of the tick's read: a renewal queued meanwhile is put in force as of it. */
  chainNow: bigint
  /** The owner's adjustment this tick put in force: written back in force, whatever the record holds. */
  adjusted?: Hex
}): Promise<{ record: GolemRecord; profile: GolemProfile } | null> {
  const patch = {
    phase: phaseNames[p.phase],
    nextTickAt: p.nextTickAt,
    lastTick: { at: p.nowMs, period: p.period, outcome: p.outcome, txHash: p.txHash, survivalScoreBps: p.survivalScoreBps },
  }
  const outcome = {
    events: p.events,
    period: p.period,
    phaseEpoch: p.phaseEpoch,
    now: p.chainNow,
    ...(p.adjusted ? { adjusted: p.adjusted } : {}),
    ...(p.servedReprieve ? { servedReprieve: p.servedReprieve } : {}),
  }
  let current: GolemRecord | null = p.golem
  return retry({ attempts: MAX_ATTEMPTS, exhausted: () => null }, async (attempt) => {
    if (current?.status !== 'alive') return null
    const base = attempt === 0 ? p.profile : parseGolemProfile(current.profile)
    const merged = mergeTickOutcome(base, outcome)
    const updated = await p.store.updateGolem({
      golemId: p.golem.golemId,
      expectedVersion: current.version,
      patch: { ...patch, profile: serializeGolemProfile(merged) },
      now: p.nowMs,
    })
    if (updated.updated) return { record: updated.golem, profile: merged }
    current = updated.current
    return RETRY
  })
}
