// A tick that threw after taking its Golem's lease: one more consecutive failure on the record's lastTick
// (the lease stays as it was, so the next tick still waits it out and reconciles what this one left).
// At the configured limit the Golem is halted and the owner told (core/lifecycle/heartbeatAnomaly.ts).
import { afterFailedTick, failureReason, HALTED_OUTCOME } from '../../core/lifecycle/heartbeatAnomaly.ts'
import { tickEventTime } from '../../core/lifecycle/eventOrder.ts'
import { RETRY, retry } from '../../core/retry.ts'
import type { GolemRecord, TickStore } from '../../core/store/index.ts'

export type TickFailure = { failures: number; halted: boolean }

/**
 * Counts the failure of the tick that leased the Golem at `leasedAtMs`. Nothing is written when another
 * tick holds the record now (its lastTick is not this tick's lease). On the limit, the HeartbeatAnomaly
 * event is appended first (keyed by the lease, so a retried write records it once), then the halt.
 */
export async function recordTickFailure(
  deps: { store: TickStore; maxConsecutiveFailures: number },
  golemId: string,
  leasedAtMs: number,
  error: unknown,
): Promise<TickFailure | null> {
  let current: GolemRecord | null = await deps.store.getGolem(golemId)
  return retry({ attempts: 3, exhausted: () => null }, async () => {
    const last = current?.lastTick
    if (!current || current.status === 'dead' || !last || last.at !== leasedAtMs || last.outcome !== 'running') return null
    const decision = afterFailedTick(last.failures ?? 0, deps.maxConsecutiveFailures)
    if (decision.halt) {
      // The custody event HeartbeatAnomaly (core/lifecycle/custodyEvents.ts), at the lease's time.
      await deps.store.appendEvent({
        golemId,
        type: 'HeartbeatAnomaly',
        at: tickEventTime(leasedAtMs, 'HeartbeatAnomaly'),
        eventId: `HeartbeatAnomaly:${leasedAtMs}`,
        data: { failures: decision.failures, maxConsecutiveFailures: deps.maxConsecutiveFailures, reason: failureReason(error) },
      })
    }
    const lastTick = { ...last, failures: decision.failures, ...(decision.halt ? { outcome: HALTED_OUTCOME } : {}) }
    const updated = await deps.store.updateGolem({ golemId, expectedVersion: current.version, patch: { lastTick }, now: leasedAtMs })
    if (updated.updated) return { failures: decision.failures, halted: decision.halt }
    current = updated.current
    return RETRY
  })
}
