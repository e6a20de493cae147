// The owner's browser wallet over EIP-1193, found through EIP-6963 announcements (MetaMask in
// production; the tests inject a provider backed by a local key the same way).
import { createWalletClient, custom, type EIP1193Provider } from 'viem'

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
