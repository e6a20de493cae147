import type { CouncilProposal } from './proposal.ts'

// Bigints travel as decimal strings ending in "n"; no other field of a proposal looks like that
// (addresses and hex start with 0x).
const BIGINT = /^\d+n$/

/** A proposal as JSON text, for the store. */
export function serializeCouncilProposal(proposal: CouncilProposal): string {
  return JSON.stringify(proposal, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))
}

export function parseCouncilProposal(text: string): CouncilProposal {
  return JSON.parse(text, (_, v: unknown) => (typeof v === 'string' && BIGINT.test(v) ? BigInt(v.slice(0, -1)) : v)) as CouncilProposal
}
