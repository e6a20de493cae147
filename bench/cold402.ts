// Bench: the first 402 of a cold API Lambda. The deployed API handler is bundled as for deployment
// (esbuild, minified ESM, AWS SDK external) and started in a fresh Node process per round, configured as
// the stack configures it (BARDO_* variables, the secrets' stand-ins, the table on dynalite, the RPC on
// anvil). The clock runs from the process's start: Node's bootstrap, the bundle's import, the app's build
// on its first invocation (the deployed wiring: one read of the VitalityOracle's owner as payTo), and the
// first POST /api/v1/feed answered 402 with its PAYMENT-REQUIRED. The baseline is a bare Hono app behind
// the same adapter, bundled and started the same way, answering its first request. Nothing is synced
// with a facilitator before the first 402: Bardo verifies and settles in process, and its pending
// settlements are claims in the store, so the cold 402 costs the start and one chain read, never a
// facilitator's listing.
//   npx tsx bench/cold402.ts [--rounds 5]
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { DynamoStore } from '../adapters/store/index.ts'
import { MemorySignerResolver } from '../adapters/signers/memorySignerResolver.ts'
import { startDevnet, type Devnet } from '../local/devnet.ts'
import { createTable, documentClient, localDynamoClient, startDynalite } from '../local/dynalite.ts'
import { provisionGolem } from '../local/provision.ts'
import { numberArg } from './lib/numberArg.ts'
import { formatRatio, verdict } from './lib/table.ts'

/**
 * The goal: a cold API asks the network for nothing but the payTo read before its first 402 (one JSON-RPC
 * request; no facilitator, no other listing). The time against a bare Lambda's is reported beside it:
 * it is the bundle's import, which the bundle bench tracks.
 */
export const COLD_402_GOAL = { maxRpcRequests: 1 } as const

/** Milliseconds from the process's start: bundle imported, first answer, a second (warm) answer. */
export type ColdStart = { importedMs: number; firstMs: number; warmMs: number; status: number; rpcBeforeFirst?: number }

