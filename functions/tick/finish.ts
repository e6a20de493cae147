// The tick's last write: phase, next tick time, last tick, and the profile's "already reported" flags.
// Credits (x402 extend/feed) may land while the tick runs, so it merges into the current profile and
// retries on a version conflict instead of overwriting it; that also always releases the tick's lease.
import type { Hex } from 'viem'
import { phaseNames, type Phase } from '../../core/lifecycle/phase.ts'
import { parseGolemProfile, serializeGolemProfile, type GolemProfile } from '../../core/lifecycle/profile.ts'
import type { CustodyEvent } from '../../core/lifecycle/custodyEvents.ts'
import type { GolemRecord, Store } from '../../core/store/index.ts'

function renewalRequestedFor(events: readonly CustodyEvent[], known: bigint | undefined): { renewalRequestedFor?: bigint } {
  const requested = events.find((e) => e.type === 'RenewalRequested')
  const value = requested?.type === 'RenewalRequested' ? requested.grantEndsAt : known
  return value === undefined ? {} : { renewalRequestedFor: value }
}

export async function finishTick(p: {
  store: Store
  golem: GolemRecord
  profile: GolemProfile
  events: readonly CustodyEvent[]
  phase: Phase
  period: bigint
  nowMs: number
  nextTickAt: number
  outcome: string
  txHash: Hex | null
  /** The reprieve this tick served, cleared unless a newer feed arrived meanwhile. */
  servedReprieve: GolemProfile['reprieve']
  phaseEpoch: number
}): Promise<void> {
  const patch = {
    phase: phaseNames[p.phase],
    nextTickAt: p.nextTickAt,
    lastTick: { at: p.nowMs, period: p.period, outcome: p.outcome, txHash: p.txHash },
  }
  let current: GolemRecord | null = p.golem
  for (let attempt = 0; attempt < 5 && current && current.status === 'alive'; attempt++) {
    const base = attempt === 0 ? p.profile : parseGolemProfile(current.profile)
    const merged: GolemProfile = {
      ...base,
      known: {
        revokedReported: base.known.revokedReported || p.events.some((e) => e.type === 'DelegationRevoked'),
        expiringWarned: base.known.expiringWarned || p.events.some((e) => e.type === 'DelegationExpiringWarning'),
        budgetWarnedPeriod: p.events.some((e) => e.type === 'BudgetWarning') ? p.period : base.known.budgetWarnedPeriod,
        ...renewalRequestedFor(p.events, base.known.renewalRequestedFor),
      },
    }
    if (p.phaseEpoch > (base.phaseEpoch ?? 0)) merged.phaseEpoch = p.phaseEpoch
    const served = p.servedReprieve
    if (served && merged.reprieve && merged.reprieve.requestedAt === served.requestedAt && merged.reprieve.amount === served.amount) delete merged.reprieve
    const updated = await p.store.updateGolem({ golemId: p.golem.golemId, expectedVersion: current.version, patch: { ...patch, profile: serializeGolemProfile(merged) }, now: p.nowMs })
    if (updated.updated) return
    current = updated.current
  }
}
