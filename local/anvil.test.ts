import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { describe, expect, it } from 'vitest'
import { CACHE_OWNER_FILE, startAnvil, sweepAbandonedCaches, type Anvil } from './anvil.ts'
import { expectGone, pidLeftByCrashedStarter } from '../test/support/crashedStarter.ts'

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
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .reduce((n, sub) => n + readdirSync(`${dir}/${sub.name}`).length, 0)
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

describe('an anvil whose starter exits without stopping it', () => {
  it('is killed as the starter exits (an uncaught error), not left serving nobody', async () => {
    const pid = await pidLeftByCrashedStarter(`const { startAnvil } = await import('./local/anvil.ts')
      return (await startAnvil()).process.pid`)
    await expectGone(pid)
  })
})

/** A pid that named a process a moment ago and names none now. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
  return Number(child.stdout)
}

describe('caches whose anvil is gone', () => {
  it('are removed by the next start: the owner named no longer runs, or no owner file after an hour', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'bardo-sweep-'))
    try {
      const cache = (name: string, owner?: number) => {
        const dir = join(tmp, `bardo-anvil-${name}`)
        mkdirSync(join(dir, 'anvil-state-1'), { recursive: true })
        if (owner !== undefined) writeFileSync(join(dir, CACHE_OWNER_FILE), String(owner))
        return dir
      }
      const killed = cache('killed', deadPid())
      const running = cache('running', process.pid)
      const oldUnowned = cache('old')
      const hourAgo = (Date.now() - 2 * 60 * 60 * 1000) / 1000
      utimesSync(oldUnowned, hourAgo, hourAgo)
      const freshUnowned = cache('fresh')
      const other = join(tmp, 'not-an-anvil-cache')
      mkdirSync(other)

      expect(sweepAbandonedCaches(tmp).sort()).toEqual([killed, oldUnowned].sort())
      for (const kept of [running, freshUnowned, other]) expect(existsSync(kept)).toBe(true)
    } finally {
      rmSync(tmp, { recursive: true, force: true })
    }
  })

  it("names its anvil in its own directory, so a start after the starter's SIGKILL finds it gone", async () => {
    const anvil = await startAnvil()
    const dir = cachePathOf(anvil)
    const owner = Number(readFileSync(join(dir, CACHE_OWNER_FILE), 'utf8'))
    expect(owner).toBe(anvil.process.pid)
    // While it runs, no start removes it.
    expect(sweepAbandonedCaches()).not.toContain(dir)
    expect(existsSync(dir)).toBe(true)
    await anvil.stop()
  })
})
