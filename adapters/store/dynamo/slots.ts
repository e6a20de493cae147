// Tick slots on DynamoDB: each transition is one conditional UpdateItem whose condition is the rule
// in rules.ts. When a condition fails, the slot is read back and the same rule names the reason; if
// the read shows the write would now pass (the state moved in between), the write is tried again.
import * as codec from '../codec.ts'
import { RETRY, retry } from '../../../core/retry.ts'
import { contended } from '../../../core/store/errors.ts'
import * as parse from '../../../core/store/inputs.ts'
import * as k from '../keys.ts'
import type { SlotRef, TickSlot } from '../../../core/store/records.ts'
import * as rules from '../../../core/store/rules.ts'
import type * as S from '../../../core/store/store.ts'
import type { Condition, DynamoTable } from './table.ts'

/** A failed condition is read back and decided again at once: the state that failed it has already moved. */
const RACE = (operation: string) => ({ attempts: 5, exhausted: contended(operation) })
const NAMES = { '#status': 'status', '#owner': 'owner', '#txHash': 'txHash', '#leaseUntil': 'leaseUntil' }
const keyOf = (r: SlotRef) => ({ pk: k.golemPk(r.golemId), sk: k.slotSk(r.period, r.step) })

export async function getSlot(table: DynamoTable, ref: SlotRef): Promise<TickSlot | null> {
  const item = await table.get(keyOf(parse.parseSlotRef(ref)))
  return item ? codec.slotFromItem(item) : null
}

/** Who may claim: nobody holds the slot, or its holder is us or its lease lapsed, and no tx is recorded. */
const claimable = (owner: string, now: number): Condition => ({
  expression:
    'attribute_not_exists(pk) OR (#status = :claimed AND attribute_not_exists(#txHash) AND (#owner = :owner OR #leaseUntil <= :now))',
  names: NAMES,
  values: { ':claimed': 'claimed', ':owner': owner, ':now': now },
})

const claimFields = (i: S.ClaimSlotInput) => ({
  entity: 'slot',
  golemId: i.golemId,
  period: i.period.toString(),
  step: i.step,
  status: 'claimed',
  owner: i.owner,
  claimedAt: i.now,
  leaseUntil: i.now + i.leaseMs,
})

export async function claimSlot(table: DynamoTable, raw: S.ClaimSlotInput): Promise<S.ClaimSlotResult> {
  const i = parse.parseClaimSlot(raw)
  return retry(RACE('claimSlot'), async () => {
    const item = await table.update(keyOf(i), { set: claimFields(i), add: { claims: 1, version: 1 } }, claimable(i.owner, i.now))
    if (item) return { claimed: true, slot: codec.slotFromItem(item) }
    const slot = await getSlot(table, i)
    const refusal = rules.slotClaimRefusal(slot, i.owner, i.now)
    return refusal !== null && slot ? { claimed: false, reason: refusal, slot } : RETRY
  })
}

/** What recording a signed transaction sets: the slot is `sent`, with the bytes to re-broadcast. */
const sentFields = (i: S.RecordSlotTxInput) =>
  codec.compact({ status: 'sent', txHash: i.txHash, txNonce: i.nonce, txSender: i.sender, rawTx: i.rawTx, sentAt: i.now })

export async function claimSlotWithTx(table: DynamoTable, raw: S.ClaimSlotWithTxInput): Promise<S.ClaimSlotResult> {
  const i = parse.parseClaimSlotWithTx(raw)
  const set = { ...claimFields(i), ...sentFields(i) }
  return retry(RACE('claimSlotWithTx'), async () => {
    const item = await table.update(keyOf(i), { set, add: { claims: 1, version: 1 } }, claimable(i.owner, i.now))
    if (item) return { claimed: true, slot: codec.slotFromItem(item) }
    const slot = await getSlot(table, i)
    const refusal = rules.claimWithTxRefusal(slot, i)
    if (refusal === null || !slot) return RETRY
    return refusal === 'idempotent' ? { claimed: true, slot } : { claimed: false, reason: refusal, slot }
  })
}

