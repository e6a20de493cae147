// Bench: GET /api/v1/golems/:id/permission-health with the REAL services (createLocalApi: the Golem
// from the store, the chain state from a local anvil devnet mining a block every 2 seconds, read through
// readGolems and shared per block: one read of the latest block per second shared by every request, one multicall
// per Golem and block, then core/health)
// next to the same route with a stubbed chain read (functions/api/testing.ts fakes) and a bare Hono
// route: same machine, same run. Every JSON-RPC request the real route makes is counted. Load is a
// bounded loop of concurrent fetches against 127.0.0.1 only. The servers and the devnet's client run
// in one child process (this file with --serve), so the load generator does not share their event loop.
// The x402 verify+settle cost is measured by bench/x402.ts (bench/index.ts runs both).
//   npx tsx bench/api.ts [--requests 4000] [--concurrency 16] [--rounds 8]
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { createInterface } from 'node:readline'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Hono } from 'hono'
import { createPublicClient, type Chain, type PublicClient, type Transport } from 'viem'
import { InMemoryStore } from '../adapters/store/index.ts'
import { createApp } from '../functions/api/app.ts'
import { createLocalApi } from '../functions/api/local.ts'
import { serveApi } from '../functions/api/server.ts'
import { sampleGolem, testApiDeps } from '../functions/api/testing.ts'
import { MemorySignerResolver } from '../adapters/signers/memorySignerResolver.ts'
import { startDevnet } from '../local/devnet.ts'
import { provisionGolem } from '../local/provision.ts'
import { countingTransport } from './lib/countingTransport.ts'
import { API_GOAL, apiGoalMet } from './lib/goalFigures.ts'
import { formatRatio } from './lib/table.ts'
import { numberArg } from './lib/numberArg.ts'

/** The chain's block time (Base's): the route's chain state is shared per block. */
const BLOCK_SECONDS = 2

export type RouteStats = { requests: number; rps: number; p50Ms: number; p99Ms: number; errors: number }

export type ApiBenchResult = {
  /** Per route, over all rounds. */
  requests: number
  concurrency: number
  rounds: number
  /** The real route: store read, the chain state shared per block (anvil, 2-second blocks), core/health. */
  permissionHealth: RouteStats
  /** The same route with the chain read and the store replaced by in-memory fakes. */
  permissionHealthStubbed: RouteStats
  bare: RouteStats
  /** permission-health divided by bare: the share of raw Hono throughput the real route keeps, and its p99 cost. */
  rpsRatio: number
  p99Ratio: number
  /** The stubbed route divided by bare: what the HTTP layer alone (limits, validation, JSON) keeps. */
  stubbedRpsRatio: number
  /** JSON-RPC requests the real route made per request (warm-up included), and by method. */
  rpcPerRequest: number
  rpcByMethod: Record<string, number>
  /** PASS when rpsRatio >= 0.9 and p99Ratio <= 1.2. */
  goal: 'PASS' | 'MISS'
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

type BenchUrls = { api: string; stubbed: string; bare: string }
type RpcCounts = Record<string, number>

/** Child side: a devnet with one provisioned Golem, the three apps on 127.0.0.1; lives until stdin closes. */
async function serveBenchApps(): Promise<void> {
  process.env.DO_NOT_TRACK ??= '1'
  const devnet = await startDevnet()
  const store = new InMemoryStore()
  const owner = await devnet.createOwner()
  const strategy = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'examples', 'STRATEGY.md'), 'utf8')
  await provisionGolem({
    clients: devnet,
    deployment: devnet.deployment,
    store,
    signers: new MemorySignerResolver(devnet.deployment),
    owner,
    golemId: 'atlas',
    strategy,
    runwayDays: 30,
  })
  // The limiter still counts every request in the store; only its ceiling is lifted, so the bench
  // measures the route and not a wall of 429s.
  const rateLimits = { public: Number.MAX_SAFE_INTEGER }
  // The real API reads through its own client, whose requests are counted (provisioning is not).
  const counts = new Map<string, number>()
  // The chain runs as a deployed one does: a block every 2 seconds (Base's interval), stated by the
  // chain the API is given, so the API reuses a head read for 1 second and no answer is staler than one
  // block (functions/api/services/headBlock.ts).
  await devnet.publicClient.request({ method: 'evm_setAutomine' as never, params: [false] as never })
  await devnet.publicClient.request({ method: 'evm_setIntervalMining' as never, params: [BLOCK_SECONDS] as never })
  const publicClient = createPublicClient({
    chain: { ...devnet.publicClient.chain, blockTime: BLOCK_SECONDS * 1000 },
    transport: countingTransport(devnet.rpcUrl, counts),
  }) as PublicClient<Transport, Chain>
  const real = createLocalApi({
    store,
    publicClient,
    deployment: devnet.deployment,
    operator: devnet.operator.account,
    settlement: devnet.operator,
    config: { rateLimits },
  })
  const stubbedApp = createApp(testApiDeps({ golems: [sampleGolem()], config: { trustedProxyHops: 0, rateLimits } }))
  const bareApp = new Hono()
  bareApp.get('/bare', (c) => c.json({ ok: true }))
  const [api, stubbed, bare] = await Promise.all([serveApi(real), serveApi(stubbedApp), serveApi(bareApp)])
  const urls: BenchUrls = {
    api: `${api.url}/api/v1/golems/atlas/permission-health`,
    stubbed: `${stubbed.url}/api/v1/golems/atlas/permission-health`,
    bare: `${bare.url}/bare`,
  }
  process.stdout.write(`${JSON.stringify(urls)}\n`)
  process.stdin.resume()
  await once(process.stdin, 'end')
  process.stdout.write(`${JSON.stringify(Object.fromEntries(counts))}\n`)
  await Promise.all([api.close(), stubbed.close(), bare.close()])
  await devnet.stop()
  process.exit(0)
}

