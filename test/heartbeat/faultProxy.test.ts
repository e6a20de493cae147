// The JSON-RPC fault proxy the fault suite and the bench rely on (test/support/rpcFaultProxy.ts): it
// counts, it is reproducible for a seed, it hits the configured rates, and each fault means what it
// says: a dropped send never reaches the node, a lost answer's send does.
import { createPublicClient, createWalletClient, http, parseEther } from 'viem'
import { mnemonicToAccount, privateKeyToAccount, generatePrivateKey } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startAnvil, type Anvil } from '../../local/anvil.ts'
import { localChain } from '../../local/devnet.ts'
import { startRpcFaultProxy, type FaultRates } from '../support/rpcFaultProxy.ts'

let anvil: Anvil
const funded = mnemonicToAccount('test test test test test test test test test test test junk', { addressIndex: 3 })

beforeAll(async () => {
  anvil = await startAnvil()
})
afterAll(async () => anvil?.stop())

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

async function kindsFor(seed: number, faults: FaultRates, requests: number) {
  const proxy = await startRpcFaultProxy({ target: anvil.rpcUrl, seed, faults, delayMs: [1, 2] })
  const outcomes: string[] = []
  for (let i = 0; i < requests; i++) {
    const res = await post(proxy.url, { jsonrpc: '2.0', id: i, method: 'eth_chainId', params: [] }).then(
      async (r) => (r.status === 200 ? (((await r.json()) as { error?: unknown }).error ? 'rpc-error' : 'ok') : `http-${r.status}`),
      () => 'network-error',
    )
    outcomes.push(res)
  }
  const stats = proxy.stats
  await proxy.stop()
  return { outcomes, stats }
}

describe('rpcFaultProxy', () => {
  it('counts every JSON-RPC call by method, batches included, and forwards answers untouched', async () => {
    const proxy = await startRpcFaultProxy({ target: anvil.rpcUrl })
    const client = createPublicClient({ chain: localChain(proxy.url, anvil.chainId), transport: http(proxy.url) })
    expect(await client.getChainId()).toBe(anvil.chainId)
    await client.getBlockNumber()
    const batch = await post(proxy.url, [
      { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'eth_blockNumber', params: [] },
    ])
    expect(((await batch.json()) as unknown[]).length).toBe(2)
    expect(proxy.stats).toMatchObject({ requests: 3, calls: 4, faulted: 0, byMethod: { eth_chainId: 2, eth_blockNumber: 2 } })
    await proxy.stop()
  })

  it('hits the configured rates and is reproducible for a seed (sequential requests)', async () => {
    const faults = { drop: 0.1, delay: 0.1, fail: 0.1 }
    const a = await kindsFor(42, faults, 600)
    const b = await kindsFor(42, faults, 600)
    expect(a.outcomes).toEqual(b.outcomes)
    expect(a.stats.faulted / a.stats.requests).toBeGreaterThan(0.25)
    expect(a.stats.faulted / a.stats.requests).toBeLessThan(0.35)
    expect(a.outcomes.filter((o) => o === 'network-error').length).toBe(a.stats.byKind.drop)
    expect(a.outcomes.filter((o) => o === 'http-500' || o === 'rpc-error').length).toBe(a.stats.byKind.fail)
    const c = await kindsFor(43, faults, 600)
    expect(c.outcomes).not.toEqual(a.outcomes)
  })

  it('forces scripted faults on the first requests of a method, then follows the rates', async () => {
    const proxy = await startRpcFaultProxy({ target: anvil.rpcUrl, scripted: { eth_chainId: ['fail', 'drop'] } })
    const outcomes: string[] = []
    for (let i = 0; i < 3; i++) {
      outcomes.push(
        await post(proxy.url, { jsonrpc: '2.0', id: i, method: 'eth_chainId', params: [] }).then(
          (r) => (r.ok ? 'ok' : 'failed'),
          () => 'dropped',
        ),
      )
    }
    expect(outcomes.slice(1)).toEqual(['dropped', 'ok'])
    expect(proxy.stats.byKind).toMatchObject({ fail: 1, drop: 1, ok: 1 })
    await proxy.stop()
  })

  it('refuses rates that are not probabilities', async () => {
    await expect(startRpcFaultProxy({ target: anvil.rpcUrl, faults: { drop: 0.7, fail: 0.5 } })).rejects.toThrow('sum to at most 1')
    await expect(startRpcFaultProxy({ target: anvil.rpcUrl, faults: { drop: -1 } })).rejects.toThrow('probability')
  })

  it('a dropped send never reaches the node; a send whose answer is lost lands while the client sees an error', async () => {
    const direct = createPublicClient({ chain: localChain(anvil.rpcUrl, anvil.chainId), transport: http(anvil.rpcUrl) })
    const proxy = await startRpcFaultProxy({
      target: anvil.rpcUrl,
      exempt: [
        'eth_chainId',
        'eth_getTransactionCount',
        'eth_estimateGas',
        'eth_maxPriorityFeePerGas',
        'eth_getBlockByNumber',
        'eth_gasPrice',
      ],
    })
    const wallet = createWalletClient({
      account: funded,
      chain: localChain(proxy.url, anvil.chainId),
      transport: http(proxy.url, { retryCount: 0 }),
    })
    const to = privateKeyToAccount(generatePrivateKey()).address
    const nonce0 = await direct.getTransactionCount({ address: funded.address })

    proxy.setFaults({}, { eth_sendRawTransaction: { drop: 1 } })
    await expect(wallet.sendTransaction({ to, value: parseEther('1') })).rejects.toThrow()
    expect(await direct.getTransactionCount({ address: funded.address })).toBe(nonce0)

    proxy.setFaults({}, { eth_sendRawTransaction: { loseResponse: 1 } })
    await expect(wallet.sendTransaction({ to, value: parseEther('1') })).rejects.toThrow()
    // Anvil answers the send once the transaction is in its pool and mines it just after: the lost answer
    // does not mean a lost transaction, it lands in the next block.
    await vi.waitFor(async () => expect(await direct.getTransactionCount({ address: funded.address })).toBe(nonce0 + 1), {
      timeout: 30_000,
      interval: 50,
    })
    expect(await direct.getBalance({ address: to })).toBe(parseEther('1'))
    expect(proxy.stats.faultsByMethod).toMatchObject({ 'eth_sendRawTransaction:drop': 1, 'eth_sendRawTransaction:loseResponse': 1 })
    await proxy.stop()
  })
})
