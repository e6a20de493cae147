// The `bardo` command runs the CLI from a bundle of the project's own modules, kept while the files it
// was built from are unchanged and built again once one changes; a module that finds files beside
// itself still finds them from inside the bundle; and the command answers as the TypeScript CLI does.
// bin/run.mjs runs the stack's other programs the same way.
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { bundlePaths, entryBundle } from '../../bin/entryBundle.mjs'

const root = fileURLToPath(new URL('../..', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'bardo-cli-bundle-'))
const paths = bundlePaths('cli/main.ts', dir)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const sourcesOf = () => (JSON.parse(readFileSync(paths.sources, 'utf8')) as { files: [string, number][] }).files
const writeSources = (files: [string, number][], at = root) => writeFileSync(paths.sources, JSON.stringify({ root: at, files }))

/** The command's exit status and output, as a shell sees them. */
async function command(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await promisify(execFile)(process.execPath, args, { cwd: root, env: { PATH: process.env.PATH, DO_NOT_TRACK: '1' } })
    return { code: 0, stdout: r.stdout, stderr: r.stderr }
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

describe("the CLI's bundle", () => {
  it("is built from cli/main.ts and the project's modules it imports, packages left to Node", async () => {
    const url = await entryBundle('cli/main.ts', paths)
    expect(url).toBe(pathToFileURL(paths.code).href)
    const files = sourcesOf().map(([file]) => file)
    expect(files).toContain('cli/main.ts')
    expect(files).toContain('local/store.ts')
    expect(files.filter((f) => f.includes('node_modules'))).toEqual([])
    expect(readFileSync(paths.code, 'utf8')).toMatch(/from "viem"/)
  })

  it('writes where a module that finds files beside itself sits into that module', () => {
    const code = readFileSync(paths.code, 'utf8')
    expect(code).toContain(JSON.stringify(pathToFileURL(join(root, 'indexer', 'start.ts')).href))
    expect(code).toContain(JSON.stringify(join(root, 'local')))
  })

  it('is kept while its sources are unchanged, and built again once one has changed or when it was built in another checkout', async () => {
    const built = statSync(paths.code).mtimeMs
    await entryBundle('cli/main.ts', paths)
    expect(statSync(paths.code).mtimeMs).toBe(built)
    // One source as if edited since the build: its recorded time no longer matches the file's.
    const sources = sourcesOf()
    sources[0]![1] -= 1
    writeSources(sources)
    await new Promise((r) => setTimeout(r, 20))
    await entryBundle('cli/main.ts', paths)
    const rebuilt = statSync(paths.code).mtimeMs
    expect(rebuilt).toBeGreaterThan(built)
    expect(sourcesOf()[0]![1]).toBe(statSync(join(root, sourcesOf()[0]![0])).mtimeMs)
    // A bundle built in another checkout (its paths are that checkout's) is not used here.
    writeSources(sourcesOf(), '/elsewhere/')
    await new Promise((r) => setTimeout(r, 20))
    await entryBundle('cli/main.ts', paths)
    expect(statSync(paths.code).mtimeMs).toBeGreaterThan(rebuilt)
  })

  it('answers as the TypeScript CLI run by tsx does: usage, and a refusal with its exit status', async () => {
    for (const args of [['--help'], ['status', '--golem', 'BAD_ID'], ['nonsense']]) {
      const bundled = await command(['bin/bardo.mjs', ...args])
      const direct = await command(['--import', 'tsx', 'cli/main.ts', ...args])
      expect(bundled, args.join(' ')).toEqual(direct)
    }
    expect((await command(['bin/bardo.mjs', 'status', '--golem', 'BAD_ID'])).code).toBe(2)
  }, 120_000)
})

describe("bin/run.mjs, which runs `npm start` and the local stack's processes from their bundles", () => {
  it('runs a program with the arguments after it, as tsx does: its refusal and exit status', async () => {
    const args = ['scripts/faucet.ts', 'not-an-address']
    const bundled = await command(['bin/run.mjs', ...args])
    expect(bundled).toEqual(await command(['--import', 'tsx', ...args]))
    expect(bundled.code).toBe(1)
    expect(bundled.stderr).toMatch(/^faucet: /)
    expect(existsSync(bundlePaths('scripts/faucet.ts').code)).toBe(true)
  }, 60_000)

  it('without a program prints its usage and exits 2', async () => {
    expect(await command(['bin/run.mjs'])).toEqual({ code: 2, stdout: '', stderr: 'usage: node bin/run.mjs <module.ts> [args…]\n' })
  })
})
