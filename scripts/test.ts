// `npm test`: builds the contract artifacts, typechecks, runs the Foundry suites (unit, fuzz,
// invariant), builds the MetaMask Snap and runs its snaps-jest suite, and the vitest suites (unit,
// anvil, dynalite, indexer, API, end to end), then prints one plain line `N passed, N failed` covering
// every suite it ran.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { foundryBinary } from '../local/foundryBinary.ts'

process.env.DO_NOT_TRACK = '1'
process.env.PONDER_TELEMETRY_DISABLED = 'true'

type Counts = { passed: number; failed: number; skipped: number }

const sum = (a: Counts, c: Counts): Counts => ({ passed: a.passed + c.passed, failed: a.failed + c.failed, skipped: a.skipped + c.skipped })

/**
 * Runs one step's command. The vitest run's output is forwarded as it comes; a step that runs beside
 * another keeps its output and prints it whole, under its heading, when it ends, so two steps' lines
 * never interleave.
 */
function run(
  name: string,
  cmd: string,
  args: string[],
  opts: { cwd?: string; live?: boolean } = {},
): Promise<{ code: number; output: string }> {
  if (opts.live) process.stdout.write(`\n=== ${name} ===\n`)
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: process.env, ...(opts.cwd ? { cwd: opts.cwd } : {}) })
    let output = ''
    const forward = (stream: NodeJS.WriteStream) => (d: Buffer) => {
      output += d.toString()
      if (opts.live) stream.write(d)
    }
    child.stdout.on('data', forward(process.stdout))
    child.stderr.on('data', forward(process.stderr))
    child.on('close', (code) => {
      if (!opts.live) process.stdout.write(`\n=== ${name} ===\n${output}`)
      resolve({ code: code ?? 1, output })
    })
  })
}

async function step(name: string, cmd: string, args: string[], cwd?: string): Promise<Counts> {
  const { code } = await run(name, cmd, args, cwd ? { cwd } : {})
  return code === 0 ? { passed: 1, failed: 0, skipped: 0 } : { passed: 0, failed: 1, skipped: 0 }
}

async function forge(): Promise<Counts> {
  const { code, output } = await run('Foundry: unit, fuzz and invariant tests', foundryBinary('forge'), ['test'])
  const m = /(\d+) tests passed, (\d+) failed, (\d+) skipped/.exec(output)
  if (!m) return { passed: 0, failed: 1, skipped: 0 }
  const counts = { passed: Number(m[1]), failed: Number(m[2]), skipped: Number(m[3]) }
  if (code !== 0 && counts.failed === 0) counts.failed = 1
  return counts
}

async function vitest(filters: string[]): Promise<Counts> {
  const dir = mkdtempSync(join(tmpdir(), 'bardo-vitest-'))
  const report = join(dir, 'report.json')
  const { code } = await run(
    'vitest: TypeScript suites',
    'node_modules/.bin/vitest',
    ['run', ...filters, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`],
    { live: true },
  )
  try {
    const json = JSON.parse(readFileSync(report, 'utf8')) as {
      numPassedTests: number
      numFailedTests: number
      numPendingTests: number
      numTodoTests: number
      testResults: { status: string; assertionResults: { status: string }[] }[]
    }
    // A file that failed without a failing test (it did not load, or a hook threw) counts once; a file
    // whose tests failed is already counted by its tests.
    const brokenFiles = json.testResults.filter(
      (f) => f.status === 'failed' && !f.assertionResults.some((a) => a.status === 'failed'),
    ).length
    const counts = {
      passed: json.numPassedTests,
      failed: json.numFailedTests + brokenFiles,
      skipped: json.numPendingTests + json.numTodoTests,
    }
    if (code !== 0 && counts.failed === 0) counts.failed = 1
    return counts
  } catch {
    return { passed: 0, failed: 1, skipped: 0 }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The Snap workspace's jest suite (snaps-jest runs the built bundle in its simulator). */
async function snapJest(): Promise<Counts> {
  const dir = mkdtempSync(join(tmpdir(), 'bardo-snap-jest-'))
  const report = join(dir, 'report.json')
  const { code } = await run('Snap: snaps-jest', resolve('node_modules/.bin/jest'), ['--json', `--outputFile=${report}`], { cwd: 'snap' })
  try {
    const json = JSON.parse(readFileSync(report, 'utf8')) as {
      numPassedTests: number
      numFailedTests: number
      numPendingTests: number
      numTodoTests: number
      numRuntimeErrorTestSuites: number
    }
    const counts = {
      passed: json.numPassedTests,
      failed: json.numFailedTests + json.numRuntimeErrorTestSuites,
      skipped: json.numPendingTests + json.numTodoTests,
    }
    if (code !== 0 && counts.failed === 0) counts.failed = 1
    return counts
  } catch {
    return { passed: 0, failed: 1, skipped: 0 }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Steps one after another; the list of their counts. */
async function inTurn(steps: (() => Promise<Counts>)[]): Promise<Counts[]> {
  const counts: Counts[] = []
  for (const s of steps) counts.push(await s())
  return counts
}

/** The Snap: its manifest, its build, then the suite that runs the bundle just built. */
async function snap(): Promise<Counts[]> {
  const manifest = await step('Snap: manifest', resolve('node_modules/.bin/tsx'), ['manifest.ts'], 'snap')
  const build = await step('Snap: mm-snap build', resolve('node_modules/.bin/mm-snap'), ['build'], 'snap')
  // Without a bundle the suite would only report the build's failure again.
  return build.failed === 0 ? [manifest, build, await snapJest()] : [manifest, build]
}

const filters = process.argv.slice(2)
const results: Counts[] = []
// The artifacts first: the typechecks and the suites import them.
results.push(await step('contracts: build TypeScript artifacts', 'node_modules/.bin/tsx', ['contracts/build.ts']))
if (filters.length === 0) {
  // Two lanes side by side, one per core, each mostly one core's work. Timed one after another on the
  // quiet 2-core machine: tsc of the project 85 s, of the page 31 s, of the Snap 12.5 s, biome 4 s; forge's
  // compile and suites 156 s; the Snap's manifest, build and snaps-jest suite 50 s. So the Solidity
  // suites and the Snap's typecheck make one lane (169 s), everything else the other (170 s), where the
  // Snap beside forge made the longer lane 206 s.
  const lanes = await Promise.all([
    (async () => [
      ...(await inTurn([
        () => step('typecheck', 'node_modules/.bin/tsc', ['--noEmit', '-p', '.']),
        () => step('typecheck: the dashboard page', 'node_modules/.bin/tsc', ['--noEmit', '-p', 'web']),
        // Lint and format (biome, with the core/ import boundary).
        () => step('lint and format: biome ci', 'node_modules/.bin/biome', ['ci', '--colors=off', '.']),
      ])),
      ...(await snap()),
    ])(),
    inTurn([
      () => step('Solidity format: forge fmt --check', foundryBinary('forge'), ['fmt', '--check']),
      forge,
      () => step('Snap: typecheck', 'node_modules/.bin/tsc', ['--noEmit', '-p', 'snap']),
    ]),
  ])
  results.push(...lanes.flat())
}
results.push(await vitest(filters))
const total = results.reduce(sum)
process.stdout.write(`\n${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped\n`)
process.exit(total.failed > 0 ? 1 : 0)
