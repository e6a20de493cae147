// The bench runs end to end (child process with a devnet and three servers on 127.0.0.1, numbers out).
// No timing asserted.
import { describe, expect, it } from 'vitest'
import { runApiBench } from '../../bench/api.ts'

describe('runApiBench', () => {
  it('measures permission-health (real chain read and stubbed) and a bare Hono route in one run', async () => {
    const r = await runApiBench({ requests: 40, concurrency: 4, rounds: 2, warmup: 4 })
    expect(r.permissionHealth).toMatchObject({ requests: 40, errors: 0 })
    expect(r.permissionHealthStubbed).toMatchObject({ requests: 40, errors: 0 })
    expect(r.bare).toMatchObject({ requests: 40, errors: 0 })
    for (const s of [r.permissionHealth, r.permissionHealthStubbed, r.bare]) {
      expect(s.rps).toBeGreaterThan(0)
      expect(s.p99Ms).toBeGreaterThanOrEqual(s.p50Ms)
    }
    expect(r.rpsRatio).toBeGreaterThan(0)
    // Reads are shared per block: fewer JSON-RPC requests than HTTP requests; the head is one read of the
    // latest block, and the one Golem is read once per block a head read found (so never more multicalls
    // than head reads). The devnet mines every 2 seconds, so a run slowed by a busy machine spans more
    // than one block and reads the Golem once in each.
    expect(r.rpcPerRequest).toBeGreaterThan(0)
    expect(r.rpcPerRequest).toBeLessThan(2)
    expect(r.rpcByMethod.eth_blockNumber ?? 0).toBe(0)
    expect(r.rpcByMethod.eth_call).toBeGreaterThanOrEqual(1)
    expect(r.rpcByMethod.eth_call).toBeLessThanOrEqual(r.rpcByMethod.eth_getBlockByNumber!)
    expect(['PASS', 'MISS']).toContain(r.goal)
  })
})
