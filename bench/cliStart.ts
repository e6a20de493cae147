// Bench: how long a `bardo` command takes to start, from the process's start to its exit, for
// `bardo --help` (every command loads the same modules before it parses its arguments). The command as
// installed (bin/bardo.mjs: the project's modules from their kept bundle) against the baseline of the
// same CLI loaded by tsx module by module, as bin/bardo.mjs did before the bundle; both in the same run,
// one after the other, the median of the rounds. Also the bundle's build, which the first command after
// an edit pays. And the same for the local stack's API and scheduler processes (bin/run.mjs against
// tsx): each is timed to its refusal without the config the runner writes, which it gives once every
// module it imports is loaded.
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
  /** The stack's processes, medians in milliseconds: from their kept bundles and through tsx. */
  processes: { program: string; bundled: number; tsx: number; ratio: number }[]
}

/** The local stack's processes the runner starts through bin/run.mjs (local/program.ts). */
const PROCESSES = ['local/apiProcess.ts', 'local/schedulerProcess.ts']

function timed(args: string[], status = 0): number {
  const start = performance.now()
  const r = spawnSync(process.execPath, args, { cwd: root, env: { PATH: process.env.PATH, DO_NOT_TRACK: '1' }, stdio: 'ignore' })
  if (r.status !== status) throw new Error(`node ${args.join(' ')} exited ${r.status}`)
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
  // The installed command's own bundle, and the processes', built (or found fresh) before the clock runs.
  await entryBundle(CLI)
  for (const program of PROCESSES) await entryBundle(program)
  const bundled: number[] = []
  const viaTsx: number[] = []
  const each = PROCESSES.map(() => ({ bundled: [] as number[], tsx: [] as number[] }))
  for (let i = 0; i < rounds; i++) {
    o.log?.(`round ${i + 1} of ${rounds}`)
    bundled.push(timed(['bin/bardo.mjs', '--help']))
    viaTsx.push(timed(['--import', 'tsx', 'cli/main.ts', '--help']))
    PROCESSES.forEach((program, p) => {
      each[p]!.bundled.push(timed(['bin/run.mjs', program], 1))
      each[p]!.tsx.push(timed(['--import', 'tsx', program], 1))
    })
  }
  const processes = PROCESSES.map((program, p) => {
    const r = { program, bundled: median(each[p]!.bundled), tsx: median(each[p]!.tsx) }
    return { ...r, ratio: r.bundled / r.tsx }
  })
  const result = { rounds, bundled: median(bundled), tsx: median(viaTsx), build, processes }
  return { ...result, ratio: result.bundled / result.tsx }
}

export function formatCliStartBench(r: CliStartBenchResult): string {
  return formatTable(
    [
      'start to exit (`bardo --help`; a process without its config)',
      { header: `ms, median of ${r.rounds}`, align: 'right' },
      { header: 'vs tsx', align: 'right' },
    ],
    [
      ['bin/bardo.mjs: the kept bundle of the CLI', formatInt(r.bundled), formatRatio(r.ratio, 2)],
      ['baseline: cli/main.ts loaded by tsx', formatInt(r.tsx), formatRatio(1, 2)],
      ["the bundle's build (the first command after an edit)", formatInt(r.build), ''],
      ...r.processes.flatMap((p) => [
        [`bin/run.mjs ${p.program}: its kept bundle`, formatInt(p.bundled), formatRatio(p.ratio, 2)],
        [`baseline: ${p.program} loaded by tsx`, formatInt(p.tsx), formatRatio(1, 2)],
      ]),
    ],
  )
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rounds = numberArg('rounds') ?? 5
  console.log(formatCliStartBench(await runCliStartBench({ rounds, log: (l) => process.stderr.write(`${l}\n`) })))
}
