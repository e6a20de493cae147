// sendOnce's requests on the wire against a real anvil: priced from the heartbeat's fees, a transaction
// costs three requests (estimate, nonce, a send that answers with the receipt); a node without
// eth_sendRawTransactionSync gets the plain send and the receipt from the block watcher. And what a sync
// send's answers mean: a revert is a receipt, the same bytes again once mined is a taken nonce.
import {
  createPublicClient,
  createWalletClient,
  custom,
  http,
  MethodNotFoundRpcError,
  parseEther,
  parseTransaction,
  RpcRequestError,
  type Hex,
  type PublicClient,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { InMemoryStore } from '../store/index.ts'
import { startAnvil, type Anvil } from '../../local/anvil.ts'
import { devnetClients, localChain } from '../../local/devnet.ts'
import { broadcastSigned } from './broadcast.ts'
import { sendOnce } from './sendOnce.ts'

let anvil: Anvil
beforeAll(async () => {
  anvil = await startAnvil()
})
afterAll(async () => anvil?.stop())

/** A client whose requests are counted by method; `withoutSyncSend` answers eth_sendRawTransactionSync as an unknown method. */
function countingClient(options: { withoutSyncSend?: boolean } = {}) {
  const calls: Record<string, number> = {}
  const sent: Hex[] = []
  const node = http(anvil.rpcUrl, { batch: false })({ chain: localChain(anvil.rpcUrl, anvil.chainId) })
  const transport = custom(
    {
      async request({ method, params }: { method: string; params?: unknown }) {
        calls[method] = (calls[method] ?? 0) + 1
        if (method.startsWith('eth_sendRawTransaction')) sent.push((params as Hex[])[0]!)
        if (method === 'eth_sendRawTransactionSync' && options.withoutSyncSend)
          throw new MethodNotFoundRpcError(
            new RpcRequestError({ body: {}, url: anvil.rpcUrl, error: { code: -32601, message: 'Method not found' } }),
          )
        return node.request({ method, params } as never)
      },
    },
    { retryCount: 0 },
  )
  const client = createPublicClient({ chain: localChain(anvil.rpcUrl, anvil.chainId), transport, pollingInterval: 25 }) as PublicClient
  return { client, calls, sent }
}

async function fundedKey() {
  const { publicClient, deployer } = devnetClients(anvil.rpcUrl, anvil.chainId)
  const key = privateKeyToAccount(generatePrivateKey())
  await publicClient.waitForTransactionReceipt({ hash: await deployer.sendTransaction({ to: key.address, value: parseEther('1') }) })
  return { key, publicClient }
}

const store = new InMemoryStore()
let slots = 0
function transfer(
  client: PublicClient,
  key: ReturnType<typeof privateKeyToAccount>,
  fees?: { baseFeePerGas: bigint; maxPriorityFeePerGas: bigint },
) {
  return sendOnce({
    store,
    client,
    chainId: anvil.chainId,
    slot: { golemId: 'wire', period: 0n, step: `transfer-${++slots}` },
    owner: 'test',
    now: Date.now(),
    leaseMs: 60_000,
    ...(fees ? { fees } : {}),
    build: async () => ({
      sender: key.address,
      to: `0x${'22'.repeat(20)}`,
      data: '0x',
      sign: (tx) => key.signTransaction(tx),
    }),
  })
}

describe('sendOnce on the wire', () => {
  it("prices from the heartbeat's fees and costs three requests: estimate, nonce, a send that answers with the receipt", async () => {
    const { key, publicClient } = await fundedKey()
    const block = await publicClient.getBlock()
    const fees = { baseFeePerGas: block.baseFeePerGas!, maxPriorityFeePerGas: 7n }
    const { client, calls, sent } = countingClient()
    const outcome = await transfer(client, key, fees)
    expect(outcome).toMatchObject({ status: 'confirmed' })
    expect(calls).toEqual({ eth_estimateGas: 1, eth_getTransactionCount: 1, eth_sendRawTransactionSync: 1 })
    const tx = parseTransaction(sent[0]!)
    expect(tx).toMatchObject({ maxFeePerGas: 2n * fees.baseFeePerGas + 7n, maxPriorityFeePerGas: 7n })
    // The slot and the chain agree.
    const slot = await store.getSlot({ golemId: 'wire', period: 0n, step: `transfer-${slots}` })
    expect(slot).toMatchObject({ status: 'confirmed', txHash: outcome.status === 'confirmed' ? outcome.txHash : null })
  })

  it('reads the fees itself when the heartbeat passed none', async () => {
    const { key } = await fundedKey()
    const { client, calls } = countingClient()
    expect(await transfer(client, key)).toMatchObject({ status: 'confirmed' })
    expect(calls.eth_maxPriorityFeePerGas).toBe(1)
    expect(calls.eth_getBlockByNumber).toBe(1)
  })

  it('on a node without eth_sendRawTransactionSync: the plain send, the receipt from the block watcher, and sync never asked again', async () => {
    const { key } = await fundedKey()
    const { client, calls } = countingClient({ withoutSyncSend: true })
    const fees = { baseFeePerGas: 1_000_000_000n, maxPriorityFeePerGas: 1n }
    expect(await transfer(client, key, fees)).toMatchObject({ status: 'confirmed' })
    expect(await transfer(client, key, fees)).toMatchObject({ status: 'confirmed' })
    expect(calls.eth_sendRawTransactionSync).toBe(1)
    expect(calls.eth_sendRawTransaction).toBe(2)
    expect(calls.eth_getBlockReceipts).toBeGreaterThanOrEqual(2)
  })

  it('reads a sync send: a reverted transaction is a receipt, the same bytes once mined are a taken nonce', async () => {
    const { key, publicClient } = await fundedKey()
    const wallet = createWalletClient({ account: key, chain: publicClient.chain, transport: http(anvil.rpcUrl) })
    const fees = { maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n }
    // A contract creation whose init code reverts (PUSH1 0 PUSH1 0 REVERT).
    const reverting = await wallet.signTransaction({ data: '0x60006000fd', nonce: 0, gas: 100_000n, ...fees, chain: publicClient.chain })
    const first = await broadcastSigned(publicClient, reverting)
    expect(first.kind === 'receipt' && first.receipt.status).toBe('reverted')
    expect(await broadcastSigned(publicClient, reverting)).toEqual({ kind: 'nonceTooLow' })
  })

  it("takes a sync send the node gave up waiting for (EIP-7966's code 4) as pending, and passes any other failure on", async () => {
    const raw = await privateKeyToAccount(generatePrivateKey()).signTransaction({
      to: `0x${'22'.repeat(20)}`,
      nonce: 0,
      gas: 21_000n,
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
      chainId: anvil.chainId,
    })
    const failingWith = (code: number, message: string) =>
      createPublicClient({
        transport: custom(
          {
            async request() {
              throw new RpcRequestError({ body: {}, url: 'node', error: { code, message } })
            },
          },
          { retryCount: 0 },
        ),
      })
    expect(await broadcastSigned(failingWith(4, "The transaction was added to the mempool but wasn't processed within 2s."), raw)).toEqual({
      kind: 'pending',
    })
    await expect(broadcastSigned(failingWith(-32603, 'internal error'), raw)).rejects.toThrow(/internal error/)
  })

  it('re-broadcasts the plain way when asked (a reconcile), whatever the node speaks', async () => {
    const { key, publicClient } = await fundedKey()
    const wallet = createWalletClient({ account: key, chain: publicClient.chain, transport: http(anvil.rpcUrl) })
    const raw = await wallet.signTransaction({
      to: key.address,
      nonce: 0,
      gas: 21_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1n,
      chain: publicClient.chain,
    })
    const { client, calls } = countingClient()
    expect(await broadcastSigned(client, raw, { sync: false })).toEqual({ kind: 'pending' })
    expect(calls).toEqual({ eth_sendRawTransaction: 1 })
  })
})
