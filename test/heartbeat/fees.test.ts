// The heartbeat reads fee data once and hands it to its ticks in the payload: a busy tick then prices
// its redemption from it, with no fee or block read of its own, and gets its receipt with the send.
// Counted on the wire for both the heartbeat and the tick.
import { createPublicClient, http, parseTransaction, type Hex, type PublicClient } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import type { TickInvoker, TickRequest } from '../../app/heartbeat/handOver.ts'
import { decodeTickPayload, encodeTickPayload } from '../../app/heartbeat/tickPayload.ts'
import { runTick } from '../../app/tick/runTick.ts'
import type { TickResult } from '../../app/tick/types.ts'
import { DAY, passStaggerOffsets, startHeartbeatEnv, type HeartbeatEnv } from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

type Counts = Record<string, number>

/** A client on the devnet with every request counted by method, and the raw transactions it sent. */
function countingClient(env: HeartbeatEnv, counts: Counts, sent: Hex[]): PublicClient {
  const node = http(env.devnet.rpcUrl, { batch: false })
  return createPublicClient({
    chain: env.devnet.chain,
    pollingInterval: 25,
    transport: (config) => {
      const t = node(config)
      const request = (async (args: { method: string; params?: unknown }) => {
        counts[args.method] = (counts[args.method] ?? 0) + 1
        if (args.method.startsWith('eth_sendRawTransaction')) sent.push((args.params as Hex[])[0]!)
        return (t.request as (a: unknown) => Promise<unknown>)(args)
      }) as typeof t.request
      return { ...t, request }
    },
  }) as PublicClient
}

let env: HeartbeatEnv
const heartbeatCounts: Counts = {}
const tickCounts: Counts = {}
const sent: Hex[] = []
const handed: TickRequest[] = []
const results: TickResult[] = []
let baseFeePerGas: bigint

beforeAll(async () => {
  env = await startHeartbeatEnv()
  await provisionGolemIn(env, 'fees')
  // A day and the Golem's stagger offset later, its tick is a busy one: it redeems the second period.
  await passStaggerOffsets(env.devnet, ['fees'])
  await env.devnet.increaseTime(DAY)
  const tickClient = countingClient(env, tickCounts, sent)
  const invoker: TickInvoker = {
    async invoke(requests) {
      for (const request of decodeTickPayload(encodeTickPayload(requests))) {
        handed.push(request)
        results.push(await runTick(env.deps(undefined, { client: tickClient }), request))
      }
    },
  }
  baseFeePerGas = (await env.client.getBlock()).baseFeePerGas!
  await runHeartbeat({ store: env.store, client: countingClient(env, heartbeatCounts, []), deployment: env.devnet.deployment, invoker })
})
afterAll(async () => env?.stop())

describe('fee data once a heartbeat', () => {
  it('the heartbeat reads the block and the priority fee once, and hands both to the tick', () => {
    expect(heartbeatCounts).toMatchObject({ eth_getBlockByNumber: 1, eth_maxPriorityFeePerGas: 1 })
    expect(handed).toHaveLength(1)
    expect(handed[0]!.fees).toEqual({ baseFeePerGas, maxPriorityFeePerGas: expect.any(BigInt) })
  })

  it('the busy tick redeems with no fee or block read, priced at twice the base fee plus the priority fee', () => {
    expect(results[0]!.redemption?.status).toBe('confirmed')
    expect(tickCounts.eth_maxPriorityFeePerGas ?? 0).toBe(0)
    expect(tickCounts.eth_getBlockByNumber ?? 0).toBe(0)
    expect(tickCounts.eth_getTransactionReceipt ?? 0).toBe(0)
    const fees = handed[0]!.fees!
    for (const raw of sent) {
      expect(parseTransaction(raw)).toMatchObject({
        maxFeePerGas: 2n * fees.baseFeePerGas + fees.maxPriorityFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      })
    }
    // One estimate, one nonce and one send per transaction the tick made (a phase post may join the redemption).
    expect(sent.length).toBeGreaterThanOrEqual(1)
    expect(tickCounts.eth_sendRawTransactionSync).toBe(sent.length)
    expect(tickCounts.eth_estimateGas).toBe(sent.length)
    expect(tickCounts.eth_getTransactionCount).toBe(sent.length)
  })
})