export async function recordSlotTx(table: DynamoTable, raw: S.RecordSlotTxInput): Promise<S.RecordSlotTxResult> {
  const i = parse.parseRecordSlotTx(raw)
  return retry(RACE('recordSlotTx'), async () => {
    const item = await table.update(
      keyOf(i),
      { set: sentFields(i), add: { version: 1 } },
      {
        expression: '#status = :claimed AND #owner = :owner AND attribute_not_exists(#txHash)',
        names: pick('#status', '#owner', '#txHash'),
        values: { ':claimed': 'claimed', ':owner': i.owner },
      },
    )
    if (item) return { recorded: true, slot: codec.slotFromItem(item) }
    const slot = await getSlot(table, i)
    if (slot === null) return { recorded: false, reason: 'missing', slot }
    const d = rules.recordTxDecision(slot, i)
    if (d === 'idempotent') return { recorded: true, slot }
    return d === 'write' ? RETRY : { recorded: false, reason: d, slot }
  })
}

export async function completeSlot(table: DynamoTable, raw: S.CompleteSlotInput): Promise<S.CompleteSlotResult> {
  const i = parse.parseCompleteSlot(raw)
  const branches: string[] = []
  const values: Record<string, unknown> = { ':sent': 'sent' }
  const names: Record<string, string> = pick('#status')
  if (rules.completesFromClaimed(i)) {
    branches.push('(#status = :claimed AND #owner = :owner AND attribute_not_exists(#txHash))')
    Object.assign(values, { ':claimed': 'claimed', ':owner': i.owner })
    Object.assign(names, pick('#owner', '#txHash'))
  }
  if (i.txHash === undefined) branches.push('#status = :sent')
  else {
    branches.push('(#status = :sent AND #txHash = :txHash)')
    values[':txHash'] = i.txHash
    Object.assign(names, pick('#txHash'))
  }
  const set = codec.compact({ status: i.outcome, completedAt: i.now, completedBy: i.owner, detail: i.detail })
  return retry(RACE('completeSlot'), async () => {
    const item = await table.update(keyOf(i), { set, add: { version: 1 } }, { expression: branches.join(' OR '), names, values })
    if (item) return { completed: true, slot: codec.slotFromItem(item) }
    const slot = await getSlot(table, i)
    if (slot === null) return { completed: false, reason: 'missing', slot }
    const d = rules.completeDecision(slot, i)
    if (d === 'idempotent') return { completed: true, slot }
    return d === 'write' ? RETRY : { completed: false, reason: d, slot }
  })
}

export async function releaseSlot(table: DynamoTable, raw: S.ReleaseSlotInput): Promise<S.ReleaseSlotResult> {
  const i = parse.parseReleaseSlot(raw)
  return retry(RACE('releaseSlot'), async () => {
    const item = await table.update(
      keyOf(i),
      { set: { leaseUntil: i.now }, add: { version: 1 } },
      {
        expression: '#status = :claimed AND #owner = :owner AND attribute_not_exists(#txHash)',
        names: pick('#status', '#owner', '#txHash'),
        values: { ':claimed': 'claimed', ':owner': i.owner },
      },
    )
    if (item) return { released: true, slot: codec.slotFromItem(item) }
    const slot = await getSlot(table, i)
    if (slot === null) return { released: false, reason: 'missing', slot }
    const d = rules.releaseSlotDecision(slot, i.owner)
    if (d === 'idempotent') return { released: true, slot }
    return d === 'write' ? RETRY : { released: false, reason: d, slot }
  })
}

function pick(...placeholders: (keyof typeof NAMES)[]): Record<string, string> {
  return Object.fromEntries(placeholders.map((p) => [p, NAMES[p]]))
}
