// The council's records and the port that keeps them: proposals, the members' signatures, and the
// execution claim that makes a proposal run at most once however many requests complete its threshold.
import type { Address, Hex } from 'viem'
import { StoreInputError } from '../store/errors.ts'
import type { CouncilMember } from './membership.ts'

/**
 * open -> executing (claimed by one request; once its transaction is sent, with its hash) -> executed |
 * reverted (ran, its call refused by a caveat) | rejected (it never ran: the EntryPoint refused it before
 * sending, or its signatures stopped making the threshold; it may be claimed again). A proposal whose
 * transaction was sent stays executing until the chain says how it ended. A proposal past its deadline
 * is shown as expired when read; nothing is written for that.
 */
export type CouncilProposalStatus = 'open' | 'executing' | 'executed' | 'reverted' | 'rejected'

export type CouncilExecution = {
  claimant: string
  claimedAt: number
  /** The chain's block when the claim was taken: the user operation, if it ran, is in this block or later. */
  fromBlock?: string
  txHash?: Hex
  userOpHash?: Hex
  blockNumber?: string
  /** The named refusal (a caveat's error) when the call reverted, or why the EntryPoint refused it. */
  refusal?: { name: string; args: string[] }
  reason?: string
  /** Signers whose signatures the chain refused for this proposal, and why: left out of the aggregate. */
  dropped?: { signer: Address; rule: string }[]
  /** When the transaction was handed to the chain (milliseconds). */
  sentAt?: number
  /**
   * When the claimant stopped waiting for the outcome (no receipt in time, or a send it cannot tell the
   * fate of): from then on any read or signature settles the proposal from the chain, without waiting
   * for the lease.
   */
  awaitingChainSince?: number
  finishedAt?: number
}

export type CouncilProposalRecord = {
  id: Hex
  council: Address
  proposer: Address
  status: CouncilProposalStatus
  /** Unix seconds. */
  deadline: number
  /** Milliseconds since the epoch. */
  createdAt: number
  /** The proposal as serializeCouncilProposal wrote it. */
  proposal: string
  execution?: CouncilExecution
}

export type CouncilSignatureRecord = { proposalId: Hex; signer: Address; signature: Hex; at: number }

export type CreateCouncilProposalResult =
  | { created: true; record: CouncilProposalRecord }
  | { created: false; existing: CouncilProposalRecord }
export type AddCouncilSignatureResult = { added: true; record: CouncilSignatureRecord } | { added: false; existing: CouncilSignatureRecord }
export type ClaimCouncilExecutionResult =
  | { claimed: true; record: CouncilProposalRecord }
  | { claimed: false; current: CouncilProposalRecord | null }
export type ClaimCouncilExecutionInput = { id: Hex; claimant: string; now: number; fromBlock?: string }
/** Takes over the claim of `from` (a claimant presumed dead), conditionally: exactly one caller wins. */
export type ReclaimCouncilExecutionInput = { id: Hex; from: string; claimant: string; now: number }
export type ListCouncilProposalsInput = {
  /** The council whose proposals are listed. */
  council: Address
  /** At most this many, newest first. */
  limit: number
  /** The cursor a previous page returned. */
  after?: string | null
}
export type CouncilProposalPage = { items: CouncilProposalRecord[]; next: string | null }
export type FinishCouncilExecutionInput = {
  id: Hex
  claimant: string
  status: Exclude<CouncilProposalStatus, 'open' | 'executing'>
  execution: Omit<CouncilExecution, 'claimant' | 'claimedAt'>
}

/** What an executing claim learned before its outcome: the transaction it sent, or why its outcome is unknown. */
export type NoteCouncilExecutionInput = {
  id: Hex
  claimant: string
  execution: Pick<CouncilExecution, 'txHash' | 'userOpHash' | 'sentAt' | 'reason' | 'dropped' | 'awaitingChainSince'>
}

/**
 * A council the owner formed: its MultiSig DeleGator (the council's id), the seats, the threshold, and
 * the owner's signed delegation to it. Written once, when the owner's signature checked out.
 */
