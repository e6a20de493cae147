// Councils, their proposals and signatures on DynamoDB. A council is one item (MULTISIG#<address>)
// written once, with lookup entries for its owner and each member Golem. A proposal is one partition
// (COUNCIL#<id>) holding the proposal item and one item per signer, each written once by a conditional
// put; the execution claim is a conditional update on the proposal's status.
import type { Address, Hex } from 'viem'
import type {
  AddCouncilSignatureResult,
  CouncilRecord,
  CreateCouncilResult,
  ClaimCouncilExecutionResult,
  ClaimCouncilExecutionInput,
  CouncilProposalPage,
  CouncilProposalRecord,
  CouncilSignatureRecord,
  CreateCouncilProposalResult,
  FinishCouncilExecutionInput,
  ListCouncilProposalsInput,
  NoteCouncilExecutionInput,
  ReclaimCouncilExecutionInput,
} from '../../../core/council/store.ts'
import {
  councilAddressKey,
  councilListKey,
  councilPageLimit,
  councilRecordKey,
  MAX_COUNCILS_PER_LOOKUP,
} from '../../../core/council/store.ts'
import { StoreInputError } from '../../../core/store/errors.ts'
import * as v from '../../../core/store/validate.ts'
import * as k from '../keys.ts'
import type { DynamoTable } from './table.ts'

const councilKey = (council: string) => ({ pk: k.councilRecordPk(councilAddressKey(council)), sk: k.SK.council })

function toCouncil(item: Record<string, unknown>): CouncilRecord {
  const { pk: _pk, sk: _sk, members, ...rest } = item
  return { ...(rest as Omit<CouncilRecord, 'members'>), members: JSON.parse(members as string) }
}

export async function createCouncil(table: DynamoTable, record: CouncilRecord): Promise<CreateCouncilResult> {
  // The lookup entries first: a crash before the council item leaves entries the lookups skip. Two
  // formations of one council at once write entries naming the same council, which a lookup reads once.
  const sk = k.councilEntrySk(councilRecordKey(record))
  const council = councilAddressKey(record.council)
  const entries = [k.ownerCouncilsPk(record.owner), ...record.members.map((m) => k.golemCouncilsPk(v.id(m.golemId, 'members.golemId')))]
  for (const pk of entries) await table.put({ pk, sk, council })
  const item = { ...councilKey(record.council), ...record, members: JSON.stringify(record.members) }
  if (await table.put(item, { expression: 'attribute_not_exists(pk)' })) return { created: true, record }
  return { created: false, existing: toCouncil((await table.get(councilKey(record.council)))!) }
}

export async function getCouncil(table: DynamoTable, council: Address): Promise<CouncilRecord | null> {
  const item = await table.get(councilKey(council))
  return item ? toCouncil(item) : null
}

/** The councils a lookup partition names, newest first; an entry whose council was never written is skipped. */
async function councilsIn(table: DynamoTable, pk: string): Promise<CouncilRecord[]> {
  const page = await table.query({ pk, skBeginsWith: 'COUNCIL#', limit: MAX_COUNCILS_PER_LOOKUP, forward: false })
  const councils = [...new Set(page.items.map((entry) => entry.council as string))]
  const records = (await table.batchGet(councils.map(councilKey))).map(toCouncil)
  return records.sort((a, b) => (councilRecordKey(a) < councilRecordKey(b) ? 1 : -1))
}

export const listCouncilsByOwner = (table: DynamoTable, owner: Address) => councilsIn(table, k.ownerCouncilsPk(owner))

export const listCouncilsOfGolem = (table: DynamoTable, golemId: string) => councilsIn(table, k.golemCouncilsPk(v.id(golemId, 'golemId')))

const id = (value: string, field = 'id'): string => {
  if (!/^0x[0-9a-f]{32}$/.test(value)) throw new StoreInputError(field, 'must be a council proposal id: 0x and 16 bytes of lowercase hex')
  return value
}
const proposalKey = (proposalId: string) => ({ pk: k.councilPk(id(proposalId)), sk: k.SK.councilProposal })

function toRecord(item: Record<string, unknown>): CouncilProposalRecord {
  const { pk: _pk, sk: _sk, execution, ...rest } = item
  const record = rest as Omit<CouncilProposalRecord, 'execution'>
  return execution === undefined ? { ...record } : { ...record, execution: JSON.parse(execution as string) }
}
const toItem = (r: CouncilProposalRecord) => {
  const { execution, ...rest } = r
  return { ...proposalKey(r.id), ...rest, ...(execution === undefined ? {} : { execution: JSON.stringify(execution) }) }
}

export async function createCouncilProposal(table: DynamoTable, record: CouncilProposalRecord): Promise<CreateCouncilProposalResult> {
  // The list entry goes first, so a crash between the two writes leaves an entry the list skips, never
  // a proposal the list cannot reach; a losing create takes its entry back.
  const entry = { pk: k.councilListPk(councilAddressKey(record.council)), sk: k.councilListSk(councilListKey(record)) }
  await table.put({ ...entry, proposalId: id(record.id) })
  if (await table.put(toItem(record), { expression: 'attribute_not_exists(pk)' })) return { created: true, record }
  const existing = toRecord((await table.get(proposalKey(record.id)))!)
  if (councilListKey(existing) !== councilListKey(record)) await table.delete(entry)
  return { created: false, existing }
}

