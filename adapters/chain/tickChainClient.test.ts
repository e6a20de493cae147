// The tick's chain client against anvil: each action it binds answers as the public client's does, it
// binds nothing else, a full public client still fits its type, and bundled it is a fraction of the
// public client (the point of it).
import { bundledBytes, VIEM_FLOOR } from '../../bench/bundle.ts'
import { EstimateGasExecutionError, erc20Abi, http, parseEther, toFunctionSelector, type Hex, type PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest'
import { startAnvil, type Anvil } from '../../local/anvil.ts'
import { devnetClients } from '../../local/devnet.ts'
import { decodeChainError } from './decodeChainError.ts'
import { withReceiptPolling } from './receipts.ts'
import { createTickChainClient, type TickChainAction, type TickChainClient } from './tickChainClient.ts'

let anvil: Anvil
beforeAll(async () => {
  anvil = await startAnvil()
})
afterAll(async () => anvil?.stop())

const ACTIONS: readonly TickChainAction[] = [
  'estimateFeesPerGas',
  'estimateGas',
  'getBalance',
  'getBlock',
  'getTransaction',
  'getTransactionCount',
  'getTransactionReceipt',
  'readContract',
  'sendRawTransaction',
]

describe('createTickChainClient', () => {
  it('binds exactly the tick actions, and a full public client fits its type', () => {
    const client = createTickChainClient({ transport: http('http://127.0.0.1:1') })
    for (const action of ACTIONS) expect(typeof client[action], action).toBe('function')
    for (const absent of ['call', 'getLogs', 'simulateContract', 'waitForTransactionReceipt', 'getEnsAddress', 'watchBlocks'])
      expect(absent in client, absent).toBe(false)
    expectTypeOf<PublicClient>().toExtend<TickChainClient>()
  })

  it('reads, estimates, sends and finds the receipt on anvil as the public client does', async () => {
    const { publicClient, deployer } = devnetClients(anvil.rpcUrl)
    const full = withReceiptPolling(publicClient)
    const client = createTickChainClient({ transport: http(anvil.rpcUrl) })
    const key = privateKeyToAccount(`0x${'43'.repeat(32)}` as Hex)
    await full.waitForTransactionReceipt({ hash: await deployer.sendTransaction({ to: key.address, value: parseEther('1') }) })

    expect(await client.getBalance({ address: key.address })).toBe(parseEther('1'))
    expect((await client.getBlock({ blockTag: 'latest' })).number).toBe(await full.getBlockNumber())
    const gas = await client.estimateGas({ account: key.address, to: deployer.account.address, value: 1n })
    expect(gas).toBe(21_000n)
    const fees = await client.estimateFeesPerGas()
    const nonce = await client.getTransactionCount({ address: key.address, blockTag: 'pending' })
    expect(nonce).toBe(0)
    const raw = await key.signTransaction({ chainId: anvil.chainId, to: deployer.account.address, value: 1n, gas, nonce, ...fees })
    const hash = await client.sendRawTransaction({ serializedTransaction: raw })
    const receipt = await full.waitForTransactionReceipt({ hash })
    expect(await client.getTransactionReceipt({ hash })).toEqual(receipt)
    expect((await client.getTransaction({ hash })).value).toBe(1n)
    // No ERC-20 lives at the key: the read fails through both clients, the tick's naming the read.
    const read = { address: key.address, abi: erc20Abi, functionName: 'decimals' } as const
    await expect(client.readContract(read)).rejects.toThrow(`decimals at ${key.address} failed: no data`)
    await expect(full.readContract(read)).rejects.toThrow(/returned no data/)
    // A read at a past block sees that block's state, as the public client's does.
    const before = receipt.blockNumber - 1n
    expect(await client.getBalance({ address: key.address, blockNumber: before })).toBe(parseEther('1'))
    expect(await client.getBalance({ address: key.address })).toBe(await full.getBalance({ address: key.address }))
  })

  it("fails an estimate that reverts as the public client does: viem's EstimateGasExecutionError, the same decoded revert", async () => {
    const { publicClient, deployer } = devnetClients(anvil.rpcUrl)
    // Code that reverts with InvalidTermsLength(5): mstore(0, selector << 224); mstore(4, 5); revert(0, 36).
    const reverter = '0x00000000000000000000000000000000000b0a4d'
    const selector = toFunctionSelector('InvalidTermsLength(uint256)').slice(2)
    await publicClient.request({
      method: 'anvil_setCode' as never,
      params: [reverter, `0x63${selector}60e01b600052600560045260246000fd`] as never,
    })
    const call = { account: deployer.account.address, to: reverter, data: '0x' } as const
    const tick = await createTickChainClient({ transport: http(anvil.rpcUrl) })
      .estimateGas(call)
      .catch((e: unknown) => e)
    const full = await publicClient.estimateGas(call).catch((e: unknown) => e)
    expect(tick).toBeInstanceOf(EstimateGasExecutionError)
    expect(full).toBeInstanceOf(EstimateGasExecutionError)
    expect(decodeChainError(tick)).toEqual({ name: 'InvalidTermsLength', args: [5n], data: expect.any(String) })
    expect(decodeChainError(tick)).toEqual(decodeChainError(full))
  })

  it('bundles to under two thirds of the public client', async () => {
    const lean = await bundledBytes(
      `import { http } from 'viem'\nimport { createTickChainClient } from './adapters/chain/tickChainClient.ts'\nexport const c = createTickChainClient({ transport: http() })\n`,
    )
    const full = await bundledBytes(VIEM_FLOOR)
    expect(lean / full).toBeLessThan(0.65)
  })
})
