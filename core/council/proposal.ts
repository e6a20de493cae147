import type { Delegation, ExecutionStruct } from '@metamask/smart-accounts-kit'
import { SIGNABLE_USER_OP_TYPED_DATA } from '@metamask/smart-accounts-kit/utils'
import { encodeFunctionData, getAddress, isAddressEqual, isHex, maxUint64, size, type Address, type Hex } from 'viem'
import { toPackedUserOperation, type UserOperation } from 'viem/account-abstraction'
import { encodeRedemptions } from '../delegations/redeem.ts'
import { DeleGatorExecuteAbi } from '../delegations/frameworkAbi.ts'
import { CouncilError } from './errors.ts'

/** How the council is deployed and where its delegation is redeemed. */
export type CouncilConfig = {
  /** The council's MultiSig DeleGator (the delegate of the owner's council delegation). */
  council: Address
  chainId: number
  entryPoint: Address
  delegationManager: Address
}

/** The call the council asks the owner's account to make (one call, through the council's delegation). */
export type CouncilAction = { target: Address; value: bigint; callData: Hex }

/** Gas limits and fees of the council's user operation: fixed at proposal time, because every member signs them. */
export type CouncilGas = {
  callGasLimit: bigint
  verificationGasLimit: bigint
  preVerificationGas: bigint
  maxFeePerGas: bigint
  maxPriorityFeePerGas: bigint
}

/**
 * One proposal. What members sign is `userOperation` (the council's ERC-4337 user operation, in the
 * MultiSigDeleGator's EIP-712 domain: the council address and chain id), whose call data redeems the
 * owner's council delegation for exactly `action`, and whose nonce carries the proposal id and the
 * deadline, so a signature is good for this action, this council, this chain and this deadline only.
 */
export type CouncilProposal = CouncilConfig & {
  /** 16 random bytes. */
  id: Hex
  /** Unix seconds; no signature is taken and nothing is executed after it. */
  deadline: bigint
  action: CouncilAction
  /** The owner's signed delegation to the council (the redemption chain, one link). */
  delegation: Delegation
  userOperation: UserOperation<'0.7'>
}

/** A proposal's id takes 128 bits of the nonce key and the deadline the 64 above them. */
const ID_BYTES = 16
/** The longest a proposal may stay open: signatures over an old action are a liability, not a convenience. */
export const MAX_COUNCIL_PROPOSAL_SECONDS = 7n * 86_400n

/**
 * The user operation's nonce: EntryPoint key `deadline << 128 | id`, sequence 0. A key is used once
 * (executing it moves its sequence to 1), so the same proposal can never run twice on-chain, and every
 * member's signature covers the deadline.
 */
export function councilNonce(id: Hex, deadline: bigint): bigint {
  return ((deadline << 128n) | BigInt(id)) << 64n
}

/** The id and deadline a council nonce carries (the inverse of councilNonce). */
export function parseCouncilNonce(nonce: bigint): { id: Hex; deadline: bigint; sequence: bigint } {
  const key = nonce >> 64n
  return {
    id: `0x${(key & ((1n << 128n) - 1n)).toString(16).padStart(ID_BYTES * 2, '0')}`,
    deadline: key >> 128n,
    sequence: nonce & maxUint64,
  }
}

/** The council's call data: execute(redeemDelegations([owner -> council], SingleDefault, [action])). */
export function councilCallData(config: CouncilConfig, delegation: Delegation, action: CouncilAction): Hex {
  const redeem = encodeRedemptions([{ chain: [delegation], executions: [action as ExecutionStruct] }])
  // The DeleGator's one-call execute, the bytes the kit's encodeCalls gives for one call; encodeCalls
  // itself would carry the kit's whole utils library into every bundle that checks a proposal (the tick's,
  // through the GolemSigner).
  return encodeFunctionData({
    abi: DeleGatorExecuteAbi,
    functionName: 'execute',
    args: [{ target: config.delegationManager, value: 0n, callData: redeem }],
  })
}

