// A user operation from the owner's MetaMask Hybrid smart account, unsigned, with the EIP-712 typed data
// the owner signs in the wallet (PackedUserOperation under the account's domain). Nothing here signs or
// sends: the owner's wallet signs, and the owner's own account (or any funded account) submits it to
// EntryPoint.handleOps, as no bundler runs on a local chain.
import { createExecution, ExecutionMode, type SmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import { encodeBatchExecution, SIGNABLE_USER_OP_TYPED_DATA } from '@metamask/smart-accounts-kit/utils'
import { decodeAbiParameters, decodeFunctionData, encodeFunctionData, type Address, type Hex, type PublicClient } from 'viem'
import { entryPoint07Abi, toPackedUserOperation, type UserOperation } from 'viem/account-abstraction'
import { DeleGatorExecuteAbi } from '../../core/delegations/frameworkAbi.ts'
import { BardoError } from '../../core/errors.ts'

/**
 * A user operation for the owner's smart account, unsigned, with fixed generous gas limits (no bundler
 * estimates locally; handleOps is submitted directly) and the chain's current fees.
 */
export async function unsignedUserOperation(
  client: Pick<PublicClient, 'estimateFeesPerGas'>,
  p: { sender: Address; nonce: bigint; callData: Hex },
): Promise<UserOperation<'0.7'>> {
  const fees = await client.estimateFeesPerGas()
  return {
    ...p,
    callGasLimit: 1_000_000n,
    verificationGasLimit: 1_000_000n,
    preVerificationGas: 100_000n,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    signature: '0x',
  }
}

export type OwnerOperation = {
  userOperation: UserOperation<'0.7'>
  /** What the owner signs: the packed operation under the HybridDeleGator's EIP-712 domain. */
  typedData: {
    domain: { chainId: number; name: string; version: string; verifyingContract: Address }
    types: typeof SIGNABLE_USER_OP_TYPED_DATA
    primaryType: 'PackedUserOperation'
    message: Record<string, unknown>
  }
  /** The EntryPoint the signed operation is submitted to (handleOps). */
  entryPoint: Address
}

/** One user operation from `owner`'s smart account making `calls`, unsigned, with its typed data. */
export async function ownerOperation(
  client: PublicClient,
  environment: SmartAccountsEnvironment,
  chainId: number,
  owner: Address,
  calls: readonly { to: Address; data: Hex }[],
): Promise<OwnerOperation> {
  // The account's own encoding (ERC-7579 execute in batch mode) and the EntryPoint's nonce (key 0), read
  // directly: the kit's smart-account object would bring every framework ABI into the API's bundle.
  const nonce = await client.readContract({
    address: environment.EntryPoint,
    abi: entryPoint07Abi,
    functionName: 'getNonce',
    args: [owner, 0n],
  })
  const callData = encodeFunctionData({
    abi: DeleGatorExecuteAbi,
    functionName: 'execute',
    args: [
      ExecutionMode.BatchDefault,
      encodeBatchExecution(calls.map((call) => createExecution({ target: call.to, value: 0n, callData: call.data }))),
    ],
  })
  const userOperation = await unsignedUserOperation(client, { sender: owner, nonce, callData })
  return {
    userOperation,
    typedData: ownerOperationTypedData(userOperation, chainId, environment.EntryPoint),
    entryPoint: environment.EntryPoint,
  }
}

/** What the owner signs for a user operation of its HybridDeleGator (`userOperation.sender`). */
export function ownerOperationTypedData(
  userOperation: UserOperation<'0.7'>,
  chainId: number,
  entryPoint: Address,
): OwnerOperation['typedData'] {
  return {
    domain: { chainId, name: 'HybridDeleGator', version: '1', verifyingContract: userOperation.sender },
    types: SIGNABLE_USER_OP_TYPED_DATA,
    primaryType: 'PackedUserOperation',
    message: { ...toPackedUserOperation(userOperation), entryPoint },
  }
}

const BATCH_EXECUTION = [{ type: 'tuple[]', components: [{ type: 'address' }, { type: 'uint256' }, { type: 'bytes' }] }] as const

/** The calls an owner operation's callData makes (ownerOperation's encoding read back), for a signer to see before signing. */
export function ownerOperationCalls(callData: Hex): { to: Address; value: bigint; data: Hex }[] {
  const { args } = decodeFunctionData({ abi: DeleGatorExecuteAbi, data: callData })
  if (args.length !== 2 || args[0] !== ExecutionMode.BatchDefault)
    throw new BardoError('USER_OPERATION_UNREADABLE', "userOperation.callData: must be execute in batch mode, as the owner's drafts are")
  const [executions] = decodeAbiParameters(BATCH_EXECUTION, args[1] as Hex)
  return executions.map(([to, value, data]) => ({ to, value, data }))
}
