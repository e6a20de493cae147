// The death protocol's check before a return: whether the key's ETH can pay for the transfer is judged
// at the price the transfer will be signed at. With the heartbeat's fees that is twice the base fee plus
// the tip (sendOnce); the node's own estimate (viem's 1.2x) would let a key that cannot pay try, and fail.
import type { Address } from 'viem'
import { describe, expect, it } from 'vitest'
import type { TickChainClient } from '../../adapters/chain/tickChainClient.ts'
import { unsentDecision } from './returnFunds.ts'

const KEY = '0x00000000000000000000000000000000000000a1' as Address
const OWNER = '0x00000000000000000000000000000000000000b2' as Address
const USDC = '0x00000000000000000000000000000000000000c3' as Address
const GWEI = 1_000_000_000n
const GAS = 50_000n

function client(ethBalance: bigint) {
  const calls: string[] = []
  const answer =
    <T>(name: string, value: T) =>
    async () => {
      calls.push(name)
      return value
    }
  const c = {
    getBalance: answer('getBalance', ethBalance),
    estimateFeesPerGas: answer('estimateFeesPerGas', { maxFeePerGas: 3n * GWEI, maxPriorityFeePerGas: GWEI }),
    estimateGas: answer('estimateGas', GAS),
    readContract: answer('readContract', 5_000_000n),
  }
  return { client: c as unknown as TickChainClient, calls }
}

describe('before a return, the key pays for it at the price it is signed at', () => {
  const token = { kind: 'token', token: USDC } as const
  const fees = { baseFeePerGas: 50n * GWEI, maxPriorityFeePerGas: GWEI }
  // Enough at the node's estimate (3 gwei), far too little at 2 x 50 + 1 gwei: what sendOnce signs with.
  const balance = ((GAS * 13n) / 10n) * 10n * GWEI

  it("with the heartbeat's fees, a token return the key cannot pay is stranded, and the node's estimate is not read", async () => {
    const c = client(balance)
    expect(await unsentDecision(c.client, token, KEY, OWNER, fees)).toMatchObject({ status: 'stranded', amount: '5000000', txHash: null })
    expect(c.calls).not.toContain('estimateFeesPerGas')
  })

  it("without them, the node's estimate prices it, as sendOnce does then", async () => {
    const c = client(balance)
    expect(await unsentDecision(c.client, token, KEY, OWNER, undefined)).toBeNull()
    expect(c.calls).toContain('estimateFeesPerGas')
  })

  it('native dust below its own gas at the signing price stays on the key', async () => {
    const c = client(balance)
    expect(await unsentDecision(c.client, { kind: 'native' }, KEY, OWNER, fees)).toMatchObject({ status: 'empty', amount: '0' })
    expect(await unsentDecision(client(balance).client, { kind: 'native' }, KEY, OWNER, undefined)).toBeNull()
  })
})
