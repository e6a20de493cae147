// The deployless multicall against anvil held to mainnet's code-size rules (EIP-170 and EIP-3860), as
// Base and every public chain hold them: a batch larger than any creation may carry or return comes back
// whole in one request where viem's own deployless multicall (a creation) is refused, every result is
// the read's own answer at the block asked for, a failed read is named, and a batch past the calldata
// limit splits into requests.
import { erc20Abi, http, parseEther, toFunctionSelector, zeroAddress, type Address, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TestTokenAbi, TestTokenBytecode } from '../../contracts/artifacts/index.ts'
import { startAnvil, type Anvil } from '../../local/anvil.ts'
import { devnetClients, type DevnetClients } from '../../local/devnet.ts'
import { decodeChainError } from './decodeChainError.ts'
import { ChainReadError, DEPLOYLESS_MULTICALL_ADDRESS, deploylessMulticall, etherBalance } from './deploylessMulticall.ts'
import { createTickChainClient } from './tickChainClient.ts'

let anvil: Anvil
let devnet: DevnetClients
let token: Address
const holders = Array.from({ length: 300 }, (_, i) => `0x${(0x1000 + i).toString(16).padStart(40, '0')}` as Address)

beforeAll(async () => {
  anvil = await startAnvil()
  devnet = devnetClients(anvil.rpcUrl)
  const { publicClient, deployer } = devnet
  const deployed = await publicClient.waitForTransactionReceipt({
    hash: await deployer.deployContract({ abi: TestTokenAbi, bytecode: TestTokenBytecode, args: ['Test', 'TT', 6] }),
  })
  token = deployed.contractAddress!
  for (const [i, holder] of holders.slice(0, 3).entries()) {
    await publicClient.waitForTransactionReceipt({
      hash: await deployer.writeContract({ address: token, abi: TestTokenAbi, functionName: 'mint', args: [holder, BigInt(i + 1)] }),
    })
    await publicClient.waitForTransactionReceipt({
      hash: await deployer.sendTransaction({ to: holder, value: parseEther('1') * BigInt(i + 1) }),
    })
  }
})
afterAll(async () => anvil?.stop())

/** A client whose every request is counted, as a provider would bill it. */
function counted() {
  const methods: string[] = []
  const client = createTickChainClient({
    transport: http(anvil.rpcUrl, {
      onFetchRequest: async (r) => {
        for (const body of [await r.clone().json()].flat() as { method: string }[]) methods.push(body.method)
      },
    }),
  })
  return { client, methods }
}

