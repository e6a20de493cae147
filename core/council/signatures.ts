import { aggregateSignature } from '@metamask/smart-accounts-kit'
import { getAddress, isAddressEqual, isHex, recoverTypedDataAddress, size, type Address, type Hex } from 'viem'
import type { CouncilMember } from './membership.ts'
import { councilProposalTypedData, type CouncilProposal } from './proposal.ts'

export type CouncilSignature = { signer: Address; signature: Hex }

export type SignatureRefusal = 'expired' | 'bad-signature' | 'wrong-signer' | 'not-member' | 'not-counting' | 'closed'

export type SignatureVerdict =
  | { status: 'accepted'; signer: Address }
  /** The signer already signed this proposal: nothing changes. */
  | { status: 'duplicate'; signer: Address }
  | { status: 'refused'; reason: SignatureRefusal; rule: string }

export type JudgeSignatureParameters = {
  proposal: CouncilProposal
  /** Whether the proposal still takes signatures (not claimed for execution, not finished). */
  open: boolean
  /** The member the request is authenticated as (the Clade caller). */
  caller: Address
  signature: Hex
  members: readonly CouncilMember[]
  /** Signer keys that count now (judgeMembers, from a fresh read of the VitalityOracle and custody). */
  counting: readonly Address[]
  existing: readonly CouncilSignature[]
  /** Chain time, unix seconds. */
  now: bigint
}

/**
 * Decides one signature: it must arrive by the deadline, recover to the authenticated caller over the
 * proposal's exact typed data, and come from a seat that counts now. A second signature by the same
 * signer changes nothing.
 */
export async function judgeCouncilSignature(p: JudgeSignatureParameters): Promise<SignatureVerdict> {
  if (!p.open) return { status: 'refused', reason: 'closed', rule: 'proposal: is no longer open for signatures' }
  if (p.now > p.proposal.deadline)
    return { status: 'refused', reason: 'expired', rule: `proposal: its deadline ${p.proposal.deadline} has passed (now ${p.now})` }
  if (!isHex(p.signature) || size(p.signature) !== 65)
    return { status: 'refused', reason: 'bad-signature', rule: 'signature: must be a 65-byte ECDSA signature' }
  let signer: Address
  try {
    signer = await recoverTypedDataAddress({ ...councilProposalTypedData(p.proposal), signature: p.signature })
  } catch {
    return { status: 'refused', reason: 'bad-signature', rule: 'signature: does not recover to an address' }
  }
  if (!isAddressEqual(signer, p.caller))
    return {
      status: 'refused',
      reason: 'wrong-signer',
      rule: `signature: must be the caller's own signature over this proposal's typed data (recovered ${signer}, caller ${p.caller})`,
    }
  if (!p.members.some((m) => isAddressEqual(m.signer, signer)))
    return { status: 'refused', reason: 'not-member', rule: `signer: ${signer} holds no seat on the council ${p.proposal.council}` }
  if (!p.counting.some((s) => isAddressEqual(s, signer)))
    return { status: 'refused', reason: 'not-counting', rule: `signer: ${signer} holds a seat that does not count now` }
  if (p.existing.some((s) => isAddressEqual(s.signer, signer))) return { status: 'duplicate', signer }
  return { status: 'accepted', signer }
}

export type CouncilTally =
  | { ready: true; counted: CouncilSignature[]; aggregate: Hex }
  | { ready: false; counted: CouncilSignature[]; missing: number; reason: 'threshold' | 'expired' }

/**
 * Which stored signatures count now and whether they reach the threshold. Run again right before
 * execution: a member that died or rotated since it signed no longer counts. The aggregate holds
 * exactly `threshold` signatures, sorted by signer as the MultiSigDeleGator requires.
 */
export function tallyCouncilSignatures(p: {
  signatures: readonly CouncilSignature[]
  counting: readonly Address[]
  threshold: number
  deadline: bigint
  now: bigint
}): CouncilTally {
  const seen = new Set<string>()
  const counted: CouncilSignature[] = []
  for (const s of p.signatures) {
    const key = s.signer.toLowerCase()
    if (seen.has(key) || !p.counting.some((c) => isAddressEqual(c, s.signer))) continue
    seen.add(key)
    counted.push({ signer: getAddress(s.signer), signature: s.signature })
  }
  if (p.now > p.deadline) return { ready: false, counted, missing: Math.max(0, p.threshold - counted.length), reason: 'expired' }
  if (counted.length < p.threshold) return { ready: false, counted, missing: p.threshold - counted.length, reason: 'threshold' }
  const chosen = [...counted].sort((a, b) => (BigInt(a.signer) < BigInt(b.signer) ? -1 : 1)).slice(0, p.threshold)
  // The kit sorts by signer as well; passing lowercase keeps its string order the numeric order.
  const aggregate = aggregateSignature({
    signatures: chosen.map((s) => ({ signer: s.signer.toLowerCase() as Address, signature: s.signature, type: 'ECDSA' as const })),
  })
  return { ready: true, counted, aggregate }
}
