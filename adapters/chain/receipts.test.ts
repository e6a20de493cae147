// pollTransactionReceipt against a node that shows a mined block before its receipt is readable and
// then mines nothing more (anvil automine, foundry-rs/foundry#10944): viem's block-driven waiter never
// asks again and times out; polling the receipt gets it.
import { createPublicClient, custom, WaitForTransactionReceiptTimeoutError, type Hash } from 'viem'
import { describe, expect, it } from 'vitest'
import { pollTransactionReceipt, withReceiptPolling } from './receipts.ts'

const hash: Hash = `0x${'ab'.repeat(32)}`
const from = `0x${'11'.repeat(20)}`
const to = `0x${'22'.repeat(20)}`
const blockHash = `0x${'cd'.repeat(32)}`

const rpcReceipt = {
  transactionHash: hash,
  transactionIndex: '0x0',
  blockHash,
  blockNumber: '0x5',
  from,
  to,
  cumulativeGasUsed: '0x5208',
  gasUsed: '0x5208',
  effectiveGasPrice: '0x1',
  contractAddress: null,
  logs: [],
  logsBloom: `0x${'00'.repeat(256)}`,
  status: '0x1',
  type: '0x2',
}
const rpcTransaction = {
  hash,
  nonce: '0x0',
  blockHash,
  blockNumber: '0x5',
  transactionIndex: '0x0',
  from,
  to,
  value: '0x0',
  gas: '0x5208',
  maxFeePerGas: '0x1',
  maxPriorityFeePerGas: '0x1',
  input: '0x',
  type: '0x2',
  chainId: '0x7a69',
  v: '0x0',
  r: '0x1',
  s: '0x1',
  yParity: '0x0',
  accessList: [],
}

/** Block 5 forever; the receipt is null for the first `lateBy` lookups. */
function lateReceiptNode(lateBy: number) {
  const calls = { receipt: 0 }
  const transport = custom({
    async request({ method }: { method: string }) {
      if (method === 'eth_blockNumber') return '0x5'
      if (method === 'eth_chainId') return '0x7a69'
      if (method === 'eth_getTransactionByHash') return rpcTransaction
      if (method === 'eth_getTransactionReceipt') return calls.receipt++ < lateBy ? null : rpcReceipt
      throw new Error(`unexpected ${method}`)
    },
  })
  return { client: createPublicClient({ transport, pollingInterval: 5 }), calls }
}

describe('pollTransactionReceipt', () => {
  it("gets a receipt that becomes readable after its block, where viem's waiter waits for a next block that never comes", async () => {
    const viemWaits = lateReceiptNode(2)
    await expect(viemWaits.client.waitForTransactionReceipt({ hash, timeout: 300 })).rejects.toBeInstanceOf(
      WaitForTransactionReceiptTimeoutError,
    )
    expect(viemWaits.calls.receipt).toBe(2) // it asked twice, then only watched the block number

    const polls = lateReceiptNode(2)
    const receipt = await pollTransactionReceipt(polls.client, { hash, timeout: 60_000 })
    expect(receipt).toMatchObject({ transactionHash: hash, status: 'success', blockNumber: 5n, gasUsed: 21_000n })
    expect(polls.calls.receipt).toBe(3)
  })

  it('answers client.waitForTransactionReceipt once the client is wrapped', async () => {
    const { client } = lateReceiptNode(3)
    const receipt = await withReceiptPolling(client).waitForTransactionReceipt({ hash })
    expect(receipt.status).toBe('success')
  })

  it("gives up at the wrapper's default timeout when the caller names none, and at the caller's when it names one", async () => {
    const { client } = lateReceiptNode(Number.POSITIVE_INFINITY)
    const wrapped = withReceiptPolling(client, { timeout: 30 })
    await expect(wrapped.waitForTransactionReceipt({ hash })).rejects.toBeInstanceOf(WaitForTransactionReceiptTimeoutError)
    const late = lateReceiptNode(3)
    const receipt = await withReceiptPolling(late.client, { timeout: 1 }).waitForTransactionReceipt({ hash, timeout: 60_000 })
    expect(receipt.status).toBe('success')
  })

  it("gives up with viem's timeout error naming the hash", async () => {
    const { client } = lateReceiptNode(Number.POSITIVE_INFINITY)
    const error = await pollTransactionReceipt(client, { hash, timeout: 30 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(WaitForTransactionReceiptTimeoutError)
    expect(String(error)).toContain(hash)
  })

  it('passes an RPC failure to the caller instead of retrying it', async () => {
    const client = createPublicClient({
      transport: custom({ request: async () => Promise.reject(new Error('upstream is down')) }, { retryCount: 0 }),
      pollingInterval: 5,
    })
    await expect(pollTransactionReceipt(client, { hash, timeout: 60_000 })).rejects.toThrow(/upstream is down/)
  })
})
