// A local stand-in for Privy's server-wallet API (GET /v1/wallets/{id}, POST /v1/wallets/{id}/rpc
// with eth_signTransaction and eth_signTypedData_v4), holding a real key, so the adapter is tested
// over real HTTP. `misbehave` makes it answer wrongly on purpose.
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { hexToBigInt, type Hex, type TransactionSerializable, type TypedDataDefinition } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'

export type PrivyStandInOptions = {
  appId: string
  appSecret: string
  walletId: string
  privateKey?: Hex
  misbehave?: 'wrong-key' | 'alter-transaction' | 'wrong-typed-data-key' | 'echo-secret-in-error'
}

export type RecordedRequest = { method: string; path: string; appIdHeader: string | undefined; authOk: boolean; body: unknown }

export async function startPrivyStandIn(options: PrivyStandInOptions) {
  const account = privateKeyToAccount(options.privateKey ?? generatePrivateKey())
  const other = privateKeyToAccount(generatePrivateKey())
  const requests: RecordedRequest[] = []
  const expectedAuth = `Basic ${Buffer.from(`${options.appId}:${options.appSecret}`).toString('base64')}`

  const server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    try {
      const body = req.method === 'POST' ? JSON.parse(await readBody(req)) : undefined
      const path = new URL(req.url ?? '/', 'http://x').pathname
      const authOk = req.headers.authorization === expectedAuth && req.headers['privy-app-id'] === options.appId
      requests.push({ method: req.method ?? '', path, appIdHeader: req.headers['privy-app-id'] as string | undefined, authOk, body })
      if (!authOk) {
        const detail =
          options.misbehave === 'echo-secret-in-error' ? ` (got ${req.headers.authorization}, secret ${options.appSecret})` : ''
        return send(401, { error: `Invalid app ID or app secret${detail}` })
      }
      const match = /^\/v1\/wallets\/([^/]+)(\/rpc)?$/.exec(path)
      if (!match || decodeURIComponent(match[1]!) !== options.walletId) return send(404, { error: 'Wallet not found' })
      if (!match[2] && req.method === 'GET') {
        return send(200, {
          id: options.walletId,
          address: account.address,
          chain_type: 'ethereum',
          policy_ids: [],
          additional_signers: [],
          owner_id: null,
          created_at: 1741834854578,
          exported_at: null,
          imported_at: null,
        })
      }
      if (match[2] && req.method === 'POST') {
        const { method, params } = body as { method: string; params: Record<string, unknown> }
        if (method === 'eth_signTransaction') {
          const t = fromPrivyTransaction(params.transaction as Record<string, unknown>)
          const signerAccount = options.misbehave === 'wrong-key' ? other : account
          const signed = await signerAccount.signTransaction(options.misbehave === 'alter-transaction' ? { ...t, to: other.address } : t)
          return send(200, { method, data: { signed_transaction: signed, encoding: 'rlp' } })
        }
        if (method === 'eth_signTypedData_v4') {
          const td = params.typed_data as {
            domain: Record<string, unknown>
            types: Record<string, { name: string; type: string }[]>
            message: Record<string, unknown>
            primary_type: string
          }
          const signerAccount = options.misbehave === 'wrong-typed-data-key' ? other : account
          const signature = await signerAccount.signTypedData(reviveTypedData(td))
          return send(200, { method, data: { signature, encoding: 'hex' } })
        }
        return send(400, { error: `Unsupported method ${method}` })
      }
      return send(405, { error: 'Method not allowed' })
    } catch (err) {
      return send(400, { error: `Invalid request: ${(err as Error).message}` })
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    address: account.address,
    requests,
    close: () => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = ''
    req.setEncoding('utf8')
    req.on('data', (chunk) => (data += chunk))
    req.on('end', () => resolve(data))
    req.on('error', reject)
  })
}

const quantity = (v: unknown) => (v === undefined ? undefined : typeof v === 'number' ? BigInt(v) : hexToBigInt(v as Hex))

function fromPrivyTransaction(t: Record<string, unknown>): TransactionSerializable {
  const type = ({ 0: 'legacy', 1: 'eip2930', 2: 'eip1559' } as const)[t.type as 0 | 1 | 2]
  if (!type) throw new Error(`unsupported type ${String(t.type)}`)
  const out = {
    type,
    to: t.to as Hex,
    data: (t.data as Hex) ?? '0x',
    value: quantity(t.value) ?? 0n,
    chainId: Number(t.chain_id),
    nonce: t.nonce === undefined ? undefined : Number(t.nonce),
    gas: quantity(t.gas_limit),
    gasPrice: quantity(t.gas_price),
    maxFeePerGas: quantity(t.max_fee_per_gas),
    maxPriorityFeePerGas: quantity(t.max_priority_fee_per_gas),
  }
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) as TransactionSerializable
}

/** JSON typed data -> viem's: uint/int fields back to bigint, following the declared types. */
function reviveTypedData(td: {
  domain: Record<string, unknown>
  types: Record<string, { name: string; type: string }[]>
  message: Record<string, unknown>
  primary_type: string
}): TypedDataDefinition {
  const { EIP712Domain: _omit, ...types } = td.types
  const revive = (type: string, value: unknown): unknown => {
    if (type.endsWith('[]')) return (value as unknown[]).map((v) => revive(type.slice(0, -2), v))
    if (/^u?int\d*$/.test(type)) return BigInt(value as string)
    const struct = types[type]
    if (struct) return Object.fromEntries(struct.map((f) => [f.name, revive(f.type, (value as Record<string, unknown>)[f.name])]))
    return value
  }
  const domain = { ...td.domain, ...(td.domain.chainId === undefined ? {} : { chainId: Number(td.domain.chainId) }) }
  return { domain, types, primaryType: td.primary_type, message: revive(td.primary_type, td.message) } as unknown as TypedDataDefinition
}
