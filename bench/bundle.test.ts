// The bundle bench builds every Lambda entry, and the tick's bundle keeps out what a tick never uses: the
// contracts' bytecode, MetaMask's utils library (lodash, semver), viem's WebSocket transport (ws) and the
// kit's every-ABI contracts object. No size is asserted (it moves with the lockfile); the named packages are.
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
    expect(r.tickRatio).toBe(r.tick.bytes / r.goalBytes)
    expect(r.goal).toBe(r.tick.bytes <= 400_000 ? 'PASS' : 'MISS')
  })

  it('the tick bundle carries no bytecode, no MetaMask utils, no ws and only the DelegationManager ABI', async () => {
    const tick = await measureBundle('functions/tick/handler.ts')
    const bytesOf = (name: string) => tick.packages.find((p) => p.name === name)?.bytes ?? 0
    for (const name of ['lodash', 'semver', 'ws', '@metamask/utils', '@metamask/superstruct', '@metamask/scure-bip39']) {
      expect(bytesOf(name), name).toBe(0)
    }
    // The Oracle ABIs the tick calls (a few KB), not the bytecode of every contract (~175 KB).
    expect(bytesOf('contracts/artifacts')).toBeLessThan(20_000)
    // One framework ABI (the DelegationManager, ~17 KB), not all of them (~245 KB).
    expect(bytesOf('@metamask/delegation-abis')).toBeLessThan(30_000)
  })
})
