// The owner's wallet in the browser tests: an EIP-1193 provider backed by the owner's key that refuses
// what MetaMask refuses. MetaMask's signature controller does not install from this registry (its
// logging-controller dependency is missing) and does not export its validation, so its typed-data rules
// are restated here with its own messages: the domain's chainId must be the wallet's, a site may not use
// one of the wallet's accounts as the verifying contract, and a site may not have a `Delegation` signed
// whose delegator is one of the wallet's accounts (the owner of an EIP-7702 account grants through
// ERC-7715 instead). ERC-7715 requests go to `permissions`, MetaMask's permissions Snap stand-in.
// Transactions the page asks for are sent from the owner's key to the chain (`rpcUrl`), as MetaMask
// sends them through its own node, and the page's reads of the chain go there too.
import { createWalletClient, getTypesForEIP712Domain, http, serializeTypedData, type Hex, type TypedDataDomain } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'

type Field = { name: string; type: string }

/** What the page's `eth_signTypedData_v4` carries: JSON with numbers as decimal strings. */
type TypedDataJson = {
  domain: Record<string, unknown>
  types: Record<string, Field[]>
  primaryType: string
  message: Record<string, unknown>
}

/** The origin of every request from the page: never MetaMask's own. */
const EXTERNAL = true

/** MetaMask's typed-data checks for a site's request, with its messages. Throws on the first broken rule. */
export function checkTypedDataRequest(json: string, wallet: { accounts: readonly string[]; chainId: number }): TypedDataJson {
  let data: TypedDataJson
  try {
    data = JSON.parse(json) as TypedDataJson
  } catch {
    throw new Error('Data must be passed as a valid JSON string.')
  }
  if (!data || typeof data !== 'object' || !data.types || !data.primaryType || !data.domain || !data.message)
    throw new Error('Data must conform to EIP-712 schema. See https://git.io/fNtcx.')
  let chainId = data.domain.chainId as number | string | undefined
  if (chainId !== undefined) {
    if (typeof chainId === 'string') chainId = Number.parseInt(chainId, chainId.startsWith('0x') ? 16 : 10)
    if (chainId !== wallet.chainId) throw new Error(`Provided chainId "${chainId}" must match the active chainId "${wallet.chainId}"`)
  }
  const internal = (a: unknown) => typeof a === 'string' && wallet.accounts.some((x) => x.toLowerCase() === a.toLowerCase())
  if (EXTERNAL && internal(data.domain.verifyingContract))
    throw new Error('External signature requests cannot use internal accounts as the verifying contract.')
  if (EXTERNAL && data.primaryType === 'Delegation' && internal(data.message.delegator))
    throw new Error('External signature requests cannot sign delegations for internal accounts.')
  return data
}

/** eth_signTypedData_v4 carries numbers as decimal strings; viem signs bigints. */
function typedValues(types: Record<string, Field[]>, type: string, value: unknown): unknown {
  if (type.endsWith(']')) return (value as unknown[]).map((v) => typedValues(types, type.slice(0, type.lastIndexOf('[')), v))
  const struct = types[type]
  if (struct) return Object.fromEntries(struct.map((f) => [f.name, typedValues(types, f.type, (value as Record<string, unknown>)[f.name])]))
  if (/^u?int\d*$/.test(type)) return BigInt(value as string | number)
  return value
}

/**
 * The eth_signTypedData_v4 payload a site's viem wallet client sends for `typedData` (JSON, integers as
 * decimal strings): the EIP712Domain type spelled out from the domain's fields, as wallets require.
 */
export function walletJson(typedData: unknown): string {
  const t = typedData as { domain: TypedDataDomain; types: Record<string, Field[]> }
  return serializeTypedData({
    ...t,
    types: { EIP712Domain: getTypesForEIP712Domain({ domain: t.domain }), ...t.types },
  } as never)
}

export type TestWalletOptions = {
  account: PrivateKeyAccount
  chainId: number
  /** `wallet_requestExecutionPermissions`: the grant as MetaMask's permissions Snap makes it. Absent: refused. */
  permissions?: (requests: unknown[]) => Promise<unknown>
  /** The chain's JSON-RPC: eth_sendTransaction and the page's chain reads. Absent: both refused. */
  rpcUrl?: string
}

/** What a wallet answers from its node for a site: reads of the chain, never signing. */
const CHAIN_READS = new Set([
  'eth_blockNumber',
  'eth_call',
  'eth_estimateGas',
  'eth_gasPrice',
  'eth_getBalance',
  'eth_getBlockByHash',
  'eth_getBlockByNumber',
  'eth_getCode',
  'eth_getLogs',
  'eth_getTransactionByHash',
  'eth_getTransactionCount',
  'eth_getTransactionReceipt',
  'eth_maxPriorityFeePerGas',
])

/** What the wallet does for the page: share its account, sign typed data MetaMask would sign, grant permissions. */
export async function walletRequest(account: PrivateKeyAccount, chainId: number, method: string, params: unknown[]): Promise<unknown> {
  return testWallet({ account, chainId })(method, params)
}

export function testWallet(o: TestWalletOptions): (method: string, params: unknown[]) => Promise<unknown> {
  const { account, chainId } = o
  return async (method, params) => {
    switch (method) {
      case 'eth_requestAccounts':
      case 'eth_accounts':
        return [account.address]
      case 'eth_chainId':
        return `0x${chainId.toString(16)}`
      case 'eth_signTypedData_v4': {
        const [address, json] = params as [string, string]
        if (address.toLowerCase() !== account.address.toLowerCase()) throw new Error(`eth_signTypedData_v4: unknown account ${address}`)
        const data = checkTypedDataRequest(json, { accounts: [account.address], chainId })
        const { EIP712Domain: _domain, ...types } = data.types
        const domain = typedValues({ EIP712Domain: _domain ?? [] }, 'EIP712Domain', data.domain) as Record<string, unknown>
        return account.signTypedData({
          domain,
          types,
          primaryType: data.primaryType,
          message: typedValues(types, data.primaryType, data.message) as Record<string, unknown>,
        } as never) as Promise<Hex>
      }
      case 'personal_sign': {
        const [data, address] = params as [Hex, string]
        if (address.toLowerCase() !== account.address.toLowerCase()) throw new Error(`personal_sign: unknown account ${address}`)
        return account.signMessage({ message: { raw: data } })
      }
      case 'eth_sendTransaction': {
        if (!o.rpcUrl) throw new Error('eth_sendTransaction: this wallet has no chain')
        const [tx] = params as [{ from: string; to: Hex; data?: Hex; value?: Hex; gas?: Hex }]
        if (tx.from.toLowerCase() !== account.address.toLowerCase()) throw new Error(`eth_sendTransaction: unknown account ${tx.from}`)
        const wallet = createWalletClient({ account, transport: http(o.rpcUrl) })
        return wallet.sendTransaction({
          chain: null,
          to: tx.to,
          ...(tx.data ? { data: tx.data } : {}),
          ...(tx.value ? { value: BigInt(tx.value) } : {}),
          ...(tx.gas ? { gas: BigInt(tx.gas) } : {}),
        })
      }
      case 'wallet_requestExecutionPermissions':
        if (!o.permissions) throw new Error('wallet_requestExecutionPermissions: not supported by this wallet')
        return o.permissions(params)
      default: {
        if (!o.rpcUrl || !CHAIN_READS.has(method)) throw new Error(`${method}: not supported by the test wallet`)
        const res = await fetch(o.rpcUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        })
        const answer = (await res.json()) as { result?: unknown; error?: { message: string } }
        if (answer.error) throw new Error(answer.error.message)
        return answer.result
      }
    }
  }
}
