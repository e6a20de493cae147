// Golem records and the heartbeat's due index on DynamoDB.
// The due index is one small item per Golem in one of `shards` partitions (DUE#<n>), read with a
// filter on dueAt: no GSI, no per-minute buckets to miss. The Golem record is the truth; its due
// entry is a lower bound on its nextTickAt, written after it only when that bound changes
// (core/store/dueEntry.ts), guarded by version so a slow writer never rolls the entry back.
import * as codec from '../codec.ts'
import { contended, StoreConflictError } from '../../../core/store/errors.ts'
import { RETRY, retry } from '../../../core/retry.ts'
import * as parse from '../../../core/store/inputs.ts'
import * as k from '../keys.ts'
import type { DueGolem, GolemRecord } from '../../../core/store/records.ts'
import * as rules from '../../../core/store/rules.ts'
import { dueEntryChange } from '../../../core/store/dueEntry.ts'
import type * as S from '../../../core/store/store.ts'
import * as v from '../../../core/store/validate.ts'
import { BATCH_GET_MAX, type DynamoTable } from './table.ts'

/** Items read per Query while collecting a page of due Golems. */
const DUE_QUERY_BATCH = 200

export async function getGolem(table: DynamoTable, golemId: string): Promise<GolemRecord | null> {
  const item = await table.get({ pk: k.golemPk(v.golemId(golemId)), sk: k.SK.golem })
  return item ? codec.golemFromItem(item) : null
}

/**
 * The records of these Golems (unknown ids left out), in the order asked, BATCH_GET_MAX per request,
 * read eventually consistent (GolemStore.getGolems).
 */
export async function getGolems(table: DynamoTable, golemIds: readonly string[]): Promise<GolemRecord[]> {
  const ids = golemIds.map((id) => v.golemId(id))
  const found = new Map<string, GolemRecord>()
  for (let i = 0; i < ids.length; i += BATCH_GET_MAX) {
    const keys = [...new Set(ids.slice(i, i + BATCH_GET_MAX))].map((id) => ({ pk: k.golemPk(id), sk: k.SK.golem }))
    for (const item of await table.batchGet(keys, { consistent: false })) {
      const golem = codec.golemFromItem(item)
      found.set(golem.golemId, golem)
    }
  }
  return ids.flatMap((id) => {
    const golem = found.get(id)
    return golem ? [golem] : []
  })
}

export async function createGolem(table: DynamoTable, shards: number, raw: S.CreateGolemInput): Promise<S.CreateGolemResult> {
  const i = parse.parseCreateGolem(raw)
  const golem = rules.newGolemRecord(i)
  // Lookup entries first: one whose record never lands points at nothing and is skipped on read.
  await putLookups(table, golem.golemId, [k.ownerPk(golem.owner), k.keyPk(golem.sessionKeyAddress)], i.now)
  const created = await table.put(codec.golemToItem(golem), { expression: 'attribute_not_exists(pk)' })
  const current = created ? golem : await getGolem(table, i.golemId)
  if (current === null)
    throw new StoreConflictError('golemId', 'the record vanished while it was being created (Golem records are never deleted)')
  // Also on "exists": a create retried after a crash between the two writes repairs the due entry.
  await syncDueEntry(table, shards, current)
  return created ? { created: true, golem } : { created: false, existing: current }
}

export type DueLayout = { shards: number; cadenceMs: number }

/**
 * One conditional UpdateItem on the version the caller read (and a status the patch may leave), answering
 * the record as it was: no read before the write. Only a refused write reads, to say why (missing, a newer
 * version, or the patch's conflict). A patch that moves the session key reads first: the new key's lookup
 * entry is written before the record names it, and only when the key changes.
 */
export async function updateGolem(table: DynamoTable, due: DueLayout, raw: S.UpdateGolemInput): Promise<S.UpdateGolemResult> {
  const i = parse.parseUpdateGolem(raw)
  if (i.patch.sessionKeyAddress !== undefined) return updateGolemAfterRead(table, due, i)
  const { set, remove } = codec.golemPatchToUpdate(i.patch)
  const names: Record<string, string> = { '#version': 'version', '#status': 'status' }
  const values: Record<string, unknown> = { ':expected': i.expectedVersion, ':dead': 'dead' }
  let expression = '#version = :expected AND #status <> :dead'
  if (i.patch.status !== undefined) {
    const from = rules.statusesThatMayBecome(i.patch.status)
    for (const [n, s] of from.entries()) values[`:from${n}`] = s
    expression += ` AND #status IN (${from.map((_, n) => `:from${n}`).join(', ')})`
  }
  const spec = { set: { ...set, updatedAt: i.now, version: i.expectedVersion + 1 }, remove }
  return retry({ attempts: 5, exhausted: contended('updateGolem') }, async () => {
    const old = await table.updateReturningOld({ pk: k.golemPk(i.golemId), sk: k.SK.golem }, spec, { expression, names, values })
    if (old === null) {
      const current = await getGolem(table, i.golemId)
      if (current === null) return { updated: false, reason: 'missing', current: null }
      if (current.version !== i.expectedVersion) {
        await syncDueEntry(table, due.shards, current)
        return { updated: false, reason: 'version', current }
      }
      // Same version, refused: the patch's own conflict (a dead record, a status going back) is thrown here.
      rules.checkGolemPatch(current, i.patch)
      return RETRY
    }
    const current = codec.golemFromItem(old)
    const next = rules.applyGolemPatch(current, i.patch, i.now)
    // An idle tick only moves nextTickAt by one beat: the entry, a lower bound, still lists it in time.
    if (dueEntryChange(current, next, i.now, due.cadenceMs) !== 'none') await syncDueEntry(table, due.shards, next)
    return { updated: true, golem: next }
  })
}

