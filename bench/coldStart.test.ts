import { describe, expect, it } from 'vitest'
import { COLD_LAMBDAS, formatColdStartBench, runColdStartBench } from './coldStart.ts'

describe('cold start bench', () => {
  it('starts every deployed Lambda bundle cold and has each answer its request, beside viem alone', async () => {
    const r = await runColdStartBench({ rounds: 1 })
    expect(r.lambdas.api.status).toBe(200)
    for (const name of Object.keys(COLD_LAMBDAS) as (keyof typeof COLD_LAMBDAS)[]) {
      expect(r.lambdas[name].firstMs, name).toBeGreaterThan(r.lambdas[name].importedMs)
      expect(r.lambdas[name].ratio, name).toBeGreaterThan(0)
    }
    expect(formatColdStartBench(r)).toMatch(/functions\/tick\/handler\.ts.*baseline: viem's public client alone/s)
  }, 180_000)
})
