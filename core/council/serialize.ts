import type { CouncilProposal } from './proposal.ts'

// Bigints travel as decimal strings ending in "n"; no other field of a council record looks like that
// (addresses and hex start with 0x).
const BIGINT = /^\d+n$/

/** A council value (a proposal, a scope) as JSON text, for the store. */
export function toCouncilJson(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))
}

/** The value toCouncilJson wrote. */
export function fromCouncilJson<T>(text: string): T {
  return JSON.parse(text, (_, v: unknown) => (typeof v === 'string' && BIGINT.test(v) ? BigInt(v.slice(0, -1)) : v)) as T
}

/** A proposal as JSON text, for the store. */
export const serializeCouncilProposal = (proposal: CouncilProposal): string => toCouncilJson(proposal)

export const parseCouncilProposal = (text: string): CouncilProposal => fromCouncilJson<CouncilProposal>(text)
