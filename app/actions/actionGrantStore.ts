// Where custody keeps a Golem's action grant: an append-only log per Golem whose newest record is the
// grant in force (a renewed grant appends; the old one stays for the record).
import { recordOwnerGrants } from '../../core/custody/grantLedger.ts'
import type { JsonInputObject, Store } from '../../core/store/index.ts'
import { parseActionGrant, serializeActionGrant, type ActionGrantEntry, type ActionGrantRecord } from '../../core/actions/index.ts'

export const actionGrantLog = (golemId: string): string => `actionGrant:${golemId}`

export async function saveActionGrant(
  store: Store,
  p: { golemId: string; entries: readonly ActionGrantEntry[]; now: number },
): Promise<void> {
  await recordOwnerGrants(
    store,
    p.golemId,
    p.entries.flatMap((e) => e.chain.map((delegation) => ({ kind: 'action' as const, label: e.label, delegation }))),
    p.now,
  )
  await store.appendLog({
    log: actionGrantLog(p.golemId),
    records: [serializeActionGrant(p.entries) as unknown as JsonInputObject],
    now: p.now,
  })
}

/** The grant in force, or null when the Golem was granted no actions. */
export async function loadActionGrant(store: Pick<Store, 'lastLogRecord'>, golemId: string): Promise<ActionGrantRecord | null> {
  const last = await store.lastLogRecord(actionGrantLog(golemId))
  return last ? parseActionGrant(last.data) : null
}
