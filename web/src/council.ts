// The council panel's content: the owner's councils (GET /api/v1/councils), each council's proposals
// (GET /council/v1/proposals) and the executions the indexer has seen (council_execution), joined into
// one row per proposal; and the owner's request to form a council from the panel's form. Pure, so the
// panel is tested without a browser; councilPanel.ts reads and draws.

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

/** A council as the API lists it (GET /api/v1/councils?owner=): what the panel shows of it. */
export type Council = {
  council: string
  members: { golemId: string; signer: string }[]
  threshold: number
  scope: { dailyLimitUsd: string; receivers: { receiver: string }[]; endsAt: number }
  formedAt: number
}

/** A council and its proposals' rows. */
export type CouncilCard = { council: Council; rows: CouncilRow[] }

/** "2 of 3: atlas, boreas, calypso; $1000/day to 0x…" */
export const councilSummary = (c: Council) =>
  `${c.threshold} of ${c.members.length}: ${c.members.map((m) => m.golemId).join(', ')}; $${c.scope.dailyLimitUsd} a day to ${c.scope.receivers.map((r) => r.receiver).join(', ')}`

/** What the panel's form asks for. */
export type CouncilFormInput = { golems: readonly string[]; threshold: string; receiver: string; dailyUsd: string; days: string }

/**
 * The owner's request for a council of the chosen Golems (POST /api/v1/councils/draft): transfers of the
 * chain's USDC to one pinned receiver, a USD cap a day, for some days. The API names anything out of range.
 */
export function councilFormRequest(input: CouncilFormInput, usdc: string, nowSeconds: number) {
  const days = Number(input.days)
  return {
    golems: [...input.golems],
    threshold: Number(input.threshold),
    scope: {
      targets: [usdc],
      selectors: ['0xa9059cbb'],
      receivers: [{ receiver: input.receiver.trim(), startIndex: 4 }],
      dailyLimitUsd: input.dailyUsd.trim(),
      ...(Number.isFinite(days) && days > 0 ? { endsAt: Math.floor(nowSeconds + days * 86_400) } : {}),
    },
  }
}
