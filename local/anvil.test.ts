import { existsSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { describe, expect, it } from 'vitest'
import { startAnvil, type Anvil } from './anvil.ts'

/** The directory anvil was told to write its out-of-memory historical states to. */
function cachePathOf(anvil: Anvil): string {
  const args = anvil.process.spawnargs
  const at = args.indexOf('--cache-path')
  expect(at).toBeGreaterThan(-1)
  return args[at + 1]!
}

async function mine(anvil: Anvil, blocks: number): Promise<void> {
  const res = await fetch(anvil.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: [`0x${blocks.toString(16)}`] }),
  })
  expect(((await res.json()) as { error?: unknown }).error).toBeUndefined()
}

function persistedStates(dir: string): number {
  return readdirSync(dir).reduce((n, sub) => n + readdirSync(`${dir}/${sub}`).length, 0)
}

async function exited(anvil: Anvil): Promise<void> {
  if (anvil.process.exitCode !== null || anvil.process.signalCode !== null) return
  await new Promise((resolve) => anvil.process.once('exit', resolve))
}

describe("anvil's state cache", () => {
  it('is a directory of its own under the temp dir, and is gone once anvil is stopped', async () => {
    const anvil = await startAnvil()
    const dir = cachePathOf(anvil)
    expect(dir.startsWith(tmpdir())).toBe(true)
    // Enough blocks that anvil moves historical states out of memory and onto disk.
    await mine(anvil, 700)
    expect(persistedStates(dir)).toBeGreaterThan(0)
    await anvil.stop()
    expect(existsSync(dir)).toBe(false)
  })

  it('is removed too when anvil dies without shutting down (a killed suite, a crash)', async () => {
    const anvil = await startAnvil()
    const dir = cachePathOf(anvil)
    await mine(anvil, 700)
    anvil.process.kill('SIGKILL')
    await exited(anvil)
    expect(existsSync(dir)).toBe(false)
  })
})
