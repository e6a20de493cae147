// Council proposals and signatures on DynamoDB: one partition per proposal (COUNCIL#<id>) holding the
// proposal item and one item per signer, each written once by a conditional put; the execution claim is
// a conditional update on the proposal's status.
import type { Hex } from 'viem'
import type {
  AddCouncilSignatureResult,
  ClaimCouncilExecutionResult,
  CouncilProposalRecord,
  CouncilSignatureRecord,
  CreateCouncilProposalResult,
  FinishCouncilExecutionInput,
} from '../../../core/council/store.ts'
import { StoreInputError } from '../../../core/store/errors.ts'
import * as k from '../keys.ts'
import type { DynamoTable } from './table.ts'

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
  if (await table.put(toItem(record), { expression: 'attribute_not_exists(pk)' })) return { created: true, record }
  const existing = await table.get(proposalKey(record.id))
  return { created: false, existing: toRecord(existing!) }
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

export async function claimCouncilExecution(
  table: DynamoTable,
  input: { id: Hex; claimant: string; now: number },
): Promise<ClaimCouncilExecutionResult> {
  const item = await table.update(
    proposalKey(input.id),
    { set: { status: 'executing', execution: JSON.stringify({ claimant: input.claimant, claimedAt: input.now }) } },
    {
      expression: 'attribute_exists(pk) AND (#status = :open OR #status = :rejected)',
      names: { '#status': 'status' },
      values: { ':open': 'open', ':rejected': 'rejected' },
    },
  )
  if (item) return { claimed: true, record: toRecord(item) }
  return { claimed: false, current: await getCouncilProposal(table, input.id) }
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
    { expression: '#status = :executing', names: { '#status': 'status' }, values: { ':executing': 'executing' } },
  )
  return item ? toRecord(item) : null
}