export type Cold402BenchResult = {
  rounds: number
  /** Medians over the rounds. */
  api: ColdStart
  bare: ColdStart
  /** api.firstMs / bare.firstMs: what the API's cold 402 costs over a bare Lambda's cold answer. */
  ratio: number
  /** The API's first invocation (its app built, one chain read, the 402) over its warm 402. */
  firstOverWarm: number
  /** JSON-RPC requests the cold API made before its first 402 (the most over the rounds), by method. */
  rpcBeforeFirst: number
  rpcByMethod: Record<string, number>
  goal: 'PASS' | 'MISS'
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
/** Inside node_modules, so the bundles' external AWS SDK imports resolve as the Lambda runtime's do. */
const outDir = join(root, 'node_modules', '.cache', 'bardo-bench-cold402')

const BARE_HANDLER = `import { Hono } from 'hono'
import { handle } from 'hono/aws-lambda'
const app = new Hono()
app.post('/api/v1/feed', (c) => c.json({ code: 'PAYMENT_REQUIRED' }, 402))
export const handler = handle(app)
`

/** The child: imports the bundle, invokes it twice with the event, prints its clock (ms since start). */
export const RUNNER = `const { handler } = await import(process.argv[2])
const importedMs = performance.now()
const event = JSON.parse(process.argv[3])
const first = await handler(event, {})
const firstMs = performance.now()
// The parent counts the chain requests made so far before the warm invocation adds its own.
process.stdout.write('first\\n')
await new Promise((go) => process.stdin.once('data', go))
const warmStart = performance.now()
await handler(event, {})
const warmMs = performance.now() - warmStart
process.stdout.write(JSON.stringify({ importedMs, firstMs, warmMs, status: first.statusCode }) + '\\n')
`

export async function bundleTo(file: string, entry: string | { contents: string }): Promise<void> {
  await build({
    absWorkingDir: root,
    ...(typeof entry === 'string' ? { entryPoints: [entry] } : { stdin: { contents: entry.contents, resolveDir: root, loader: 'ts' } }),
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: file,
    external: ['@aws-sdk/*', '@smithy/*'],
    // esbuild's ESM output for Node: packages that still call require() get one.
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: 'silent',
  })
}

/** The environment the stack gives its functions, on anvil and dynalite (the secrets' local stand-ins). */
export function lambdaEnv(p: {
  deployment: Devnet['deployment']
  table: string
  rpcUrl: string
  dynamoEndpoint: string
}): Record<string, string> {
  const d = p.deployment
  // anvil's third well-known key: a gas-only settlement account, as the handler test uses.
  const settlementKey = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a'
  return {
    BARDO_CHAIN_ID: String(d.chainId),
    BARDO_DEPLOYMENT: JSON.stringify({
      vitalityOracle: d.vitalityOracle,
      dreamOracle: d.dreamOracle,
      daimonOracle: d.daimonOracle,
      enforcers: d.enforcers,
      // The local chain is none the kit knows: the framework's addresses come with the deployment.
      environment: d.environment,
      startBlock: d.startBlock.toString(),
    }),
    BARDO_USDC: d.assets.usdc,
    BARDO_TABLE_NAME: p.table,
    BARDO_TRUSTED_PROXY_HOPS: '0',
    BARDO_SECRET_RPC_URL: p.rpcUrl,
    BARDO_SECRET_SETTLEMENT_KEY: settlementKey,
    BARDO_SECRET_CLADE_HMAC_SECRET: `0x${'5a'.repeat(32)}`,
    AWS_ENDPOINT_URL_DYNAMODB: p.dynamoEndpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  }
}

/** A request as API Gateway v2 hands it to the function (POST /api/v1/feed with no payment, for the cold 402). */
export function apiEvent(method: string, path: string, body?: unknown) {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: { host: 'api.example', 'content-type': 'application/json' },
    requestContext: {
      http: { method, path, sourceIp: '203.0.113.7', protocol: 'HTTP/1.1', userAgent: 'bench' },
      requestId: 'cold',
      stage: '$default',
      domainName: 'api.example',
      accountId: '1',
      apiId: 'a',
      time: '',
      timeEpoch: 0,
      routeKey: '$default',
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    isBase64Encoded: false,
  }
}

/** A JSON-RPC hop in front of anvil that counts every request by method. */
async function countingProxy(target: string): Promise<{ url: string; counts: Map<string, number>; close: () => Promise<void> }> {
  const counts = new Map<string, number>()
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    const parsed = JSON.parse(body) as { method: string } | { method: string }[]
    for (const call of Array.isArray(parsed) ? parsed : [parsed]) counts.set(call.method, (counts.get(call.method) ?? 0) + 1)
    const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    res.writeHead(answer.status, { 'content-type': 'application/json' })
    res.end(await answer.text())
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, counts, close: () => new Promise((done) => server.close(() => done())) }
}

