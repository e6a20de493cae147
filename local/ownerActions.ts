// Owner-side calls from a MetaMask Hybrid smart account, the way a wallet sends them: a user operation
// signed by the owner's key and submitted to EntryPoint.handleOps by any funded account (no bundler
// runs locally). Used for revocation (disableDelegation) and other owner acts in tests and the demo.
import {
  encodeFunctionData,
  type Address,
  type Hex,
  type PublicClient,
  type WalletClient,
  type Transport,
  type Chain,
  type Account,
  type TransactionReceipt,
} from 'viem'
import { entryPoint07Abi, toPackedUserOperation } from 'viem/account-abstraction'
import { estimateContractGasWithHeadroom } from '../adapters/chain/gasHeadroom.ts'
import { unsignedUserOperation } from '../adapters/chain/userOperation.ts'
import { contracts, type Delegation, type MetaMaskSmartAccount } from '@metamask/smart-accounts-kit'
import { LocalStackError } from './errors.ts'

export type OwnerCall = { to: Address; value?: bigint; data?: Hex }

export async function sendOwnerCalls(params: {
  publicClient: PublicClient
  submitter: WalletClient<Transport, Chain, Account>
  smartAccount: MetaMaskSmartAccount
  calls: readonly OwnerCall[]
}): Promise<TransactionReceipt> {
  const { publicClient, submitter, smartAccount } = params
  const callData = await smartAccount.encodeCalls(params.calls.map((c) => ({ to: c.to, value: c.value ?? 0n, data: c.data ?? '0x' })))
  const userOperation = await unsignedUserOperation(publicClient, {
    sender: smartAccount.address,
    nonce: await smartAccount.getNonce(),
    callData,
  })
  const chainId = await publicClient.getChainId()
  const signature = await smartAccount.signUserOperation({ ...userOperation, chainId })
  const packed = toPackedUserOperation({ ...userOperation, signature })
  const entryPoint = smartAccount.entryPoint.address
  const handleOps = {
    address: entryPoint,
    abi: entryPoint07Abi,
    functionName: 'handleOps',
    args: [[packed], submitter.account.address],
  } as const
  // Sent with headroom over the exact estimate: the operation's gas may depend on the block it is mined in.
  const gas = await estimateContractGasWithHeadroom(submitter, handleOps)
  const hash = await submitter.writeContract({ ...handleOps, gas })
  const receipt = await publicClient.waitForTransactionReceipt({ hash })
  if (receipt.status !== 'success') throw new LocalStackError('OWNER_OPERATION_REVERTED', `handleOps ${hash} reverted`)
  // handleOps succeeds even when the inner call reverts; the EntryPoint reports it in UserOperationEvent.
  const failed = receipt.logs.some((log) => {
    if (log.address.toLowerCase() !== entryPoint.toLowerCase()) return false
    // UserOperationEvent(bytes32 indexed userOpHash, address indexed sender, address indexed paymaster, uint256 nonce, bool success, ...)
    if (log.topics[0] !== '0x49628fd1471006c1482da88028e9ce4dbb080b815c9b0344d39e5a8e6ec1419f') return false
    const success = BigInt(`0x${log.data.slice(2 + 64, 2 + 128)}`)
    return success === 0n
  })
  if (failed) throw new LocalStackError('OWNER_OPERATION_REVERTED', `user operation in ${hash} reverted`)
  return receipt
}

/** The owner revokes a delegation in one transaction. */
export function disableDelegationCall(delegationManager: Address, delegation: Delegation): OwnerCall {
  return { to: delegationManager, data: contracts.DelegationManager.encode.disableDelegation({ delegation }) }
}

export function encodeCall(to: Address, data: Hex, value = 0n): OwnerCall {
  return { to, data, value }
}

export { encodeFunctionData }
