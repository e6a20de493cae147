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

function run(cmd: string, args: string[], cwd?: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: process.env, ...(cwd ? { cwd } : {}) })
    let output = ''
    const forward = (stream: NodeJS.WriteStream) => (d: Buffer) => {
      output += d.toString()
      stream.write(d)
    }
    child.stdout.on('data', forward(process.stdout))
    child.stderr.on('data', forward(process.stderr))
    child.on('close', (code) => resolve({ code: code ?? 1, output }))
  })
}

async function step(name: string, cmd: string, args: string[], cwd?: string): Promise<Counts> {
  process.stdout.write(`\n=== ${name} ===\n`)
  const { code } = await run(cmd, args, cwd)
  return code === 0 ? { passed: 1, failed: 0, skipped: 0 } : { passed: 0, failed: 1, skipped: 0 }
}

async function forge(): Promise<Counts> {
  process.stdout.write('\n=== Foundry: unit, fuzz and invariant tests ===\n')
  const { code, output } = await run(foundryBinary('forge'), ['test'])
  const m = /(\d+) tests passed, (\d+) failed, (\d+) skipped/.exec(output)
  if (!m) return { passed: 0, failed: 1, skipped: 0 }
  const counts = { passed: Number(m[1]), failed: Number(m[2]), skipped: Number(m[3]) }
  if (code !== 0 && counts.failed === 0) counts.failed = 1
  return counts
}

async function vitest(filters: string[]): Promise<Counts> {
  process.stdout.write('\n=== vitest: TypeScript suites ===\n')
  const dir = mkdtempSync(join(tmpdir(), 'bardo-vitest-'))
  const report = join(dir, 'report.json')
  const { code } = await run('node_modules/.bin/vitest', [
    'run',
    ...filters,
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
  ])
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
  process.stdout.write('\n=== Snap: snaps-jest ===\n')
  const dir = mkdtempSync(join(tmpdir(), 'bardo-snap-jest-'))
  const report = join(dir, 'report.json')
  const { code } = await run(resolve('node_modules/.bin/jest'), ['--json', `--outputFile=${report}`], 'snap')
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

const filters = process.argv.slice(2)
const results: Counts[] = []
results.push(await step('contracts: build TypeScript artifacts', 'node_modules/.bin/tsx', ['contracts/build.ts']))
if (filters.length === 0) {
  results.push(await step('typecheck', 'node_modules/.bin/tsc', ['--noEmit', '-p', '.']))
  results.push(await step('typecheck: the dashboard page', 'node_modules/.bin/tsc', ['--noEmit', '-p', 'web']))
  // Lint and format (biome, with the core/ import boundary) and the Solidity format.
  results.push(await step('lint and format: biome ci', 'node_modules/.bin/biome', ['ci', '--colors=off', '.']))
  results.push(await step('Solidity format: forge fmt --check', foundryBinary('forge'), ['fmt', '--check']))
  results.push(await forge())
  results.push(await step('Snap: typecheck', 'node_modules/.bin/tsc', ['--noEmit', '-p', 'snap']))
  results.push(await step('Snap: manifest', resolve('node_modules/.bin/tsx'), ['manifest.ts'], 'snap'))
  const snapBuild = await step('Snap: mm-snap build', resolve('node_modules/.bin/mm-snap'), ['build'], 'snap')
  results.push(snapBuild)
  // The suite runs the bundle just built; without one it would only report the build's failure again.
  if (snapBuild.failed === 0) results.push(await snapJest())
}
results.push(await vitest(filters))
const total = results.reduce((a, c) => ({ passed: a.passed + c.passed, failed: a.failed + c.failed, skipped: a.skipped + c.skipped }))
process.stdout.write(`\n${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped\n`)
process.exit(total.failed > 0 ? 1 : 0)
