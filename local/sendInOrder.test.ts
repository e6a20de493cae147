import { createPublicClient, createWalletClient, custom, http, parseTransaction, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pollTransactionReceipt } from '../adapters/chain/receipts.ts'
import { startAnvil, type Anvil } from './anvil.ts'
import { devnetAccount, localChain } from './devnet.ts'
import { sendInNonceOrder } from './sendInOrder.ts'

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
})
