// Before a Golem acts under a constitution, the constitution it was given must be the one whose hash
// the PolicyCage holds for its key: otherwise it does not start, and custody executes nothing for it.
import type { PublicClient } from 'viem'
import { readConstitutionHash } from '../adapters/chain/readConstitutionHash.ts'
import type { BardoDeployment } from '../core/deployment.ts'
import type { GolemProfile } from '../core/lifecycle/profile.ts'
import { checkConstitutionAtStart, constitutionHash, policyRefusal, type PolicyRefusal } from '../core/policy/index.ts'

export type ConstitutionAtStart = { ok: true } | { ok: false; refusal: PolicyRefusal }

export async function constitutionAtStart(
  client: Pick<PublicClient, 'readContract'>,
  deployment: Pick<BardoDeployment, 'policyCage'>,
  profile: Pick<GolemProfile, 'golemKey' | 'constitution'>,
): Promise<ConstitutionAtStart> {
  const constitution = profile.constitution
  if (!constitution) return { ok: true }
  if (!deployment.policyCage)
    return {
      ok: false,
      refusal: policyRefusal('constitutionHash', 'constitutionHash', {
        golem: profile.golemKey,
        expected: constitutionHash(constitution),
        onChain: 'no PolicyCage in the deployment',
      }),
    }
  const onChain = await readConstitutionHash(client, deployment.policyCage, profile.golemKey)
  const checked = checkConstitutionAtStart(profile.golemKey, constitution, onChain)
  return checked.ok ? { ok: true } : checked
}
