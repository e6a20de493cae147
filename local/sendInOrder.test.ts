import { createPublicClient, createWalletClient, custom, http, parseTransaction, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAnvil, type Anvil } from './anvil.ts'
import { devnetAccount, localChain } from './devnet.ts'
import { LocalStackError } from './errors.ts'
import { sendInOrder } from './sendInOrder.ts'

let anvil: Anvil
beforeAll(async () => {
  anvil = await startAnvil()
})
afterAll(async () => {
  await anvil?.stop()
})

describe('sendInOrder', () => {
  it('submits each transaction of a batch once the one before it is mined, so automine never queues one, and returns every receipt', async () => {
    const chain = localChain(anvil.rpcUrl, anvil.chainId)
    const node = http(anvil.rpcUrl)({ chain })
    const sender = devnetAccount(7)
    // For each raw transaction as it reaches the node: its nonce, and the sender's mined nonce just then.
    const submitted: { nonce: number; mined: number }[] = []
    const transport = custom({
      async request({ method, params }) {
        if (method === 'eth_sendRawTransactionSync') {
          const mined = Number(await node.request({ method: 'eth_getTransactionCount', params: [sender.address, 'latest'] }))
          submitted.push({ nonce: parseTransaction((params as Hex[])[0]!).nonce!, mined })
        }
        return node.request({ method, params } as never)
      },
    })
    const wallet = createWalletClient({ account: sender, chain, transport })
    const to = devnetAccount(8).address
    const receipts = await sendInOrder(
      wallet,
      Array.from({ length: 24 }, (_, i) => ({ to, value: BigInt(i + 1) })),
    )
    expect(submitted).toHaveLength(24)
    expect(submitted.every(({ nonce, mined }, i) => nonce === submitted[0]!.nonce + i && mined === nonce)).toBe(true)
    expect(receipts.map((r) => r.status)).toEqual(Array(24).fill('success'))
    expect(await node.request({ method: 'txpool_status' as never })).toEqual({ pending: '0x0', queued: '0x0' })
  })

  it('returns a reverted transaction as its receipt, for the caller to judge', async () => {
    const chain = localChain(anvil.rpcUrl, anvil.chainId)
    const wallet = createWalletClient({ account: devnetAccount(8), chain, transport: http(anvil.rpcUrl) })
    // Code that reverts at once: PUSH0 PUSH0 REVERT.
    const [receipt] = await sendInOrder(wallet, [{ data: '0x5f5ffd', gas: 100_000n }])
    expect(receipt?.status).toBe('reverted')
  })

  it("says what the node holds when a transaction is not mined: the sender's nonces and the pool's", async () => {
    const chain = localChain(anvil.rpcUrl, anvil.chainId)
    const client = createPublicClient({ chain, transport: http(anvil.rpcUrl) })
    // The node answers a synchronous send when the transaction is mined; this wallet waits 300 ms for that.
    const wallet = createWalletClient({ account: devnetAccount(9), chain, transport: http(anvil.rpcUrl, { timeout: 300 }) })
    await client.request({ method: 'evm_setAutomine' as never, params: [false] as never })
    try {
      const sent = await sendInOrder(wallet, [
        { to: devnetAccount(8).address, value: 1n },
        { to: devnetAccount(8).address, value: 2n },
      ]).catch((e: unknown) => e)
      expect(sent).toBeInstanceOf(LocalStackError)
      expect((sent as Error).message).toMatch(
        new RegExp(
          `^transaction 1 of a local batch of 2 was not mined: block \\d+; ${wallet.account.address} nonce 0 mined, 1 pending; pool pending \\[0\\], queued \\[none\\]$`,
        ),
      )
    } finally {
      await client.request({ method: 'evm_setAutomine' as never, params: [true] as never })
      await client.request({ method: 'evm_mine' as never })
    }
  })
})
