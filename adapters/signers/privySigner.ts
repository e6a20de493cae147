import {
  getAddress,
  isAddress,
  isAddressEqual,
  numberToHex,
  parseTransaction,
  recoverTransactionAddress,
  recoverTypedDataAddress,
  type Address,
  type Hex,
  type TransactionSerializable,
} from 'viem'
import { PrivySignerError } from '../../core/custody/errors.ts'
import type { RawSigner } from '../../core/custody/rawSigner.ts'
import { REDACTED, redact, redactText } from '../../core/custody/redact.ts'

export const PRIVY_API_URL = 'https://api.privy.io'

export type PrivySignerParameters = {
  appId: string
  /** Sent only in the Authorization header; never in an error, a log or toJSON. */
  appSecret: string
  walletId: string
  baseUrl?: string
  fetch?: typeof fetch
  timeoutMs?: number
}

/**
 * Embedded custody: a Privy server wallet behind the RawSigner interface, over Privy's REST API
 * (`GET /v1/wallets/{id}`, `POST /v1/wallets/{id}/rpc` with eth_signTransaction and
 * eth_signTypedData_v4, basic auth app-id:app-secret plus the privy-app-id header). Every answer is
 * checked: the signed transaction must be the one requested and every signature must recover to the
 * wallet's address, so a misbehaving remote cannot make us broadcast something else.
 */
export async function createPrivySigner(params: PrivySignerParameters): Promise<RawSigner> {
  const { appId, appSecret, walletId } = params
  const base = (params.baseUrl ?? PRIVY_API_URL).replace(/\/+$/, '')
  const doFetch = params.fetch ?? fetch
  const timeoutMs = params.timeoutMs ?? 10_000
  const credentials = Buffer.from(`${appId}:${appSecret}`).toString('base64')
  const authorization = `Basic ${credentials}`
  // A remote error may echo what it was sent: scrub the secret and its base64 form before it
  // goes into one of our errors.
  const scrub = (text: string) =>
    redactText([appSecret, credentials].filter((s) => s.length > 0).reduce((t, secret) => t.split(secret).join(REDACTED), text))

  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<Record<string, unknown>> => {
    let res: Response
    try {
      res = await doFetch(`${base}${path}`, {
        method,
        headers: { authorization, 'privy-app-id': appId, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
      })
    } catch (err) {
      throw new PrivySignerError(walletId, `${method} ${path} failed: ${scrub(String((err as Error)?.message ?? err))}`)
    }
    const text = await res.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    if (!res.ok) {
      const reason = typeof (json as { error?: unknown })?.error === 'string' ? (json as { error: string }).error : text.slice(0, 200)
      throw new PrivySignerError(walletId, `${method} ${path} answered ${res.status}: ${scrub(reason)}`, res.status)
    }
    if (typeof json !== 'object' || json === null)
      throw new PrivySignerError(walletId, `${method} ${path} answered a non-JSON body`, res.status)
    return json as Record<string, unknown>
  }

  const wallet = await call('GET', `/v1/wallets/${encodeURIComponent(walletId)}`)
  if (wallet.chain_type !== 'ethereum') throw new PrivySignerError(walletId, `chain_type is ${String(wallet.chain_type)}, must be ethereum`)
  if (typeof wallet.address !== 'string' || !isAddress(wallet.address, { strict: false }))
    throw new PrivySignerError(walletId, 'wallet has no valid address')
  const address = getAddress(wallet.address)
  const rpcPath = `/v1/wallets/${encodeURIComponent(walletId)}/rpc`

  const signer: RawSigner = {
    kind: 'privy',
    address,
    async signTransaction(tx) {
      const out = await call('POST', rpcPath, { method: 'eth_signTransaction', params: { transaction: toPrivyTransaction(walletId, tx) } })
      const signed = (out.data as { signed_transaction?: unknown } | undefined)?.signed_transaction
      if (out.method !== 'eth_signTransaction' || typeof signed !== 'string' || !signed.startsWith('0x'))
        throw new PrivySignerError(walletId, 'eth_signTransaction answered without data.signed_transaction')
      await assertSameTransaction(walletId, address, tx, signed as Hex)
      return signed as Hex
    },
    async signTypedData(td) {
      const typedData = { domain: td.domain ?? {}, types: td.types, message: td.message, primary_type: td.primaryType }
      const out = await call('POST', rpcPath, { method: 'eth_signTypedData_v4', params: { typed_data: jsonSafe(typedData) } })
      const signature = (out.data as { signature?: unknown } | undefined)?.signature
      if (out.method !== 'eth_signTypedData_v4' || typeof signature !== 'string' || !signature.startsWith('0x'))
        throw new PrivySignerError(walletId, 'eth_signTypedData_v4 answered without data.signature')
      const recovered = await recoverTypedDataAddress({
        ...(td as Parameters<typeof recoverTypedDataAddress>[0]),
        signature: signature as Hex,
      })
      if (!isAddressEqual(recovered, address))
        throw new PrivySignerError(walletId, `typed-data signature recovers to ${recovered}, not the wallet ${address}`)
      return signature as Hex
    },
  }
  return redact(signer, () => ({ kind: 'privy', appId, walletId, address, appSecret: REDACTED }))
}

const TYPE_NUMBER = { legacy: 0, eip2930: 1, eip1559: 2 } as const

/** viem's transaction -> Privy's snake_case wallet-API transaction. */
export function toPrivyTransaction(walletId: string, tx: TransactionSerializable): Record<string, unknown> {
  const type = tx.type ?? (tx.maxFeePerGas !== undefined ? 'eip1559' : tx.gasPrice !== undefined ? 'legacy' : 'eip1559')
  if (!(type in TYPE_NUMBER)) throw new PrivySignerError(walletId, `transaction type ${type} is not supported by the Privy adapter`)
  if (tx.accessList !== undefined && tx.accessList.length > 0)
    throw new PrivySignerError(walletId, 'access lists are not supported by the Privy adapter')
  const hex = (v: bigint | undefined) => (v === undefined ? undefined : numberToHex(v))
  const out: Record<string, unknown> = {
    type: TYPE_NUMBER[type as keyof typeof TYPE_NUMBER],
    to: tx.to ?? undefined,
    data: tx.data ?? '0x',
    value: numberToHex(tx.value ?? 0n),
    chain_id: tx.chainId,
    nonce: tx.nonce,
    gas_limit: hex(tx.gas),
    gas_price: hex(tx.gasPrice),
    max_fee_per_gas: hex(tx.maxFeePerGas),
    max_priority_fee_per_gas: hex(tx.maxPriorityFeePerGas),
  }
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined))
}

