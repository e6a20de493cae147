import { createPublicClient, createWalletClient, custom, http, parseTransaction, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pollTransactionReceipt } from '../adapters/chain/receipts.ts'
import { startAnvil, type Anvil } from './anvil.ts'
import { devnetAccount, localChain } from './devnet.ts'
import { LocalStackError } from './errors.ts'
import { batchReceipts, sendInNonceOrder } from './sendInOrder.ts'

let anvil: Anvil
beforeAll(async () => {
  anvil = await startAnvil()
})
afterAll(async () => {
  await anvil?.stop()
})

describe('sendInNonceOrder', () => {
  it('submits a batch in nonce order, so automine never queues a transaction behind a gap, and every one is mined', async () => {
    const chain = localChain(anvil.rpcUrl, anvil.chainId)
    const node = http(anvil.rpcUrl)({ chain })
    const submitted: number[] = []
    // Records the nonce of each raw transaction as it reaches the node.
    const transport = custom({
      async request({ method, params }) {
        if (method === 'eth_sendRawTransaction') submitted.push(parseTransaction((params as Hex[])[0]!).nonce!)
        return node.request({ method, params } as never)
      },
    })
    const wallet = createWalletClient({ account: devnetAccount(7), chain, transport })
    const to = devnetAccount(8).address
    const hashes = await sendInNonceOrder(
      wallet,
      Array.from({ length: 24 }, (_, i) => ({ to, value: BigInt(i + 1) })),
    )
    expect(submitted).toEqual(Array.from({ length: 24 }, (_, i) => submitted[0]! + i))
    const client = createPublicClient({ chain, transport: http(anvil.rpcUrl), pollingInterval: 25 })
    const receipts = await Promise.all(hashes.map((hash) => pollTransactionReceipt(client, { hash, timeout: 30_000 })))
    expect(receipts.every((r) => r.status === 'success')).toBe(true)
    expect(await node.request({ method: 'txpool_status' as never })).toEqual({ pending: '0x0', queued: '0x0' })
  })

  it("says what the node holds when a batch's receipts do not come: the sender's nonces and the pool's", async () => {
    const chain = localChain(anvil.rpcUrl, anvil.chainId)
    const client = createPublicClient({ chain, transport: http(anvil.rpcUrl), pollingInterval: 25 })
    const wallet = createWalletClient({ account: devnetAccount(9), chain, transport: http(anvil.rpcUrl) })
    await client.request({ method: 'evm_setAutomine' as never, params: [false] as never })
    try {
      const hashes = await sendInNonceOrder(wallet, [
        { to: devnetAccount(8).address, value: 1n },
        { to: devnetAccount(8).address, value: 2n },
      ])
      const waited = await batchReceipts(client, wallet.account.address, hashes, { timeout: 300 }).catch((e: unknown) => e)
      expect(waited).toBeInstanceOf(LocalStackError)
      expect((waited as Error).message).toMatch(
        new RegExp(
          `^a local batch of 2 transactions was not mined in time: block \\d+; ${wallet.account.address} nonce 0 mined, 2 pending; pool pending \\[0,1\\], queued \\[none\\]$`,
        ),
      )
    } finally {
      await client.request({ method: 'evm_setAutomine' as never, params: [true] as never })
      await client.request({ method: 'evm_mine' as never })
    }
  })
})
