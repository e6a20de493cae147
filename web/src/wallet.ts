// The owner's browser wallet over EIP-1193, found through EIP-6963 announcements (MetaMask in
// production; the tests inject a provider backed by a local key the same way).

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

const DOMAIN_FIELDS: Record<string, string> = {
  name: 'string',
  version: 'string',
  chainId: 'uint256',
  verifyingContract: 'address',
  salt: 'bytes32',
}

/**
 * eth_signTypedData_v4 as MetaMask expects it: the EIP712Domain type spelled out and numbers as
 * decimal strings (JSON has no bigint).
 */
export async function signTypedData(provider: Eip1193Provider, address: `0x${string}`, data: TypedData): Promise<`0x${string}`> {
  const { EIP712Domain: _given, ...types } = data.types
  const EIP712Domain = Object.keys(DOMAIN_FIELDS)
    .filter((k) => data.domain[k] !== undefined)
    .map((name) => ({ name, type: DOMAIN_FIELDS[name]! }))
  const payload = JSON.stringify({ ...data, types: { EIP712Domain, ...types } }, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))
  return (await provider.request({ method: 'eth_signTypedData_v4', params: [address, payload] })) as `0x${string}`
}