describe('deploylessMulticall', () => {
  it('reads more than a creation may carry or return in one request, each answer as a single read gives it', async () => {
    const contracts = holders.flatMap((h) => [
      { address: token, abi: erc20Abi, functionName: 'balanceOf', args: [h] } as const,
      etherBalance(h),
    ])
    // viem's deployless multicall returns its results as the created contract's code: past 24,576 bytes
    // (180 token balances are about 29 KB of results) the node refuses it, though its creation fits.
    const tokens = holders.slice(0, 180).map((h) => ({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [h] }) as const)
    await expect(
      devnet.publicClient.multicall({ contracts: tokens, deployless: true, allowFailure: false, batchSize: 40_000 }),
    ).rejects.toThrow(/CreateContractSizeLimit/)
    expect(await deploylessMulticall(devnet.publicClient, { contracts: tokens, allowFailure: false })).toHaveLength(180)

    const { client, methods } = counted()
    const results = await deploylessMulticall(client, { contracts, allowFailure: false })
    // 300 balanceOf reads (192 bytes encoded) and 300 balance reads (128): 96,000 bytes, twice a creation's limit.
    expect(methods).toEqual(['eth_call'])
    expect(results).toHaveLength(600)
    for (const [i, h] of holders.entries()) {
      expect(results[2 * i], `${h} tokens`).toBe(
        await client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [h] }),
      )
      expect(results[2 * i + 1], `${h} ether`).toBe(await client.getBalance({ address: h }))
    }
    expect(results.slice(0, 6)).toEqual([1n, parseEther('1'), 2n, parseEther('2'), 3n, parseEther('3')])
  })

  it('reads every call at the block it is given', async () => {
    const { publicClient, deployer } = devnet
    const before = await publicClient.getBlockNumber()
    await publicClient.waitForTransactionReceipt({
      hash: await deployer.writeContract({ address: token, abi: TestTokenAbi, functionName: 'mint', args: [holders[0]!, 10n] }),
    })
    const read = { address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holders[0]!] } as const
    const { client } = counted()
    expect(await deploylessMulticall(client, { contracts: [read], allowFailure: false, blockNumber: before })).toEqual([1n])
    expect(await deploylessMulticall(client, { contracts: [read], allowFailure: false })).toEqual([11n])
  })

  it('reports each failed read, and with allowFailure false throws the first, named', async () => {
    const { publicClient } = devnet
    // Code that reverts with InvalidTermsLength(5): mstore(0, selector << 224); mstore(4, 5); revert(0, 36).
    const reverter = '0x00000000000000000000000000000000000b0a4e'
    const selector = toFunctionSelector('InvalidTermsLength(uint256)').slice(2)
    await publicClient.request({
      method: 'anvil_setCode' as never,
      params: [reverter, `0x63${selector}60e01b600052600560045260246000fd`] as never,
    })
    const decimals = (address: Address) => ({ address, abi: erc20Abi, functionName: 'decimals' }) as const
    const { client } = counted()
    const [ok, reverted, empty] = await deploylessMulticall(client, {
      contracts: [decimals(token), decimals(reverter), decimals(zeroAddress)],
    })
    expect(ok).toEqual({ status: 'success', result: 6 })
    expect(reverted.status).toBe('failure')
    expect(decodeChainError(reverted.error)).toEqual({ name: 'InvalidTermsLength', args: [5n], data: expect.any(String) })
    expect(reverted.error?.message).toBe(`decimals at ${reverter} failed: InvalidTermsLength(5)`)
    expect(empty.status).toBe('failure')
    expect(empty.error?.message).toBe(`decimals at ${zeroAddress} failed: no data`)

    const thrown = await deploylessMulticall(client, { contracts: [decimals(token), decimals(reverter)], allowFailure: false }).catch(
      (e) => e,
    )
    expect(thrown).toBeInstanceOf(ChainReadError)
    expect(decodeChainError(thrown)?.name).toBe('InvalidTermsLength')
  })

  it('splits a batch past maxCalldataBytes into requests sent at once, the results in order', async () => {
    const contracts = holders.map((h) => ({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [h] }) as const)
    const { client, methods } = counted()
    // balanceOf(address) is 192 bytes encoded: 10,000 bytes hold 52 reads, so 300 reads take 6 requests.
    const results = await deploylessMulticall(client, { contracts, allowFailure: false, maxCalldataBytes: 10_000 })
    expect(methods).toEqual(Array(6).fill('eth_call'))
    expect(results).toEqual(await deploylessMulticall(client, { contracts, allowFailure: false }))
  })

  it('shadows nothing: no code, key or balance lives where the multicall is set', async () => {
    const { publicClient } = devnet
    expect(await publicClient.getCode({ address: DEPLOYLESS_MULTICALL_ADDRESS })).toBeUndefined()
    expect(await publicClient.getTransactionCount({ address: DEPLOYLESS_MULTICALL_ADDRESS })).toBe(0)
    expect(await publicClient.getBalance({ address: DEPLOYLESS_MULTICALL_ADDRESS })).toBe(0n)
  })

  it('answers an empty batch without a request', async () => {
    const { client, methods } = counted()
    expect(await deploylessMulticall(client, { contracts: [] })).toEqual([])
    expect(methods).toEqual([])
  })

  it('fails the request, not a read, when the node ignores the state override', async () => {
    // A node without state overrides calls an address with no code: the answer is empty, not results.
    const ignoring = createTickChainClient({
      transport: http(anvil.rpcUrl, { fetchFn: async () => Response.json({ jsonrpc: '2.0', id: 0, result: '0x' as Hex }) }),
    })
    const read = { address: token, abi: erc20Abi, functionName: 'decimals' } as const
    await expect(deploylessMulticall(ignoring, { contracts: [read] })).rejects.toThrow(
      'deployless multicall: the node answered no data; the RPC endpoint must take eth_call state overrides',
    )
  })
})
