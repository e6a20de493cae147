// `npm run bench` loads each benchmark module with tsx, outside vitest: a module that reaches vitest
// (a test helper calling `expect`) fails there while every suite that imports it inside vitest passes.
// Each module is loaded here as the bench loads it, in a process of its own.
import { execFile } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { BENCHMARKS } from './index.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

describe('npm run bench', () => {
  it('loads every benchmark module outside vitest, each with its run function', async () => {
    const files = BENCHMARKS.map((b) => ({ file: join('bench', b.file), run: b.run }))
    const script = [
      `const files = ${JSON.stringify(files)}`,
      'const found = []',
      'for (const f of files) {',
      '  const m = await import(new URL(f.file, `file://${process.cwd()}/`).href)',
      '  found.push([f.file, typeof m[f.run]])',
      '}',
      'console.log(JSON.stringify(found))',
    ].join('\n')
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      // Without vitest's own variables: the child is what `npm run bench` starts.
      env: { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST'))), DO_NOT_TRACK: '1' },
    })
    const found = JSON.parse(stdout.trim().split('\n').at(-1)!) as [string, string][]
    expect(found).toEqual(files.map((f) => [f.file, 'function']))
  }, 120_000)
})
