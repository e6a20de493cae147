// The council panel's content: the API's proposals (GET /council/v1/proposals) and the executions the
// indexer has seen (council_execution), joined into one row per proposal. Pure, so the panel is tested
// without a browser; councilPanel.ts reads and draws.

export type CouncilState = 'open' | 'executing' | 'executed' | 'reverted' | 'rejected' | 'expired'

/** The part of the API's proposal view the panel shows. */
export type CouncilProposal = {
  id: string
  proposer: string
  status: CouncilState
  deadline: number
  /** `callData` is absent for the read key the dashboard's server holds. */
  action: { target: string; value: string; callData?: string }
  threshold: number
  seats: number
  counted: number
  execution: { txHash?: string; userOpHash?: string; refusal?: { name: string; args: string[] }; reason?: string } | null
}

/** A council_execution row as the indexer serves it. */
export type IndexedCouncilExecution = { proposalId: string; userOpHash: string; txHash: string; success: boolean }

export type CouncilRow = {
  id: string
  state: CouncilState
  /** "k of n signed, t needed". */
  signatures: string
  deadline: number
  target: string
  txHash: string | null
  /** Whether the indexer has the execution: 'seen' (and it agrees on success), 'pending', or null when nothing ran. */
  indexed: 'seen' | 'pending' | null
  /** Why it did not run as asked: the named refusal, or the EntryPoint's reason. */
  note: string | null
}

export const ran = (state: CouncilState) => state === 'executed' || state === 'reverted'

/** One row per proposal, newest first as the API lists them, each marked with what the indexer saw. */
export function councilRows(proposals: readonly CouncilProposal[], indexed: readonly IndexedCouncilExecution[]): CouncilRow[] {
  const byProposal = new Map(indexed.map((e) => [e.proposalId.toLowerCase(), e]))
  return proposals.map((p) => {
    const seen = byProposal.get(p.id.toLowerCase())
    const txHash = p.execution?.txHash ?? null
    const refusal = p.execution?.refusal
    const note = refusal ? `${refusal.name}(${refusal.args.join(', ')})` : p.status === 'rejected' ? (p.execution?.reason ?? null) : null
    return {
      id: p.id,
      state: p.status,
      signatures: `${p.counted} of ${p.seats} signed, ${p.threshold} needed`,
      deadline: p.deadline,
      target: p.action.target,
      txHash,
      indexed: ran(p.status) ? (seen !== undefined && seen.success === (p.status === 'executed') ? 'seen' : 'pending') : null,
      note,
    }
  })
}

/** How many proposals the panel shows (the newest). */
export const COUNCIL_READ = 20

/** The indexer's executions of the given proposal ids (lower-case). */
export const COUNCIL_EXECUTIONS_QUERY = `query($ids: [String!]) {
  councilExecutions(where: { proposalId_in: $ids }, limit: ${COUNCIL_READ}) { items { proposalId userOpHash txHash success } }
}`
