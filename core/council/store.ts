// The council's records and the port that keeps them: proposals, the members' signatures, and the
// execution claim that makes a proposal run at most once however many requests complete its threshold.
import type { Address, Hex } from 'viem'
import { StoreInputError } from '../store/errors.ts'

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

export interface CouncilStore {
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
  /** Every proposal, newest first (by createdAt, then id), a page at a time. */
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

/** The most proposals one list page returns. */
export const MAX_COUNCIL_PAGE = 100

/** A list page size: an integer from 1 to MAX_COUNCIL_PAGE. */
export function councilPageLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_COUNCIL_PAGE)
    throw new StoreInputError('limit', `must be an integer from 1 to ${MAX_COUNCIL_PAGE}, got ${limit}`)
  return limit
}
