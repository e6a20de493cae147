// `npm ci` installs exactly what package-lock.json names: a lockfile written on one platform that lacks
// another platform's optional binaries installs no anvil, forge, esbuild or rollup there. These checks
// read the lockfile itself, so a lockfile regenerated from a partial one fails here, not on a Mac.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

type LockEntry = {
  version?: string
  os?: string[]
  cpu?: string[]
  libc?: string[]
  optional?: boolean
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
}

const lock = JSON.parse(readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8')) as {
  lockfileVersion: number
  packages: Record<string, LockEntry>
}
const packages = lock.packages

/** The platforms a developer or CI runs on: macOS on Apple silicon and Intel, Linux (glibc) on x64 and arm64. */
const targets = [
  { os: 'darwin', cpu: 'arm64' },
  { os: 'darwin', cpu: 'x64' },
  { os: 'linux', cpu: 'x64' },
  { os: 'linux', cpu: 'arm64' },
] as const

/** Packages whose work is done by a per-platform binary published as optional dependencies. */
const binaryPackages = ['@foundry-rs/anvil', '@foundry-rs/forge', 'esbuild', 'rollup', '@biomejs/biome', '@swc/core']

/** Where node finds `name` from the package installed at `from`: its own node_modules, then each parent's. */
function resolveFrom(from: string, name: string): string | undefined {
  let dir = from
  for (;;) {
    const candidate = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`
    if (packages[candidate]) return candidate
    if (dir === '') return undefined
    const up = dir.lastIndexOf('/node_modules/')
    dir = up === -1 ? '' : dir.slice(0, up)
  }
}

const fits = (entry: LockEntry, t: (typeof targets)[number]): boolean =>
  (entry.os === undefined || entry.os.includes(t.os)) &&
  (entry.cpu === undefined || entry.cpu.includes(t.cpu)) &&
  (entry.libc === undefined || entry.libc.includes('glibc'))

describe('package-lock.json installs on every platform', () => {
  it('is a lockfile v3 (the format npm ci reads without the registry)', () => {
    expect(lock.lockfileVersion).toBe(3)
  })

  for (const name of binaryPackages) {
    const installs = Object.keys(packages).filter((k) => k === `node_modules/${name}` || k.endsWith(`/node_modules/${name}`))
    it(`${name}: every copy has a binary for ${targets.map((t) => `${t.os}-${t.cpu}`).join(', ')}`, () => {
      expect(installs.length, `${name} is in the lockfile`).toBeGreaterThan(0)
      for (const at of installs) {
        const optional = Object.keys(packages[at]!.optionalDependencies ?? {})
        for (const t of targets) {
          const binaries = optional.flatMap((dep) => {
            const path = resolveFrom(at, dep)
            const entry = path ? packages[path] : undefined
            return entry && (entry.os !== undefined || entry.cpu !== undefined) && fits(entry, t) ? [dep] : []
          })
          expect(binaries, `${at} has no locked binary for ${t.os}-${t.cpu}`).not.toEqual([])
        }
      }
    })
  }

  it('every optional dependency of every locked package is itself locked', () => {
    const missing: string[] = []
    for (const [at, entry] of Object.entries(packages)) {
      for (const dep of Object.keys(entry.optionalDependencies ?? {})) {
        if (!resolveFrom(at, dep)) missing.push(`${at || '(root)'} -> ${dep}`)
      }
    }
    expect(missing).toEqual([])
  })
})

/**
 * The chain libraries reach the Lambda bundles through viem, the MetaMask kit and x402: a second copy is
 * bundled twice, and two `ox` versions would sign and hash with two codebases.
 */
const singletons = ['ox', 'viem']

describe('package-lock.json installs one copy of each shared library', () => {
  for (const name of singletons) {
    it(`${name}: one copy, at the top of node_modules`, () => {
      const copies = Object.keys(packages).filter((k) => k === `node_modules/${name}` || k.endsWith(`/node_modules/${name}`))
      expect(copies).toEqual([`node_modules/${name}`])
    })
  }
})
