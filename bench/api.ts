// Bench: GET /api/v1/golems/:id/permission-health (rate limit counted in the store, zod validation,
// registry lookup, core/health classification, JSON) next to a bare Hono route, same machine, same run.
// Load is a bounded loop of concurrent fetches against 127.0.0.1 only. Both servers run in one child
// process (this file with --serve), so the client's fetch overhead does not share their event loop.
//   npx tsx bench/api.ts [--requests 4000] [--concurrency 16] [--rounds 8]
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { dirname, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { createInterface } from 'node:readline'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Hono } from 'hono'
import { createApp } from '../functions/api/app.ts'
import { serveApi } from '../functions/api/server.ts'
import { sampleGolem, testApiDeps } from '../functions/api/testing.ts'

export type RouteStats = { requests: number; rps: number; p50Ms: number; p99Ms: number; errors: number }

export type ApiBenchResult = {
  /** Per route, over all rounds. */
  requests: number
  concurrency: number
  rounds: number
  permissionHealth: RouteStats
  bare: RouteStats
  /** permission-health divided by bare: the share of raw Hono throughput the real route keeps, and its p99 cost. */
  rpsRatio: number
  p99Ratio: number
}

export type ApiBenchOptions = { requests?: number; concurrency?: number; rounds?: number; warmup?: number }

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

/** `requests` fetches, at most `concurrency` in flight; returns latencies (ms), wall time and errors. */
async function load(url: string, requests: number, concurrency: number) {
  if (new URL(url).hostname !== '127.0.0.1') throw new Error(`url: the bench only loads 127.0.0.1, got ${url}`)
  const latencies: number[] = []
  let issued = 0
  let errors = 0
  const worker = async () => {
    while (issued < requests) {
      issued++
      const t0 = performance.now()
      const res = await fetch(url)
      await res.arrayBuffer()
      latencies.push(performance.now() - t0)
      if (res.status !== 200) errors++
    }
  }
  const start = performance.now()
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, requests)) }, worker))
  return { latencies, wallMs: performance.now() - start, errors }
}

function stats(runs: { latencies: number[]; wallMs: number; errors: number }[]): RouteStats {
  const latencies = runs.flatMap((r) => r.latencies).sort((a, b) => a - b)
  const wallMs = runs.reduce((s, r) => s + r.wallMs, 0)
  const round = (n: number) => Math.round(n * 100) / 100
  return {
    requests: latencies.length,
    rps: Math.round((latencies.length / wallMs) * 1000),
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(percentile(latencies, 99)),
    errors: runs.reduce((s, r) => s + r.errors, 0),
  }
}

/** Child side: serve both apps on 127.0.0.1, print their URLs, live until the parent closes stdin. */
async function serveBenchApps(): Promise<void> {
  // The limiter still counts every request in the store; only its ceiling is lifted, so the bench
  // measures the route and not a wall of 429s.
  const deps = testApiDeps({ golems: [sampleGolem()], config: { trustedProxyHops: 0, rateLimits: { public: Number.MAX_SAFE_INTEGER } } })
  const bareApp = new Hono()
  bareApp.get('/bare', (c) => c.json({ ok: true }))
  const api = await serveApi(createApp(deps))
  const bare = await serveApi(bareApp)
  process.stdout.write(`${JSON.stringify({ api: `${api.url}/api/v1/golems/atlas/permission-health`, bare: `${bare.url}/bare` })}\n`)
  process.stdin.resume()
  await once(process.stdin, 'end')
  await Promise.all([api.close(), bare.close()])
  process.exit(0)
}

/** Parent side: start the child with tsx and wait for the URLs it prints. */
async function startBenchServers(): Promise<{ urls: { api: string; bare: string }; stop: () => Promise<void> }> {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..')
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--serve'], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] })
  const exited = once(child, 'exit')
  const lines = createInterface({ input: child.stdout! })
  const first = await Promise.race([once(lines, 'line').then(([l]) => String(l)), exited.then(() => undefined)])
  if (first === undefined) throw new Error('bench server: the child exited before it printed its URLs')
  const stop = async () => {
    lines.close()
    child.stdin!.end() // the child closes its servers and exits on stdin end
    await exited
  }
  return { urls: JSON.parse(first) as { api: string; bare: string }, stop }
}

export async function runApiBench(o: ApiBenchOptions = {}): Promise<ApiBenchResult> {
  const requests = o.requests ?? 4000
  const concurrency = o.concurrency ?? 16
  const rounds = o.rounds ?? 8
  const warmup = o.warmup ?? 300
  const servers = await startBenchServers()
  try {
    const apiUrl = servers.urls.api
    const bareUrl = servers.urls.bare
    await load(apiUrl, warmup, concurrency)
    await load(bareUrl, warmup, concurrency)
    const apiRuns = []
    const bareRuns = []
    // Alternate the two in short rounds, swapping who goes first, so that a busy moment on the machine
    // lands on both rather than on whichever happened to run then.
    const perRound = Math.max(1, Math.floor(requests / rounds))
    for (let r = 0; r < rounds; r++) {
      if (r % 2 === 0) bareRuns.push(await load(bareUrl, perRound, concurrency))
      apiRuns.push(await load(apiUrl, perRound, concurrency))
      if (r % 2 === 1) bareRuns.push(await load(bareUrl, perRound, concurrency))
    }
    const permissionHealth = stats(apiRuns)
    const bareStats = stats(bareRuns)
    return {
      requests,
      concurrency,
      rounds,
      permissionHealth,
      bare: bareStats,
      rpsRatio: Math.round((permissionHealth.rps / bareStats.rps) * 1000) / 1000,
      p99Ratio: Math.round((permissionHealth.p99Ms / Math.max(bareStats.p99Ms, 0.01)) * 1000) / 1000,
    }
  } finally {
    await servers.stop()
  }
}

function arg(name: string): number | undefined {
  const i = process.argv.indexOf(`--${name}`)
  const v = i >= 0 ? Number(process.argv[i + 1]) : undefined
  return v !== undefined && Number.isFinite(v) && v > 0 ? v : undefined
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv.includes('--serve')) {
  await serveBenchApps()
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await runApiBench({ requests: arg('requests'), concurrency: arg('concurrency'), rounds: arg('rounds') })
  const row = (name: string, s: RouteStats) => `${name.padEnd(20)} ${String(s.rps).padStart(8)} ${s.p50Ms.toFixed(2).padStart(8)} ${s.p99Ms.toFixed(2).padStart(8)} ${String(s.errors).padStart(7)}`
  console.log(`API bench: ${r.permissionHealth.requests} requests per route in ${r.rounds} alternating rounds, concurrency ${r.concurrency}, 127.0.0.1`)
  console.log(`${'route'.padEnd(20)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'errors'.padStart(7)}`)
  console.log(row('bare Hono', r.bare))
  console.log(row('permission-health', r.permissionHealth))
  console.log(`permission-health keeps ${(r.rpsRatio * 100).toFixed(1)}% of bare throughput; p99 is ${r.p99Ratio.toFixed(2)}x bare`)
}
