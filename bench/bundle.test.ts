// The bundle bench builds every Lambda entry, and the tick's bundle keeps out what a tick never uses: the
// contracts' artifacts, MetaMask's utils library (lodash, semver), viem's WebSocket transport (ws), the
// framework's ABIs and every chain's framework addresses, and the x402 client packages, and its chain
// client is not viem's whole public client; nor are the heartbeat's and the walker's, and the API carries
// no framework ABI beyond the DelegationManager's.
// No size is asserted (it moves with the lockfile); the named packages and the shares are.
import { describe, expect, it } from 'vitest'
import { type BundleBenchResult, measureBundle, runBundleBench } from './bundle.ts'

// One run of the bench serves every test: bundling the four Lambdas and the baseline is most of this file's time.
let run: Promise<BundleBenchResult> | undefined
const bench = () => (run ??= runBundleBench())

describe('runBundleBench', () => {
  it("measures the four Lambda bundles, the viem baseline, the API's router alone and the least its x402 settlement can be, in one run", async () => {
    const r = await bench()
    for (const s of [r.tick, r.heartbeat, r.walker, r.api]) {
      expect(s.bytes).toBeGreaterThan(0)
      expect(s.bytesWithAwsSdk).toBeGreaterThan(s.bytes)
    }
    expect(r.viemFloor).toBeGreaterThan(0)
    expect(r.openApiFloor).toBeGreaterThan(0)
    expect(r.openApiFloor).toBeLessThan(r.api.bytes)
    // The stock x402 settlement is part of the API: above viem's public client alone, below the whole API.
    expect(r.x402Floor).toBeGreaterThan(r.viemFloor)
    expect(r.x402Floor).toBeLessThan(r.api.bytes)
    expect(r.tickRatio).toBe(r.tick.bytes / r.goalBytes)
    expect(r.goal).toBe(r.tick.bytes <= 400_000 ? 'PASS' : 'MISS')
  })

  it('the tick bundle carries no artifact but the multicall code, no MetaMask utils, no ws, no framework ABI or address table and no x402 package', async () => {
    const { tick } = await bench()
    const bytesOf = (name: string) => tick.packages.find((p) => p.name === name)?.bytes ?? 0
    for (const name of ['lodash', 'semver', 'ws', '@metamask/utils', '@metamask/superstruct', '@metamask/scure-bip39']) {
      expect(bytesOf(name), name).toBe(0)
    }
    // The oracle entries it calls are adapters/chain/oracleAbi.ts, not the generated artifacts: of those it
    // carries the deployless multicall's runtime code and ABI alone (about 3.1 KB).
    expect(bytesOf('contracts/artifacts')).toBeLessThan(4_000)
    // The six framework functions it calls are core/delegations/frameworkAbi.ts, not the package's ABIs.
    expect(bytesOf('@metamask/delegation-abis')).toBe(0)
    // The framework addresses it calls come from BARDO_FRAMEWORK, not the kit's table of every chain.
    expect(bytesOf('@metamask/delegation-deployments')).toBe(0)
    // The self-extension's payment is core/x402/exactPayment.ts; @x402/core's base64 helpers are a few hundred bytes.
    expect(tick.packages.filter((p) => p.name.startsWith('@x402/') && p.bytes > 1_000)).toEqual([])
    expect(bytesOf('@x402/evm')).toBe(0)
  })

  it("the tick's chain client carries only the actions a tick calls: viem in the tick is well under its public client", async () => {
    const r = await bench()
    const viemIn = r.tick.packages.find((p) => p.name === 'viem')?.bytes ?? 0
    expect(viemIn).toBeGreaterThan(0)
    // The floor is viem's public client over http alone (with @noble), the tick's viem share of it stays under 3/4.
    expect(viemIn / r.viemFloor).toBeLessThan(0.75)
  })

  it("the heartbeat's and the walker's chain client carries only the actions a walk calls: viem in each is well under its public client", async () => {
    const r = await bench()
    for (const s of [r.heartbeat, r.walker]) {
      const viemIn = s.packages.find((p) => p.name === 'viem')?.bytes ?? 0
      expect(viemIn, s.entry).toBeGreaterThan(0)
      expect(viemIn / r.viemFloor, s.entry).toBeLessThan(0.75)
      // ox is viem's public client's (signature checks, ERC-6492); the walk's three actions need only a little of it.
      expect(s.packages.find((p) => p.name === 'ox')?.bytes ?? 0, s.entry).toBeLessThan(10_000)
    }
  })

  // `import { z } from 'zod'` (or 'zod/v4') makes zod's namespace a value, which holds `z.locales`: every
  // language's messages, about 264 KB. `import * as z` is the same API and keeps English alone (the
  // messages the full build sets). @hono/zod-openapi's module still holds the namespace, so the API's
  // bundle keeps every locale until its runtime stops importing that module.
  it('the modules that import zod themselves keep its English messages alone', async () => {
    for (const entry of [
      'functions/api/cladeAuth.ts',
      'functions/api/config.ts',
      'functions/api/indexerClient.ts',
      'functions/api/rateLimit.ts',
      'core/clade/challenge.ts',
      'core/permissions/erc7715.ts',
      'core/x402/header.ts',
      'core/webhooks/alchemyNotification.ts',
    ]) {
      const zod = (await measureBundle(entry)).packages.find((p) => p.name === 'zod')?.bytes ?? 0
      expect(zod, entry).toBeGreaterThan(0)
      expect(zod, entry).toBeLessThan(150_000)
    }
  })

  it('the API carries no framework ABI beyond the DelegationManager (the council computes its account itself)', async () => {
    const { api } = await bench()
    expect(api.packages.find((p) => p.name === '@metamask/delegation-abis')?.bytes ?? 0).toBeLessThan(20_000)
  })
})
