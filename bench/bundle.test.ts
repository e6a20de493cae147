// The bundle bench builds every Lambda entry, and the tick's bundle keeps out what a tick never uses: the
// contracts' bytecode, MetaMask's utils library (lodash, semver), viem's WebSocket transport (ws) and the
// kit's every-ABI contracts object, and its chain client is not viem's whole public client. No size is
// asserted (it moves with the lockfile); the named packages and the shares are.
import { describe, expect, it } from 'vitest'
import { measureBundle, runBundleBench } from './bundle.ts'

describe('runBundleBench', () => {
  it('measures the three Lambda bundles and the viem baseline in one run', async () => {
    const r = await runBundleBench()
    for (const s of [r.tick, r.heartbeat, r.api]) {
      expect(s.bytes).toBeGreaterThan(0)
      expect(s.bytesWithAwsSdk).toBeGreaterThan(s.bytes)
    }
    expect(r.viemFloor).toBeGreaterThan(0)
    expect(r.tickWithoutX402).toBeLessThan(r.tick.bytes)
    expect(r.tickRatio).toBe(r.tick.bytes / r.goalBytes)
    expect(r.goal).toBe(r.tick.bytes <= 400_000 ? 'PASS' : 'MISS')
  })

  it('the tick bundle carries no bytecode, no MetaMask utils, no ws and only the framework ABIs it encodes with', async () => {
    const tick = await measureBundle('functions/tick/handler.ts')
    const bytesOf = (name: string) => tick.packages.find((p) => p.name === name)?.bytes ?? 0
    for (const name of ['lodash', 'semver', 'ws', '@metamask/utils', '@metamask/superstruct', '@metamask/scure-bip39']) {
      expect(bytesOf(name), name).toBe(0)
    }
    // The Oracle ABIs the tick calls (a few KB), not the bytecode of every contract (~175 KB).
    expect(bytesOf('contracts/artifacts')).toBeLessThan(20_000)
    // The DelegationManager's ABI (~17 KB) and the DeleGator's for a council proposal's call data, not all of them (~245 KB).
    expect(bytesOf('@metamask/delegation-abis')).toBeLessThan(30_000)
  })

  it("the tick's chain client carries only the actions a tick calls: without @x402/*, viem is well under its public client", async () => {
    // @x402/evm's exact client builds viem's whole public client itself, so only without it does the tick's lean client show.
    const viemIn = (s: { packages: { name: string; bytes: number }[] }) => s.packages.find((p) => p.name === 'viem')?.bytes ?? 0
    const [whole, lean] = await Promise.all([
      measureBundle('functions/tick/handler.ts'),
      measureBundle('functions/tick/handler.ts', { withoutX402: true }),
    ])
    expect(lean.bytes).toBeLessThan(whole.bytes)
    expect(viemIn(lean)).toBeGreaterThan(0)
    expect(viemIn(lean) / viemIn(whole)).toBeLessThan(0.75)
  })
})