/** Parent side: start the child with tsx and wait for the URLs it prints. */
async function startBenchServers(): Promise<{ urls: BenchUrls; stop: () => Promise<RpcCounts> }> {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..')
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--serve'], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const exited = once(child, 'exit')
  const lines = createInterface({ input: child.stdout! })
  const first = await Promise.race([once(lines, 'line').then(([l]) => String(l)), exited.then(() => undefined)])
  if (first === undefined) throw new Error('bench server: the child exited before it printed its URLs')
  const counted = once(lines, 'line').then(([l]) => JSON.parse(String(l)) as RpcCounts)
  const stop = async () => {
    child.stdin!.end() // the child prints its RPC counts, closes its servers and exits on stdin end
    await exited
    lines.close()
    return Promise.race([counted, Promise.resolve({} as RpcCounts)])
  }
  return { urls: JSON.parse(first) as BenchUrls, stop }
}

export async function runApiBench(o: ApiBenchOptions = {}): Promise<ApiBenchResult> {
  const requests = o.requests ?? 4000
  const concurrency = o.concurrency ?? 16
  const rounds = o.rounds ?? 8
  const warmup = o.warmup ?? 300
  const servers = await startBenchServers()
  let stopped = false
  try {
    const { api, stubbed, bare } = servers.urls
    for (const url of [api, stubbed, bare]) await load(url, warmup, concurrency)
    const runs: Record<keyof BenchUrls, Awaited<ReturnType<typeof load>>[]> = { api: [], stubbed: [], bare: [] }
    // Rotate the three in short rounds, changing who goes first, so that a busy moment on the machine
    // lands on all of them rather than on whichever happened to run then.
    const perRound = Math.max(1, Math.floor(requests / rounds))
    const order: (keyof BenchUrls)[] = ['bare', 'api', 'stubbed']
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < order.length; k++) {
        const name = order[(r + k) % order.length]!
        runs[name].push(await load(servers.urls[name], perRound, concurrency))
      }
    }
    const permissionHealth = stats(runs.api)
    const permissionHealthStubbed = stats(runs.stubbed)
    const bareStats = stats(runs.bare)
    const ratio = (a: number, b: number) => Math.round((a / Math.max(b, 0.01)) * 1000) / 1000
    stopped = true
    const rpcByMethod = await servers.stop()
    const rpc = Object.values(rpcByMethod).reduce((a, b) => a + b, 0)
    const rpsRatio = ratio(permissionHealth.rps, bareStats.rps)
    const p99Ratio = ratio(permissionHealth.p99Ms, bareStats.p99Ms)
    return {
      requests,
      concurrency,
      rounds,
      permissionHealth,
      permissionHealthStubbed,
      bare: bareStats,
      rpsRatio,
      p99Ratio,
      stubbedRpsRatio: ratio(permissionHealthStubbed.rps, bareStats.rps),
      rpcPerRequest: Math.round((rpc / (permissionHealth.requests + warmup)) * 1000) / 1000,
      rpcByMethod,
      goal: apiGoalMet({ rpsRatio, p99Ratio }) ? 'PASS' : 'MISS',
    }
  } finally {
    if (!stopped) await servers.stop()
  }
}

/** The table bench/index.ts prints. */
export function formatApiBench(r: ApiBenchResult): string {
  const row = (name: string, s: RouteStats) =>
    `${name.padEnd(34)} ${String(s.rps).padStart(8)} ${s.p50Ms.toFixed(2).padStart(8)} ${s.p99Ms.toFixed(2).padStart(8)} ${String(s.errors).padStart(7)}`
  return [
    `API bench: ${r.permissionHealth.requests} requests per route in ${r.rounds} rotating rounds, concurrency ${r.concurrency}, 127.0.0.1`,
    `${'route'.padEnd(34)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'errors'.padStart(7)}`,
    row('bare Hono', r.bare),
    row('permission-health, stubbed chain', r.permissionHealthStubbed),
    row('permission-health, real (anvil)', r.permissionHealth),
    `real permission-health keeps ${(r.rpsRatio * 100).toFixed(1)}% of bare throughput (p99 ${r.p99Ratio.toFixed(2)}x bare); with the chain read stubbed ${(r.stubbedRpsRatio * 100).toFixed(1)}%`,
    `JSON-RPC per real request: ${r.rpcPerRequest} (${Object.entries(r.rpcByMethod)
      .map(([m, n]) => `${m} ${n}`)
      .join(', ')})`,
    `goal: permission-health >= ${formatRatio(API_GOAL.minRpsRatio, 1)} bare throughput with p99 <= ${formatRatio(API_GOAL.maxP99Ratio, 1)} bare's: ${formatRatio(r.rpsRatio, 3)}, p99 ${formatRatio(r.p99Ratio, 2)} -> ${r.goal}`,
  ].join('\n')
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv.includes('--serve')) {
  await serveBenchApps()
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await runApiBench({ requests: numberArg('requests'), concurrency: numberArg('concurrency'), rounds: numberArg('rounds') })
  console.log(formatApiBench(r))
}
