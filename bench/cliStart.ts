// Bench: how long a `bardo` command takes to start, from the process's start to its exit, for
// `bardo --help` (every command loads the same modules before it parses its arguments). The command as
// installed (bin/bardo.mjs: the project's modules from their kept bundle) against the baseline of the
// same CLI loaded by tsx module by module, as bin/bardo.mjs did before the bundle; both in the same run,
// one after the other, the median of the rounds. Also the bundle's build, which the first command after
// an edit pays.
//   npx tsx bench/cliStart.ts [--rounds 5]
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { bundlePaths, entryBundle } from '../bin/entryBundle.mjs'
import { formatInt, formatRatio, formatTable } from './lib/table.ts'
import { numberArg } from './lib/numberArg.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const CLI = 'cli/main.ts'

export type CliStartBenchResult = {
  rounds: number
  /** Medians, milliseconds. */
  bundled: number
  tsx: number
  /** bundled / tsx: under 1 is faster. */
  ratio: number
  /** One build of the bundle, milliseconds. */
  build: number
}

function timed(args: string[]): number {
  const start = performance.now()
  const r = spawnSync(process.execPath, args, { cwd: root, env: { PATH: process.env.PATH, DO_NOT_TRACK: '1' }, stdio: 'ignore' })
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}`)
  return performance.now() - start
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

export async function runCliStartBench(o: { rounds?: number; log?: (line: string) => void } = {}): Promise<CliStartBenchResult> {
  const rounds = o.rounds ?? 5
  const dir = mkdtempSync(join(tmpdir(), 'bardo-cli-bench-'))
  let build: number
  try {
    const start = performance.now()
    await entryBundle(CLI, bundlePaths(CLI, dir))
    build = performance.now() - start
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  // The installed command's own bundle, built (or found fresh) before the clock runs.
  await entryBundle(CLI)
  const bundled: number[] = []
  const viaTsx: number[] = []
  for (let i = 0; i < rounds; i++) {
    o.log?.(`round ${i + 1} of ${rounds}`)
    bundled.push(timed(['bin/bardo.mjs', '--help']))
    viaTsx.push(timed(['--import', 'tsx', 'cli/main.ts', '--help']))
  }
  const result = { rounds, bundled: median(bundled), tsx: median(viaTsx), build }
  return { ...result, ratio: result.bundled / result.tsx }
}

export function formatCliStartBench(r: CliStartBenchResult): string {
  return formatTable(
    ['`bardo --help`', { header: `ms, median of ${r.rounds}`, align: 'right' }, { header: 'vs tsx', align: 'right' }],
    [
      ['bin/bardo.mjs: the kept bundle of the CLI', formatInt(r.bundled), formatRatio(r.ratio, 2)],
      ['baseline: cli/main.ts loaded by tsx', formatInt(r.tsx), formatRatio(1, 2)],
      ["the bundle's build (the first command after an edit)", formatInt(r.build), ''],
    ],
  )
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rounds = numberArg('rounds') ?? 5
  console.log(formatCliStartBench(await runCliStartBench({ rounds, log: (l) => process.stderr.write(`${l}\n`) })))
}
