import { aggregateSignature } from '@metamask/smart-accounts-kit'
import { getAddress, hexToBigInt, isAddressEqual, isHex, recoverTypedDataAddress, size, slice, type Address, type Hex } from 'viem'
import type { CouncilMember } from './membership.ts'
import { councilProposalTypedData, type CouncilProposal } from './proposal.ts'

export type CouncilSignature = { signer: Address; signature: Hex }

export type SignatureRefusal = 'expired' | 'bad-signature' | 'wrong-signer' | 'not-member' | 'not-counting' | 'closed'

/** The order of secp256k1: r and s are below it, and the chain takes only the lower half for s. */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

/**
 * Why the chain would refuse this 65-byte signature before it looks at the signer, or undefined when it
 * takes it. The MultiSigDeleGator recovers each signer with OpenZeppelin's ECDSA, which refuses a
 * high-s signature (ECDSAInvalidSignatureS) and any v but 27 or 28; an off-chain recovery accepts both,
 * so a member could otherwise store a copy of its signature (s' = n - s, v flipped) that the API
 * counts and the EntryPoint always refuses.
 */
export function councilSignatureRule(signature: Hex): string | undefined {
  if (!isHex(signature) || size(signature) !== 65) return 'must be a 65-byte ECDSA signature (r, s, v)'
  const r = hexToBigInt(slice(signature, 0, 32))
  const s = hexToBigInt(slice(signature, 32, 64))
  const v = hexToBigInt(slice(signature, 64, 65))
  if (v !== 27n && v !== 28n) return `v must be 27 or 28 as the chain's ECDSA recovery requires, got ${v}`
  if (r === 0n || r >= SECP256K1_N) return 'r must be between 1 and the curve order n - 1'
  if (s === 0n) return 's must not be 0'
  if (s > SECP256K1_N / 2n)
    return 's must be at most n/2 (low-s): the chain refuses a high-s signature (ECDSAInvalidSignatureS); sign again, or use n - s with v flipped'
  return undefined
}

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
 * Decides one signature: it must arrive by the deadline, be a signature the chain takes
 * (councilSignatureRule), recover to the authenticated caller over the
 * proposal's exact typed data, and come from a seat that counts now. A second signature by the same
 * signer changes nothing.
 */
export async function judgeCouncilSignature(p: JudgeSignatureParameters): Promise<SignatureVerdict> {
  if (!p.open) return { status: 'refused', reason: 'closed', rule: 'proposal: is no longer open for signatures' }
  if (p.now > p.proposal.deadline)
    return { status: 'refused', reason: 'expired', rule: `proposal: its deadline ${p.proposal.deadline} has passed (now ${p.now})` }
  const malformed = councilSignatureRule(p.signature)
  if (malformed) return { status: 'refused', reason: 'bad-signature', rule: `signature: ${malformed}` }
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
  /** `chosen` are the `threshold` signatures in `aggregate`, in its order. */
  | { ready: true; counted: CouncilSignature[]; chosen: CouncilSignature[]; aggregate: Hex }
  | { ready: false; counted: CouncilSignature[]; missing: number; reason: 'threshold' | 'expired' }

/**
 * Which stored signatures count now and whether they reach the threshold. Run again right before
 * execution: a member that died or rotated since it signed no longer counts, nor does a signature the
 * chain would refuse (councilSignatureRule) or one of the `dropped` signers (its signature failed
 * on-chain). The aggregate holds exactly `threshold` signatures, sorted by signer as the
 * MultiSigDeleGator requires.
 */
export function tallyCouncilSignatures(p: {
  signatures: readonly CouncilSignature[]
  counting: readonly Address[]
  threshold: number
  deadline: bigint
  now: bigint
  dropped?: readonly Address[]
}): CouncilTally {
  const seen = new Set<string>()
  const counted: CouncilSignature[] = []
  for (const s of p.signatures) {
    const key = s.signer.toLowerCase()
    if (seen.has(key) || !p.counting.some((c) => isAddressEqual(c, s.signer))) continue
    if (councilSignatureRule(s.signature) !== undefined || p.dropped?.some((d) => isAddressEqual(d, s.signer))) continue
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
  return { ready: true, counted, chosen, aggregate }
}