export async function listCouncilProposals(table: DynamoTable, input: ListCouncilProposalsInput): Promise<CouncilProposalPage> {
  const limit = councilPageLimit(input.limit)
  const page = await table.query({
    pk: k.councilListPk(councilAddressKey(input.council)),
    limit,
    forward: false,
    after: input.after ? k.councilListSk(input.after) : null,
  })
  const records = await Promise.all(page.items.map((item) => getCouncilProposal(table, item.proposalId as Hex)))
  const items = records.filter((r): r is CouncilProposalRecord => r !== null)
  const last = page.items.at(-1)
  return { items, next: page.lastSk && last ? (last.sk as string).slice('PROPOSAL#'.length) : null }
}

export async function getCouncilProposal(table: DynamoTable, proposalId: Hex): Promise<CouncilProposalRecord | null> {
  const item = await table.get(proposalKey(proposalId))
  return item ? toRecord(item) : null
}

export async function addCouncilSignature(table: DynamoTable, record: CouncilSignatureRecord): Promise<AddCouncilSignatureResult> {
  const key = { pk: k.councilPk(id(record.proposalId, 'proposalId')), sk: k.councilSignatureSk(record.signer) }
  if (await table.put({ ...key, ...record }, { expression: 'attribute_not_exists(pk)' })) return { added: true, record }
  const { pk: _pk, sk: _sk, ...existing } = (await table.get(key))!
  return { added: false, existing: existing as CouncilSignatureRecord }
}

export async function listCouncilSignatures(table: DynamoTable, proposalId: Hex): Promise<CouncilSignatureRecord[]> {
  const out: CouncilSignatureRecord[] = []
  let after: string | null = null
  do {
    const page = await table.query({ pk: k.councilPk(id(proposalId)), skBeginsWith: k.COUNCIL_SIGNATURE_PREFIX, limit: 100, after })
    for (const { pk: _pk, sk: _sk, ...r } of page.items) out.push(r as CouncilSignatureRecord)
    after = page.lastSk
  } while (after !== null)
  return out.sort((a, b) => a.at - b.at)
}

export async function claimCouncilExecution(table: DynamoTable, input: ClaimCouncilExecutionInput): Promise<ClaimCouncilExecutionResult> {
  const execution = {
    claimant: input.claimant,
    claimedAt: input.now,
    ...(input.fromBlock === undefined ? {} : { fromBlock: input.fromBlock }),
  }
  const item = await table.update(
    proposalKey(input.id),
    { set: { status: 'executing', execution: JSON.stringify(execution) } },
    {
      expression: 'attribute_exists(pk) AND (#status = :open OR #status = :rejected)',
      names: { '#status': 'status' },
      values: { ':open': 'open', ':rejected': 'rejected' },
    },
  )
  if (item) return { claimed: true, record: toRecord(item) }
  return { claimed: false, current: await getCouncilProposal(table, input.id) }
}

export async function reclaimCouncilExecution(
  table: DynamoTable,
  input: ReclaimCouncilExecutionInput,
): Promise<ClaimCouncilExecutionResult> {
  const current = await getCouncilProposal(table, input.id)
  if (current?.status !== 'executing' || current.execution?.claimant !== input.from) return { claimed: false, current }
  const { claimant: _c, claimedAt: _t, ...kept } = current.execution
  const execution = JSON.stringify({ ...kept, claimant: input.claimant, claimedAt: input.now })
  // The stored execution text is the claim: it changes only if nobody took it over since it was read.
  const item = await table.update(
    proposalKey(input.id),
    { set: { execution } },
    {
      expression: '#status = :executing AND #execution = :read',
      names: { '#status': 'status', '#execution': 'execution' },
      values: { ':executing': 'executing', ':read': JSON.stringify(current.execution) },
    },
  )
  if (item) return { claimed: true, record: toRecord(item) }
  return { claimed: false, current: await getCouncilProposal(table, input.id) }
}

export async function noteCouncilExecution(table: DynamoTable, input: NoteCouncilExecutionInput): Promise<CouncilProposalRecord | null> {
  const current = await getCouncilProposal(table, input.id)
  if (current?.status !== 'executing' || current.execution?.claimant !== input.claimant) return null
  const execution = JSON.stringify({ ...current.execution, ...input.execution })
  const item = await table.update(
    proposalKey(input.id),
    { set: { execution } },
    // Only the claim that was read: a claimant overtaken by reclaimCouncilExecution notes nothing.
    {
      expression: '#status = :executing AND #execution = :read',
      names: { '#status': 'status', '#execution': 'execution' },
      values: { ':executing': 'executing', ':read': JSON.stringify(current.execution) },
    },
  )
  return item ? toRecord(item) : null
}

export async function finishCouncilExecution(
  table: DynamoTable,
  input: FinishCouncilExecutionInput & { now: number },
): Promise<CouncilProposalRecord | null> {
  const current = await getCouncilProposal(table, input.id)
  if (current?.status !== 'executing' || current.execution?.claimant !== input.claimant) return null
  const execution = JSON.stringify({ ...current.execution, ...input.execution, finishedAt: input.now })
  const item = await table.update(
    proposalKey(input.id),
    { set: { status: input.status, execution } },
    // Only the claim that was read: a claimant overtaken by reclaimCouncilExecution records nothing.
    {
      expression: '#status = :executing AND #execution = :read',
      names: { '#status': 'status', '#execution': 'execution' },
      values: { ':executing': 'executing', ':read': JSON.stringify(current.execution) },
    },
  )
  return item ? toRecord(item) : null
}
