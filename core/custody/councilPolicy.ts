// What a Golem's seat on a council may sign: a proposal that says exactly what it does (its user
// operation rebuilt from its stated action), for a council this Golem sits on, on its own chain and
// DelegationManager, whose action is the one the Golem was told, before its deadline.
import { isAddressEqual, type Hex } from 'viem'
import { CouncilError } from '../council/errors.ts'
import { checkCouncilProposal, type CouncilAction, type CouncilProposal } from '../council/proposal.ts'
import { parseCouncilProposal } from '../council/serialize.ts'
import { SignerPolicyError } from './errors.ts'
import type { SignerPolicyConfig } from './policy.ts'

/** A proposal to co-sign: its text as the council API returned it, and the action the Golem agreed to. */
export type CouncilSigningRequest = { proposal: string; action: CouncilAction }

/** Checks a council signing request against the policy; returns the proposal to sign, or throws SignerPolicyError naming the field. */
export function checkCouncilSigningRequest(request: CouncilSigningRequest, config: SignerPolicyConfig, now: bigint): CouncilProposal {
  const councils = config.councils ?? []
  if (councils.length === 0)
    throw new SignerPolicyError('council-configured', 'this Golem sits on no council: it signs no council proposal')
  let proposal: CouncilProposal
  try {
    proposal = parseCouncilProposal(request.proposal)
    checkCouncilProposal(proposal)
  } catch (error) {
    if (error instanceof CouncilError) throw new SignerPolicyError('council-proposal', `proposal.${error.message}`)
    throw new SignerPolicyError('council-proposal', 'proposal: must be a council proposal’s text as the council API returns it')
  }
  if (!councils.some((c) => isAddressEqual(c, proposal.council)))
    throw new SignerPolicyError('council-member', `proposal.council: ${proposal.council} is not a council this Golem sits on`)
  if (proposal.chainId !== config.chainId)
    throw new SignerPolicyError('council-chain', `proposal.chainId: must be this Golem's chain ${config.chainId}, got ${proposal.chainId}`)
  if (!isAddressEqual(proposal.delegationManager, config.delegationManager))
    throw new SignerPolicyError(
      'council-chain',
      `proposal.delegationManager: must be ${config.delegationManager}, got ${proposal.delegationManager}`,
    )
  if (!isAddressEqual(proposal.delegation.delegate, proposal.council))
    throw new SignerPolicyError('council-proposal', `proposal.delegation.delegate: must be the council ${proposal.council}`)
  const stated = request.action
  const mismatch = (field: keyof CouncilAction, got: unknown, want: unknown) =>
    new SignerPolicyError('council-action', `action.${field}: the proposal's ${String(got)} is not the stated ${String(want)}`)
  if (!isAddressEqual(proposal.action.target, stated.target)) throw mismatch('target', proposal.action.target, stated.target)
  if (proposal.action.value !== stated.value) throw mismatch('value', proposal.action.value, stated.value)
  if (proposal.action.callData.toLowerCase() !== (stated.callData.toLowerCase() as Hex))
    throw mismatch('callData', proposal.action.callData, stated.callData)
  if (now > proposal.deadline)
    throw new SignerPolicyError('council-deadline', `proposal.deadline: ${proposal.deadline} has passed (now ${now})`)
  return proposal
}
