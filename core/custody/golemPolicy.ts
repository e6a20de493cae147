// The signing policy of one Golem: the deployment's contracts, and the owner it may hand funds back to.
import type { Address } from 'viem'
import type { TickDeployment } from '../deployment.ts'
import { delegationDomainOf } from '../delegations/typedData.ts'
import type { GolemProfile } from '../lifecycle/profile.ts'
import type { SignerPolicyConfig } from './policy.ts'
import { InvariantError } from '../errors.ts'

/**
 * The owner's account: the delegator of the root of the runway chain. It is read from the signed
 * delegation rather than from a separate field, so the recipient of a return can only be the account
 * whose signature grants the runway.
 */
export function ownerOf(profile: Pick<GolemProfile, 'runway'>): Address {
  const root = profile.runway.chain[profile.runway.chain.length - 1]
  if (!root) throw new InvariantError('PROFILE_RUNWAY_ROOT', 'profile.runway.chain: must hold the owner-signed root delegation')
  return root.delegator
}

export function golemSignerPolicy(deployment: TickDeployment, profile: Pick<GolemProfile, 'runway'>): SignerPolicyConfig {
  return {
    ...delegationDomainOf(deployment),
    oracles: { vitality: deployment.vitalityOracle, dream: deployment.dreamOracle, daimon: deployment.daimonOracle },
    owner: ownerOf(profile),
    returnTokens: [profile.runway.token],
  }
}
