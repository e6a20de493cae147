// The owner's browser wallet over EIP-1193, found through EIP-6963 announcements (MetaMask in
// production; the tests inject a provider backed by a local key the same way).
import { createPublicClient, createWalletClient, custom, encodeFunctionData, parseEventLogs, type EIP1193Provider } from 'viem'
import { entryPoint07Abi, toPackedUserOperation } from 'viem/account-abstraction'
import { signedUserOperation, type UserOperationDraft } from './userOperation.ts'

export type Eip1193Provider = { request(args: { method: string; params?: unknown[] }): Promise<unknown> }
export type WalletInfo = { uuid: string; name: string; icon: string; rdns: string }
export type WalletDetail = { info: WalletInfo; provider: Eip1193Provider }

/** Calls `found` for every wallet that announces itself now or later; returns the unsubscribe. */
export function discoverWallets(found: (detail: WalletDetail) => void): () => void {
  const onAnnounce = (event: Event) => found((event as CustomEvent<WalletDetail>).detail)
  window.addEventListener('eip6963:announceProvider', onAnnounce)
  window.dispatchEvent(new Event('eip6963:requestProvider'))
  return () => window.removeEventListener('eip6963:announceProvider', onAnnounce)
}

export async function connectWallet(provider: Eip1193Provider): Promise<`0x${string}`> {
  const accounts = (await provider.request({ method: 'eth_requestAccounts' })) as `0x${string}`[]
  const first = accounts[0]
  if (!first) throw new Error('wallet: no account was shared')
  return first
}

export type TypedData = {
  domain: Record<string, unknown>
  types: Record<string, readonly { name: string; type: string }[]>
  primaryType: string
  message: Record<string, unknown>
}

/**
 * eth_signTypedData_v4 through viem's wallet client over the wallet's EIP-1193 provider: viem checks
 * addresses, byte lengths and integer ranges before the wallet is asked, spells the EIP712Domain type
 * out from the domain's fields and sends numbers as decimal strings. The drafts come as JSON, so their
 * integers are decimal strings already; viem reads those as it reads bigints.
 */
export async function signTypedData(provider: Eip1193Provider, address: `0x${string}`, data: TypedData): Promise<`0x${string}`> {
  const { EIP712Domain: _given, ...types } = data.types
  const wallet = createWalletClient({ account: address, transport: custom(provider as EIP1193Provider) })
  return wallet.signTypedData({ ...data, types } as Parameters<typeof wallet.signTypedData>[0])
}

/**
 * The owner's signed user operation, submitted from the owner's own wallet account: one transaction to
 * the EntryPoint's handleOps, which the wallet shows, estimates and sends, with the account itself as the
 * beneficiary of the operation's gas refund. No relay and no bundler stand between the owner and the
 * chain. Answers once the transaction is mined and the operation inside it succeeded (handleOps succeeds
 * even when the operation's call reverts; its UserOperationEvent says so).
 */
export async function submitUserOperation(
  provider: Eip1193Provider,
  from: `0x${string}`,
  draft: UserOperationDraft,
  signature: `0x${string}`,
): Promise<`0x${string}`> {
  const userOperation = signedUserOperation(draft, signature)
  const data = encodeFunctionData({
    abi: entryPoint07Abi,
    functionName: 'handleOps',
    args: [[toPackedUserOperation(userOperation)], from],
  })
  const wallet = createWalletClient({ account: from, transport: custom(provider as EIP1193Provider) })
  const hash = await wallet.sendTransaction({ to: draft.entryPoint, data, chain: null })
  const receipt = await createPublicClient({ transport: custom(provider as EIP1193Provider) }).waitForTransactionReceipt({
    hash,
    pollingInterval: 500,
  })
  const events = parseEventLogs({ abi: entryPoint07Abi, eventName: 'UserOperationEvent', logs: receipt.logs })
  if (receipt.status !== 'success' || events.length === 0 || events.some((e) => !e.args.success))
    throw new Error(`user operation: reverted in ${hash}`)
  return hash
}