export async function coldStart(
  bundle: string,
  event: unknown,
  env: Record<string, string>,
  rpc?: Map<string, number>,
  runner = join(outDir, 'runner.mjs'),
): Promise<ColdStart> {
  rpc?.clear()
  const child = spawn(process.execPath, [runner, pathToFileURL(bundle).href, JSON.stringify(event)], {
    env: { PATH: process.env.PATH ?? '', DO_NOT_TRACK: '1', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  let rpcBeforeFirst: number | undefined
  child.stdout.on('data', (d) => {
    out += d
    // A handler may log to stdout before its first answer: the marker is a line of its own.
    if (rpcBeforeFirst === undefined && /(^|\n)first\n/.test(out)) {
      rpcBeforeFirst = [...(rpc?.values() ?? [])].reduce((a, b) => a + b, 0)
      child.stdin.end('go')
    }
  })
  child.stderr.on('data', (d) => (err += d))
  const [code] = await once(child, 'exit')
  if (code !== 0) throw new Error(`cold start of ${bundle} exited ${code}: ${err.replace(/^.{300,}$/gm, '<long line>').slice(-1500)}`)
  return { ...(JSON.parse(out.trim().split('\n').pop()!) as ColdStart), rpcBeforeFirst }
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
export const medianStart = (runs: ColdStart[]): ColdStart => ({
  importedMs: median(runs.map((r) => r.importedMs)),
  firstMs: median(runs.map((r) => r.firstMs)),
  warmMs: median(runs.map((r) => r.warmMs)),
  status: runs[0]!.status,
})

export async function runCold402Bench(o: { rounds?: number; log?: (line: string) => void } = {}): Promise<Cold402BenchResult> {
  const rounds = o.rounds ?? 5
  rmSync(outDir, { recursive: true, force: true })
  mkdirSync(outDir, { recursive: true })
  writeFileSync(join(outDir, 'runner.mjs'), RUNNER)
  const apiBundle = join(outDir, 'api.mjs')
  const bareBundle = join(outDir, 'bare.mjs')
  o.log?.('bundling the API handler and the bare Hono handler')
  await bundleTo(apiBundle, 'functions/api/handler.ts')
  await bundleTo(bareBundle, { contents: BARE_HANDLER })

  const devnet = await startDevnet()
  const dynalite = await startDynalite()
  const proxy = await countingProxy(devnet.rpcUrl)
  try {
    const table = 'bardo-bench'
    const dynamo = localDynamoClient(dynalite.endpoint)
    await createTable(dynamo, table)
    const store = new DynamoStore({ client: documentClient(dynamo), tableName: table })
    const strategy = readFileSync(join(root, 'examples', 'STRATEGY.md'), 'utf8')
    await provisionGolem({
      clients: devnet,
      deployment: devnet.deployment,
      store,
      signers: new MemorySignerResolver(devnet.deployment),
      owner: await devnet.createOwner(),
      golemId: 'atlas',
      strategy,
      runwayDays: 30,
    })
    const env = lambdaEnv({ deployment: devnet.deployment, table, rpcUrl: proxy.url, dynamoEndpoint: dynalite.endpoint })
    const event = apiEvent('POST', '/api/v1/feed', { golemId: 'atlas' })
    const api: ColdStart[] = []
    const bare: ColdStart[] = []
    const rpcByMethod: Record<string, number> = {}
    // Alternate the two so that a busy moment on the machine lands on both.
    for (let r = 0; r < rounds; r++) {
      o.log?.(`round ${r + 1}/${rounds}`)
      bare.push(await coldStart(bareBundle, event, {}))
      api.push(await coldStart(apiBundle, event, env, proxy.counts))
      for (const [m, n] of proxy.counts) rpcByMethod[m] = Math.max(rpcByMethod[m] ?? 0, n)
    }
    for (const run of api) if (run.status !== 402) throw new Error(`the cold API answered ${run.status}, not 402`)
    const a = medianStart(api)
    const b = medianStart(bare)
    const ratio = Math.round((a.firstMs / b.firstMs) * 1000) / 1000
    const rpcBeforeFirst = Math.max(...api.map((run) => run.rpcBeforeFirst ?? Number.POSITIVE_INFINITY))
    return {
      rounds,
      api: a,
      bare: b,
      ratio,
      firstOverWarm: Math.round(((a.firstMs - a.importedMs) / Math.max(a.warmMs, 0.01)) * 100) / 100,
      rpcBeforeFirst,
      rpcByMethod,
      goal: verdict(rpcBeforeFirst, COLD_402_GOAL.maxRpcRequests),
    }
  } finally {
    await proxy.close()
    await dynalite.stop()
    await devnet.stop()
    rmSync(outDir, { recursive: true, force: true })
  }
}

export function formatCold402Bench(r: Cold402BenchResult): string {
  const ms = (n: number) => `${n.toFixed(0)} ms`
  const row = (name: string, s: ColdStart) =>
    `${name.padEnd(30)} ${ms(s.importedMs).padStart(10)} ${ms(s.firstMs).padStart(12)} ${s.warmMs.toFixed(1).padStart(8)} ms`
  return [
    `Cold 402: a fresh Node process per round (${r.rounds} rounds, medians), clock from the process's start`,
    `${'handler'.padEnd(30)} ${'imported'.padStart(10)} ${'first answer'.padStart(12)} ${'warm'.padStart(11)}`,
    row('bare Hono (hono/aws-lambda)', r.bare),
    row('API: POST /api/v1/feed -> 402', r.api),
    `the cold 402 takes ${formatRatio(r.ratio, 2)} a bare Lambda's cold answer (the import: ${formatRatio(r.api.importedMs / r.bare.importedMs, 1)} the bare one's); its first invocation (app built, payTo read, 402) ${r.firstOverWarm}x its warm 402`,
    `goal: at most ${COLD_402_GOAL.maxRpcRequests} JSON-RPC request and no facilitator call before the first 402: ${r.rpcBeforeFirst} (${Object.entries(
      r.rpcByMethod,
    )
      .map(([m, n]) => `${m} ${n}`)
      .join(', ')}) -> ${r.goal}`,
  ].join('\n')
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await runCold402Bench({ rounds: numberArg('rounds'), log: (l) => process.stderr.write(`${l}\n`) })
  console.log(formatCold402Bench(r))
}
