// When a Golem's due entry (its row in the heartbeat's due list) must be rewritten. The entry is a lower
// bound on the record's nextTickAt, never more: the heartbeat lists every Golem whose entry has come and
// the record decides whether it is really due. So an idle tick, which only moves nextTickAt forward by
// one beat, leaves the entry alone (it keeps listing the Golem each minute, which a Golem due every minute
// needs anyway), and an entry is written only when the lower bound would break or would waste reads.
import type { GolemRecord } from './records.ts'

/** How far ahead of the write's clock a next tick may be without rewriting the entry: one heartbeat. */
export const DEFAULT_DUE_CADENCE_MS = 60_000

export type DueEntryChange = 'none' | 'status' | 'earlier' | 'later'

/**
 * What a write from `before` to `after` (at `now`, store time) does to the entry: `none` keeps it.
 * `earlier`: the next tick moved back, so the entry would list the Golem late (never allowed).
 * `later`: the next tick is more than one cadence ahead, so the entry would list it for nothing.
 * `status`: a death removes it from the list; dying keeps it listed with its status.
 */
export function dueEntryChange(before: GolemRecord, after: GolemRecord, now: number, cadenceMs: number): DueEntryChange {
  if (after.status !== before.status) return 'status'
  if (after.nextTickAt < before.nextTickAt) return 'earlier'
  if (after.nextTickAt > now + cadenceMs) return 'later'
  return 'none'
}
