// Reads a Coordination Council's user operation: the proposal id and deadline its nonce key carries, and
// the key that joins what one operation left in a transaction (its redemption or revert reason) to its
// UserOperationEvent. Pure.
import type { Address, Hex } from 'viem'
import { parseCouncilNonce } from '../../core/council/proposal.ts'

/** The proposal a council nonce carries: id = the key's low 128 bits, deadline = the next 64. */
export function councilProposalOf(nonce: bigint): { proposalId: Hex; deadline: bigint } {
  const { id, deadline } = parseCouncilNonce(nonce)
  return { proposalId: id, deadline }
}

/**
 * The EntryPoint runs one operation at a time (its calls, then its UserOperationEvent), so within a
 * transaction what a council's call emitted belongs to that council's next UserOperationEvent.
 */
export const councilPendingKey = (txHash: Hex, council: Address): string => `${txHash.toLowerCase()}-${council.toLowerCase()}`

/** Whether `address` is one of the named councils (lower-case set). */
export const isCouncil = (councils: ReadonlySet<string>, address: Address): boolean => councils.has(address.toLowerCase())
