// Settling a proposal left `executing`: its claimant died between its claim and the outcome, or its
// transaction was sent and the receipt did not come in time, so the chain, not the store, says whether
// the user operation ran. Pure decisions; the lookup is the chain edge's (findCouncilExecution).
import type { Hex } from 'viem'
import type { CouncilExecution, CouncilProposalRecord, FinishCouncilExecutionInput } from './store.ts'

/**
 * How long a claim is trusted before another request may settle it: longer than a submission takes to
 * be mined, so a live claimant is never overtaken while its transaction is still on its way.
 */
export const COUNCIL_EXECUTION_LEASE_MS = 5 * 60_000

/** What the chain says of a proposal's user operation. */
export type CouncilExecutionFinding =
  | { status: 'executed'; txHash: Hex; userOpHash: Hex; blockNumber: bigint }
  /** It ran and its call reverted; `refusal` is the named error from UserOperationRevertReason. */
  | { status: 'reverted'; txHash: Hex; userOpHash: Hex; blockNumber: bigint; refusal?: { name: string; args: string[] } | undefined }
  /** The transaction that carries it is known to the node and not mined yet: wait. */
  | { status: 'pending'; txHash: Hex }
  /** Its nonce key is unused: it never ran, so submitting it now runs it at most once. */
  | { status: 'not-run' }
  /** Its nonce key is used but no event was found in the searched range: wait and look again. */
  | { status: 'unknown'; reason: string }

/** Whether `record` is a claim whose claimant has had its lease and may be presumed dead. */
export function isStaleCouncilExecution(record: CouncilProposalRecord, nowMs: number, leaseMs = COUNCIL_EXECUTION_LEASE_MS): boolean {
  return record.status === 'executing' && record.execution !== undefined && nowMs - record.execution.claimedAt >= leaseMs
}

/**
 * Whether `record` is executing and its claimant stopped waiting for the outcome: nobody will record it
 * but a read or a signature, from the chain (by the transaction's hash when one was sent).
 */
export function isAwaitingChain(record: CouncilProposalRecord): boolean {
  return record.status === 'executing' && record.execution?.awaitingChainSince !== undefined
}

/** The outcome to record for a user operation found on-chain; undefined when there is none to record yet. */
export function settlementOf(
  finding: CouncilExecutionFinding,
  reason = 'settled from the chain after the claimant stopped before recording the outcome',
): { status: FinishCouncilExecutionInput['status']; execution: Omit<CouncilExecution, 'claimant' | 'claimedAt'> } | undefined {
  if (finding.status !== 'executed' && finding.status !== 'reverted') return undefined
  const execution = {
    txHash: finding.txHash,
    userOpHash: finding.userOpHash,
    blockNumber: finding.blockNumber.toString(),
    reason,
    ...(finding.status === 'reverted' && finding.refusal ? { refusal: finding.refusal } : {}),
  }
  return { status: finding.status, execution }
}
