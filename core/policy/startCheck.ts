// The check a Golem runs before it starts: the constitution it was given must be the one whose hash
// the owner put on-chain in the PolicyCage, or it refuses to start.
import { getAddress, type Address, type Hex } from 'viem'
import { constitutionHash } from './constitutionHash.ts'
import type { Constitution } from './constitution.ts'
import { policyRefusal, type PolicyRefusal } from './policyRefusal.ts'

/** What the PolicyCage answers for a Golem with no constitution set. */
export const NO_CONSTITUTION: Hex = `0x${'0'.repeat(64)}`

export function checkConstitutionAtStart(
  golem: Address,
  constitution: Constitution,
  onChainHash: Hex,
): { ok: true; hash: Hex } | { ok: false; refusal: PolicyRefusal } {
  const expected = constitutionHash(constitution)
  if (expected.toLowerCase() === onChainHash.toLowerCase()) return { ok: true, hash: expected }
  return {
    ok: false,
    refusal: policyRefusal('constitutionHash', 'constitutionHash', {
      golem: getAddress(golem),
      expected,
      onChain: onChainHash.toLowerCase() === NO_CONSTITUTION ? 'no constitution' : onChainHash,
    }),
  }
}
