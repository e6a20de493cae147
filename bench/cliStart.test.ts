// The CLI start bench times the installed command and its tsx baseline in the same run, and the bundle's
// build. No time is asserted: the figures are the machine's.
import { describe, expect, it } from 'vitest'
import { formatCliStartBench, runCliStartBench } from './cliStart.ts'

describe('runCliStartBench', () => {
  it('times `bardo --help` from the kept bundle and through tsx in one run, and one build of the bundle', async () => {
    const r = await runCliStartBench({ rounds: 1 })
    expect(r.rounds).toBe(1)
    for (const ms of [r.bundled, r.tsx, r.build]) expect(ms).toBeGreaterThan(0)
    expect(r.ratio).toBe(r.bundled / r.tsx)
    expect(formatCliStartBench(r)).toContain('baseline: cli/main.ts loaded by tsx')
  }, 120_000)
})