export type CouncilRecord = {
  /** The council's MultiSig DeleGator. */
  council: Address
  /** The owner's smart account: the delegator of the council's delegation. */
  owner: Address
  chainId: number
  /** The seats, in the order the council's multisig was deployed with. */
  members: CouncilMember[]
  threshold: number
  /** The council's deploy salt, also its delegation's salt. */
  salt: Hex
  /** The scope the owner signed (toCouncilJson of a CouncilScope). */
  scope: string
  /** The owner's signed delegation to the council (toCouncilJson). */
  delegation: string
  delegationHash: Hex
  /** Milliseconds since the epoch. */
  formedAt: number
  /** The council's deployment, when this formation sent it (an earlier one, or anyone, may have). */
  deployTxHash?: Hex
}

export type CreateCouncilResult = { created: true; record: CouncilRecord } | { created: false; existing: CouncilRecord }

/** The most councils one lookup (an owner's, a Golem's) returns. */
export const MAX_COUNCILS_PER_LOOKUP = 100

export interface CouncilStore {
  /**
   * Write-once by council address. The owner's and each member Golem's lookup entries are written first,
   * so a crash between leaves entries the lookups skip, never a council they cannot reach.
   */
  createCouncil(record: CouncilRecord): Promise<CreateCouncilResult>
  getCouncil(council: Address): Promise<CouncilRecord | null>
  /** The owner's councils, newest first (at most MAX_COUNCILS_PER_LOOKUP). */
  listCouncilsByOwner(owner: Address): Promise<CouncilRecord[]>
  /** The councils a Golem holds a seat on, newest first (at most MAX_COUNCILS_PER_LOOKUP). */
  listCouncilsOfGolem(golemId: string): Promise<CouncilRecord[]>
  /** Write-once by id. */
  createCouncilProposal(record: CouncilProposalRecord): Promise<CreateCouncilProposalResult>
  getCouncilProposal(id: Hex): Promise<CouncilProposalRecord | null>
  /** Write-once per (proposal, signer): a second signature by the same signer changes nothing. */
  addCouncilSignature(record: CouncilSignatureRecord): Promise<AddCouncilSignatureResult>
  /** Oldest first. */
  listCouncilSignatures(proposalId: Hex): Promise<CouncilSignatureRecord[]>
  /** open (or rejected) -> executing, conditionally: exactly one caller wins. */
  claimCouncilExecution(input: ClaimCouncilExecutionInput): Promise<ClaimCouncilExecutionResult>
  /** executing by `from` -> executing by `claimant` (claimedAt now, fromBlock kept), conditionally. */
  reclaimCouncilExecution(input: ReclaimCouncilExecutionInput): Promise<ClaimCouncilExecutionResult>
  /** A council's proposals, newest first (by createdAt, then id), a page at a time. */
  listCouncilProposals(input: ListCouncilProposalsInput): Promise<CouncilProposalPage>
  /**
   * Adds to an executing claim what it learned (the transaction sent), only by the claimant; the status
   * stays executing. Returns the record, or null when the claim is not the caller's.
   */
  noteCouncilExecution(input: NoteCouncilExecutionInput): Promise<CouncilProposalRecord | null>
  /** executing -> the outcome, only by the claimant. Returns the record, or null when the claim is not the caller's. */
  finishCouncilExecution(input: FinishCouncilExecutionInput & { now: number }): Promise<CouncilProposalRecord | null>
}

/** Where a proposal sits in the newest-first list, and the list's cursor: creation time (fixed width) then id. */
export const councilListKey = (record: Pick<CouncilProposalRecord, 'createdAt' | 'id'>): string =>
  `${String(record.createdAt).padStart(15, '0')}#${record.id}`

/** Where a council sits in its owner's newest-first list: formation time (fixed width) then address. */
export const councilRecordKey = (record: Pick<CouncilRecord, 'formedAt' | 'council'>): string =>
  `${String(record.formedAt).padStart(15, '0')}#${record.council.toLowerCase()}`

/** A council address as the store keys it: 0x and 20 bytes of lowercase hex. */
export function councilAddressKey(value: string, field = 'council'): Address {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) throw new StoreInputError(field, 'must be a council address: 0x and 20 bytes of hex')
  return value.toLowerCase() as Address
}

/** The most proposals one list page returns. */
export const MAX_COUNCIL_PAGE = 100

/** A list page size: an integer from 1 to MAX_COUNCIL_PAGE. */
export function councilPageLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_COUNCIL_PAGE)
    throw new StoreInputError('limit', `must be an integer from 1 to ${MAX_COUNCIL_PAGE}, got ${limit}`)
  return limit
}
