// The CLI start bench times the installed command and its tsx baseline in the same run, and the bundle's
// build. No time is asserted: the figures are the machine's.
import { describe, expect, it } from 'vitest'
import { formatCliStartBench, runCliStartBench } from './cliStart.ts'

describe('runCliStartBench', () => {
  it("times `bardo --help` and the stack's processes from their kept bundles and through tsx in one run, and one build of the CLI's bundle", async () => {
    const r = await runCliStartBench({ rounds: 1 })
    expect(r.rounds).toBe(1)
    for (const ms of [r.bundled, r.tsx, r.build]) expect(ms).toBeGreaterThan(0)
    expect(r.ratio).toBe(r.bundled / r.tsx)
    expect(formatCliStartBench(r)).toContain('baseline: cli/main.ts loaded by tsx')
    expect(r.processes.map((p) => p.program)).toEqual(['local/apiProcess.ts', 'local/schedulerProcess.ts'])
    for (const p of r.processes) expect(p.ratio).toBe(p.bundled / p.tsx)
    expect(formatCliStartBench(r)).toContain('baseline: local/schedulerProcess.ts loaded by tsx')
  }, 120_000)
})