async function updateGolemAfterRead(table: DynamoTable, due: DueLayout, i: S.UpdateGolemInput): Promise<S.UpdateGolemResult> {
  const shards = due.shards
  const current = await getGolem(table, i.golemId)
  if (current === null) return { updated: false, reason: 'missing', current: null }
  if (current.version !== i.expectedVersion) {
    await syncDueEntry(table, shards, current)
    return { updated: false, reason: 'version', current }
  }
  rules.checkGolemPatch(current, i.patch)
  const next = rules.applyGolemPatch(current, i.patch, i.now)
  if (next.sessionKeyAddress !== current.sessionKeyAddress) await putLookups(table, next.golemId, [k.keyPk(next.sessionKeyAddress)], i.now)
  const written = await table.put(codec.golemToItem(next), {
    expression: '#version = :expected',
    names: { '#version': 'version' },
    values: { ':expected': i.expectedVersion },
  })
  if (!written) {
    const latest = await getGolem(table, i.golemId)
    return latest === null ? { updated: false, reason: 'missing', current: null } : { updated: false, reason: 'version', current: latest }
  }
  if (dueEntryChange(current, next, i.now, due.cadenceMs) !== 'none') await syncDueEntry(table, shards, next)
  return { updated: true, golem: next }
}

/** Writes the Golem's due entry unless a newer version is already there. Idempotent. */
export async function syncDueEntry(table: DynamoTable, shards: number, golem: GolemRecord): Promise<void> {
  await table.put(codec.dueToItem(golem, shards), {
    expression: 'attribute_not_exists(pk) OR #version < :version',
    names: { '#version': 'version' },
    values: { ':version': golem.version },
  })
}

export async function listDueGolems(table: DynamoTable, shards: number, raw: S.ListDueInput): Promise<S.ListDueResult> {
  const i = parse.parseListDue(raw, shards)
  const from = k.decodeDueCursor(i.cursor, shards, i.shard)
  const golems: DueGolem[] = []
  const last = i.shard === null ? shards - 1 : i.shard
  for (let shard = from.shard; shard <= last; shard++) {
    let after = shard === from.shard ? from.after : null
    for (;;) {
      const page = await table.query({
        pk: k.duePk(shard),
        filter: {
          expression: '#dueAt <= :now AND #status <> :dead',
          names: { '#dueAt': 'dueAt', '#status': 'status' },
          values: { ':now': i.now, ':dead': 'dead' },
        },
        limit: DUE_QUERY_BATCH,
        after,
        // Eventually consistent, at half the read units, like the walk's read of the records: an entry
        // written in the last second may wait for the next beat, as one written just after the read did.
        consistent: false,
      })
      for (const item of page.items) {
        golems.push(codec.dueFromItem(item))
        if (golems.length === i.limit) return { golems, cursor: k.encodeCursor({ shard, after: item.sk as string }) }
      }
      if (page.lastSk === null) break
      after = page.lastSk
    }
  }
  return { golems, cursor: null }
}

/** Idempotent: the same entry rewritten says the same thing. */
async function putLookups(table: DynamoTable, golemId: string, pks: string[], now: number): Promise<void> {
  for (const pk of pks) await table.put(codec.lookupToItem(pk, golemId, now))
}

export async function findGolems(table: DynamoTable, raw: S.FindGolemsInput): Promise<GolemRecord[]> {
  const i = parse.parseFindGolems(raw)
  const page = await table.query({
    pk: i.by === 'owner' ? k.ownerPk(i.address) : k.keyPk(i.address),
    skBeginsWith: 'GOLEM#',
    limit: k.MAX_GOLEMS_PER_LOOKUP,
  })
  const records = await Promise.all(page.items.map((item) => getGolem(table, item.golemId as string)))
  return records
    .filter((r): r is GolemRecord => r !== null && (i.by === 'owner' ? r.owner : r.sessionKeyAddress).toLowerCase() === i.address)
    .sort((a, b) => a.createdAt - b.createdAt || (a.golemId < b.golemId ? -1 : 1))
}

export async function recordShardWalks(table: DynamoTable, shards: number, raw: S.RecordShardWalksInput): Promise<void> {
  const i = parse.parseRecordShardWalks(raw, shards)
  if (i.shards.length === 0) return
  await table.update({ pk: k.WALKS_PK, sk: k.SK.walks }, { set: Object.fromEntries(i.shards.map((shard) => [k.walkedAttr(shard), i.at])) })
}

export async function lastWalkOf(table: DynamoTable, shards: number, golemId: string): Promise<number | null> {
  const item = await table.get({ pk: k.WALKS_PK, sk: k.SK.walks })
  const at = item?.[k.walkedAttr(k.dueShard(v.golemId(golemId), shards))]
  return typeof at === 'number' ? at : null
}