export type BuildCouncilProposalParameters = {
  config: CouncilConfig
  delegation: Delegation
  action: CouncilAction
  id: Hex
  deadline: bigint
  /** Chain time, unix seconds. */
  now: bigint
  gas: CouncilGas
}

/** Builds and checks a proposal; throws CouncilError naming the field. */
export function buildCouncilProposal(p: BuildCouncilProposalParameters): CouncilProposal {
  const { config, delegation, action } = p
  if (!isHex(p.id) || size(p.id) !== ID_BYTES)
    throw new CouncilError('id', `must be ${ID_BYTES} bytes of 0x hex, got ${JSON.stringify(p.id)}`)
  if (p.deadline <= p.now) throw new CouncilError('deadline', `must be after now (${p.now}), got ${p.deadline}`)
  if (p.deadline > p.now + MAX_COUNCIL_PROPOSAL_SECONDS)
    throw new CouncilError('deadline', `must be at most ${MAX_COUNCIL_PROPOSAL_SECONDS} seconds from now (${p.now}), got ${p.deadline}`)
  if (!isAddressEqual(delegation.delegate, config.council))
    throw new CouncilError('delegation.delegate', `must be the council ${config.council}, got ${delegation.delegate}`)
  if (delegation.signature === '0x')
    throw new CouncilError('delegation.signature', 'is missing; the owner signs the council delegation first')
  if (action.value < 0n) throw new CouncilError('action.value', `must not be negative, got ${action.value}`)
  if (!isHex(action.callData)) throw new CouncilError('action.callData', 'must be 0x hex')
  const normalized: CouncilAction = {
    target: getAddress(action.target),
    value: action.value,
    callData: action.callData.toLowerCase() as Hex,
  }
  const userOperation: UserOperation<'0.7'> = {
    sender: getAddress(config.council),
    nonce: councilNonce(p.id, p.deadline),
    callData: councilCallData(config, delegation, normalized),
    ...p.gas,
    signature: '0x',
  }
  return { ...config, id: p.id.toLowerCase() as Hex, deadline: p.deadline, action: normalized, delegation, userOperation }
}

/**
 * Checks that a proposal's user operation is exactly its stated action, council and deadline, so what
 * a member signs is what the proposal says (a proposal received from a peer is checked before signing).
 */
export function checkCouncilProposal(proposal: CouncilProposal): void {
  const op = proposal.userOperation
  if (!isAddressEqual(op.sender, proposal.council))
    throw new CouncilError('userOperation.sender', `must be the council ${proposal.council}, got ${op.sender}`)
  const nonce = parseCouncilNonce(op.nonce)
  if (nonce.id !== proposal.id.toLowerCase() || nonce.deadline !== proposal.deadline || nonce.sequence !== 0n)
    throw new CouncilError('userOperation.nonce', 'must carry the proposal id and deadline with sequence 0')
  if (op.callData.toLowerCase() !== councilCallData(proposal, proposal.delegation, proposal.action).toLowerCase())
    throw new CouncilError('userOperation.callData', 'must redeem the council delegation for exactly the proposed action')
  if (op.factory !== undefined || op.paymaster !== undefined)
    throw new CouncilError('userOperation', 'must name no factory and no paymaster (the council is deployed and pays its own gas)')
}

/** The EIP-712 typed data every member signs (the MultiSigDeleGator's user operation form). */
export function councilProposalTypedData(proposal: CouncilProposal) {
  return councilUserOperationTypedData(proposal, proposal.userOperation)
}

/** Any user operation of the council (a proposal's, or the council changing its own signers) as members sign it. */
export function councilUserOperationTypedData(config: CouncilConfig, userOperation: UserOperation<'0.7'>) {
  const packed = toPackedUserOperation({ ...userOperation, signature: '0x' })
  return {
    domain: { name: 'MultiSigDeleGator', version: '1', chainId: config.chainId, verifyingContract: config.council },
    types: SIGNABLE_USER_OP_TYPED_DATA,
    primaryType: 'PackedUserOperation',
    message: { ...packed, entryPoint: config.entryPoint },
  } as const
}