async function assertSameTransaction(walletId: string, address: Address, tx: TransactionSerializable, signed: Hex): Promise<void> {
  let parsed
  try {
    parsed = parseTransaction(signed)
  } catch {
    throw new PrivySignerError(walletId, 'signed_transaction does not parse')
  }
  const expect: Array<[string, unknown, unknown]> = [
    ['to', tx.to?.toLowerCase(), parsed.to?.toLowerCase()],
    ['data', (tx.data ?? '0x').toLowerCase(), (parsed.data ?? '0x').toLowerCase()],
    ['value', tx.value ?? 0n, parsed.value ?? 0n],
    ['chainId', tx.chainId, parsed.chainId],
    ['nonce', tx.nonce ?? parsed.nonce, parsed.nonce],
    ['gas', tx.gas ?? parsed.gas, parsed.gas],
    ['maxFeePerGas', tx.maxFeePerGas, parsed.maxFeePerGas],
    ['maxPriorityFeePerGas', tx.maxPriorityFeePerGas, parsed.maxPriorityFeePerGas],
    ['gasPrice', tx.gasPrice, parsed.gasPrice],
  ]
  for (const [field, want, got] of expect) {
    if (want !== got) throw new PrivySignerError(walletId, `signed transaction differs from the request in ${field}`)
  }
  const signer = await recoverTransactionAddress({
    serializedTransaction: signed as Parameters<typeof recoverTransactionAddress>[0]['serializedTransaction'],
  })
  if (!isAddressEqual(signer, address))
    throw new PrivySignerError(walletId, `signed transaction recovers to ${signer}, not the wallet ${address}`)
}

/** JSON cannot carry bigint; EIP-712 clients accept uints as hex strings. */
function jsonSafe(value: unknown): unknown {
  if (typeof value === 'bigint') return numberToHex(value)
  if (Array.isArray(value)) return value.map(jsonSafe)
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonSafe(v)]))
  return value
}
