import { describe, expect, it } from 'vitest'
import { formatCold402Bench, runCold402Bench } from './cold402.ts'

describe('cold 402 bench', () => {
  it('starts the deployed API bundle cold and answers 402 after one chain read and no facilitator call', async () => {
    const r = await runCold402Bench({ rounds: 1 })
    expect(r.api.status).toBe(402)
    expect(r.rpcBeforeFirst).toBe(1)
    expect(r.rpcByMethod).toEqual({ eth_call: 1 })
    expect(r.goal).toBe('PASS')
    expect(formatCold402Bench(r)).toMatch(/API: POST \/api\/v1\/feed -> 402.*goal: at most 1 JSON-RPC request/s)
  }, 120_000)
})
