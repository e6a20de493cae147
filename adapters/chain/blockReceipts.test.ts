// The block watcher against a scripted node: transactions waiting in one process share one read of each
// block's receipts; a receipt the block reads miss (a block before the watcher started, or anvil's block
// shown before its receipts) is found by the waiter's own lookup; timeouts and RPC failures reach the
// caller.
import { createPublicClient, custom, numberToHex, WaitForTransactionReceiptTimeoutError, type Hash } from 'viem'
import { describe, expect, it } from 'vitest'
import { BlockReceiptWatcher } from './blockReceipts.ts'

const hashOf = (n: number): Hash => `0x${n.toString(16).padStart(64, '0')}`

function rpcReceipt(hash: Hash, block: number) {
  return {
    transactionHash: hash,
    transactionIndex: '0x0',
    blockHash: `0x${block.toString(16).padStart(64, 'b')}`,
    blockNumber: numberToHex(block),
    from: `0x${'11'.repeat(20)}`,
    to: `0x${'22'.repeat(20)}`,
    cumulativeGasUsed: '0x5208',
    gasUsed: '0x5208',
    effectiveGasPrice: '0x1',
    contractAddress: null,
    logs: [],
    logsBloom: `0x${'00'.repeat(256)}`,
    status: '0x1',
    type: '0x2',
  }
}

/** A chain whose blocks hold the given transactions; `hidden` transactions' receipts are missing from block reads. */
function scriptedNode(options: { hidden?: Set<Hash> } = {}) {
  const blocks: Hash[][] = [[]]
  const calls: Record<string, number> = {}
  /** Reads of each mined block's receipts, by block number. */
  const reads: number[] = []
  const transport = custom({
    async request({ method, params }: { method: string; params?: unknown[] }) {
      calls[method] = (calls[method] ?? 0) + 1
      if (method === 'eth_chainId') return '0x7a69'
      if (method === 'eth_blockNumber') return numberToHex(blocks.length - 1)
      if (method === 'eth_getBlockReceipts') {
        const n = Number(params![0] as string)
        if (n >= blocks.length) return null
        reads[n] = (reads[n] ?? 0) + 1
        return blocks[n]!.filter((h) => !options.hidden?.has(h)).map((h) => rpcReceipt(h, n))
      }
      if (method === 'eth_getTransactionReceipt') {
        const n = blocks.findIndex((b) => b.includes(params![0] as Hash))
        return n < 0 ? null : rpcReceipt(params![0] as Hash, n)
      }
      throw new Error(`unexpected ${method}`)
    },
  })
  const client = createPublicClient({ transport, pollingInterval: 5 })
  return { client, calls, reads, mine: (...hashes: Hash[]) => blocks.push(hashes) }
}

describe('BlockReceiptWatcher', () => {
  it('answers every transaction of a block with one read of its receipts', async () => {
    const node = scriptedNode()
    const watcher = new BlockReceiptWatcher(node.client)
    const hashes = Array.from({ length: 20 }, (_, i) => hashOf(i + 1))
    node.mine(hashOf(100)) // an older block: read once as the head when the watcher starts
    const waiting = hashes.map((hash) => watcher.wait({ hash, timeout: 60_000 }))
    await new Promise((r) => setTimeout(r, 30))
    node.mine(...hashes.slice(0, 12))
    node.mine(...hashes.slice(12))
    const receipts = await Promise.all(waiting)
    expect(receipts.map((r) => r.transactionHash)).toEqual(hashes)
    expect(receipts.map((r) => r.blockNumber)).toEqual([...hashes.map((_, i) => (i < 12 ? 2n : 3n))])
    // Each mined block's receipts are read once for all twenty (a block not mined yet reads as null).
    expect(node.reads).toEqual([undefined, 1, 1, 1])
    expect(node.calls.eth_blockNumber).toBe(1)
  })

  it('answers a transaction waited for just after its block was read, from the receipts it already read', async () => {
    const node = scriptedNode()
    const watcher = new BlockReceiptWatcher(node.client)
    const first = watcher.wait({ hash: hashOf(1), timeout: 60_000 })
    await new Promise((r) => setTimeout(r, 20))
    node.mine(hashOf(1), hashOf(2))
    await first
    const lookups = node.calls.eth_getTransactionReceipt ?? 0
    const reads = node.calls.eth_getBlockReceipts
    expect((await watcher.wait({ hash: hashOf(2) })).blockNumber).toBe(1n)
    expect(node.calls.eth_getTransactionReceipt ?? 0).toBe(lookups)
    expect(node.calls.eth_getBlockReceipts).toBe(reads)
  })

  it('finds a receipt the block reads do not show (anvil reports the block first) by its own lookup', async () => {
    const hidden = hashOf(7)
    const node = scriptedNode({ hidden: new Set([hidden]) })
    const watcher = new BlockReceiptWatcher(node.client)
    const other = watcher.wait({ hash: hashOf(6), timeout: 60_000 })
    await new Promise((r) => setTimeout(r, 20))
    const late = watcher.wait({ hash: hidden, timeout: 60_000 })
    node.mine(hashOf(6), hidden)
    expect((await other).blockNumber).toBe(1n)
    expect((await late).transactionHash).toBe(hidden)
  })

  it("gives up with viem's timeout error naming the hash", async () => {
    const node = scriptedNode()
    const error = await new BlockReceiptWatcher(node.client).wait({ hash: hashOf(9), timeout: 30 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(WaitForTransactionReceiptTimeoutError)
    expect(String(error)).toContain(hashOf(9))
  })

  it('passes an RPC failure to every waiter instead of retrying it', async () => {
    const client = createPublicClient({
      transport: custom({ request: async () => Promise.reject(new Error('upstream is down')) }, { retryCount: 0 }),
      pollingInterval: 5,
    })
    const watcher = new BlockReceiptWatcher(client)
    await expect(
      Promise.all([watcher.wait({ hash: hashOf(1), timeout: 60_000 }), watcher.wait({ hash: hashOf(2), timeout: 60_000 })]),
    ).rejects.toThrow(/upstream is down/)
  })
})
