// `npm run bench` runs every benchmark module that exists, one after another, each printing its table;
// `npm run bench -- gas x402` runs only the named ones. A module is bench/<name>.ts exporting
// `run<Name>Bench(options?)` that returns its numbers (each measures its own baseline in the same run);
// it may also export `format<Name>Bench(result): string` for its table, otherwise the result is printed
// as a field/value table. A module whose file or run export is missing is skipped with a note, so
// benchmarks can land one at a time. Progress goes to stderr, tables to stdout.
import { existsSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { benchGoals, formatGoals, type BenchResults } from './goals.ts'
import { formatResultTable } from './lib/table.ts'

type BenchModule = { name: string; file: string; run: string; format: string; about: string }

export const BENCHMARKS: readonly BenchModule[] = [
  {
    name: 'gas',
    file: './gas.ts',
    run: 'runGasBench',
    format: 'formatGasBench',
    about: 'enforcer and runway-policy gas vs the bare erc20PeriodTransfer scope',
  },
  { name: 'heartbeat', file: './heartbeat.ts', run: 'runHeartbeatBench', format: 'formatHeartbeatBench', about: 'heartbeat tick' },
  { name: 'api', file: './api.ts', run: 'runApiBench', format: 'formatApiBench', about: 'permission-health route vs a bare Hono route' },
  {
    name: 'indexer',
    file: './indexer.ts',
    run: 'runIndexerBench',
    format: 'formatIndexerBench',
    about: 'indexer backfill vs an empty-handler Ponder app',
  },
  {
    name: 'bundle',
    file: './bundle.ts',
    run: 'runBundleBench',
    format: 'formatBundleBench',
    about: 'Lambda bundle sizes (esbuild, minified, AWS SDK external), each vs the goal of 400 KB',
  },
  {
    name: 'x402',
    file: './x402.ts',
    run: 'runX402Bench',
    format: 'formatX402Bench',
    about: 'x402 verify+settle vs a plain ERC-20 transfer',
  },
  {
    name: 'cold402',
    file: './cold402.ts',
    run: 'runCold402Bench',
    format: 'formatCold402Bench',
    about: "a cold API Lambda's first x402 402 (fresh process, deployed bundle) vs a bare Hono Lambda's first answer",
  },
  {
    name: 'cold',
    file: './coldStart.ts',
    run: 'runColdStartBench',
    format: 'formatColdStartBench',
    about: "every Lambda's cold start (fresh process, deployed bundle, one request answered) vs viem's public client alone",
  },
  {
    name: 'actions',
    file: './actions.ts',
    run: 'runActionsBench',
    format: 'formatActionsBench',
    about: "custody's off-chain pre-check of an action vs the on-chain redemption it guards (approve + swap on anvil)",
  },
  {
    name: 'cli',
    file: './cliStart.ts',
    run: 'runCliStartBench',
    format: 'formatCliStartBench',
    about:
      "a `bardo` command's start, and the local stack's API and scheduler processes', from their kept bundles vs the same programs loaded by tsx",
  },
  {
    name: 'dashboard',
    file: './dashboard.ts',
    run: 'runDashboardBench',
    format: 'formatDashboardBench',
    about: "the dashboard's fleet query (phase history + spend, 1,000 Golems) vs a bare GraphQL query on the same rows",
  },
]

export type BenchOutcome = { name: string; status: 'ran' | 'skipped' | 'failed'; note?: string; result?: unknown; seconds?: number }

const log = (line: string) => process.stderr.write(`${line}\n`)

/** Runs one module; never throws (a failure is reported and the next benchmark still runs). */
async function runOne(bench: BenchModule, print: (text: string) => void): Promise<BenchOutcome> {
  const path = fileURLToPath(new URL(bench.file, import.meta.url))
  print(`## ${bench.name} (bench/${bench.file.slice(2)}): ${bench.about}\n`)
  if (!existsSync(path)) {
    print(`skipped: bench/${bench.file.slice(2)} does not exist yet\n`)
    return { name: bench.name, status: 'skipped', note: 'file missing' }
  }
  const started = performance.now()
  try {
    const mod = (await import(bench.file)) as Record<string, unknown>
    const run = mod[bench.run]
    if (typeof run !== 'function') {
      print(`skipped: bench/${bench.file.slice(2)} has no ${bench.run} export\n`)
      return { name: bench.name, status: 'skipped', note: `no ${bench.run} export` }
    }
    const result: unknown = await run({ log: (line: string) => log(`  [${bench.name}] ${line}`) })
    const format = mod[bench.format]
    print(typeof format === 'function' ? String(format(result)) : formatResultTable(result))
    const seconds = (performance.now() - started) / 1000
    print(`\n(${bench.name}: ${seconds.toFixed(1)} s wall time)\n`)
    return { name: bench.name, status: 'ran', result, seconds }
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error)
    print(`FAILED: ${message}\n`)
    return { name: bench.name, status: 'failed', note: error instanceof Error ? error.message : String(error) }
  }
}

/** Runs the named benchmarks (all when `names` is empty), in the order of BENCHMARKS. */
export async function runBenchmarks(
  names: readonly string[] = [],
  print: (text: string) => void = (t) => console.log(t),
): Promise<BenchOutcome[]> {
  const unknown = names.filter((n) => !BENCHMARKS.some((b) => b.name === n))
  if (unknown.length > 0) throw new Error(`unknown benchmark ${unknown.join(', ')}; known: ${BENCHMARKS.map((b) => b.name).join(', ')}`)
  process.env.DO_NOT_TRACK ??= '1' // the MetaMask kit reports usage unless told not to
  process.env.PONDER_TELEMETRY_DISABLED ??= 'true'
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true' // Node 20 is supported; the 2027 notice is noise here
  const selected = names.length === 0 ? BENCHMARKS : BENCHMARKS.filter((b) => names.includes(b.name))
  const outcomes: BenchOutcome[] = []
  for (const bench of selected) outcomes.push(await runOne(bench, print))
  print(`# summary: ${outcomes.map((o) => `${o.name} ${o.status}${o.note ? ` (${o.note})` : ''}`).join(', ')}`)
  const results = Object.fromEntries(outcomes.filter((o) => o.status === 'ran').map((o) => [o.name, o.result])) as BenchResults
  print(`\n# goals (from this run)\n${formatGoals(benchGoals(results))}`)
  return outcomes
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2).filter((a) => a !== '--')
  if (args.includes('--help') || args.includes('-h')) {
    console.log(`usage: npm run bench [-- <name> ...]\n${BENCHMARKS.map((b) => `  ${b.name.padEnd(10)} ${b.about}`).join('\n')}`)
  } else {
    try {
      const outcomes = await runBenchmarks(args)
      if (outcomes.some((o) => o.status === 'failed')) process.exitCode = 1
    } catch (error) {
      console.error(error instanceof Error ? error.message : String(error))
      process.exitCode = 2
    }
  }
}
