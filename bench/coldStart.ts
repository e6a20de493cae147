// Bench: every Lambda's cold start. Each handler is bundled as for deployment (esbuild, minified ESM,
// AWS SDK external) and started in a fresh Node process per round, configured as the stack configures
// it (on anvil and dynalite, SQS and Lambda answered by the local stand-ins), and answers one request:
// the tick a batch of one Golem it does not know (its configuration, clients and one store read), the
// heartbeat the minute's cron (the head, the due shards, the walks sent), the walker the walk the
// heartbeat sent (the observation, the due Golems handed to the tick), the API a permission-health read.
// The clock runs from the process's start to the answer. The baseline is viem's public client alone,
// bundled and started the same way, answering one eth_blockNumber.
//   npx tsx bench/coldStart.ts [--rounds 3]
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { toHex } from 'viem'
import { DynamoStore } from '../adapters/store/index.ts'
import { MemorySignerResolver } from '../adapters/signers/memorySignerResolver.ts'
import { encodeTickPayload } from '../app/heartbeat/tickPayload.ts'
import { devnetAccount, startDevnet } from '../local/devnet.ts'
import { createTable, documentClient, localDynamoClient, startDynalite } from '../local/dynalite.ts'
import { provisionGolem } from '../local/provision.ts'
import { startLambdaInvokeEndpoint } from '../test/lambda/invokeEndpoint.ts'
import { startSqsEndpoint } from '../test/lambda/sqsEndpoint.ts'
import { apiEvent, bundleTo, coldStart, lambdaEnv, medianStart, RUNNER, type ColdStart } from './cold402.ts'
import { formatRatio, formatTable } from './lib/table.ts'
import { numberArg } from './lib/numberArg.ts'

export const COLD_LAMBDAS = {
  tick: 'functions/tick/handler.ts',
  heartbeat: 'functions/heartbeat/handler.ts',
  walker: 'functions/walker/handler.ts',
  api: 'functions/api/handler.ts',
} as const
type LambdaName = keyof typeof COLD_LAMBDAS

export type ColdStartBenchResult = {
  rounds: number
  /** Medians over the rounds, milliseconds from the process's start. */
  viem: ColdStart
  lambdas: Record<LambdaName, ColdStart & { ratio: number }>
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
/** Inside node_modules, so the bundles' external AWS SDK imports resolve as the Lambda runtime's do. */
const outDir = join(root, 'node_modules', '.cache', 'bardo-bench-cold-start')

/** The baseline: viem's public client alone, as a Lambda answering one eth_blockNumber. */
const VIEM_HANDLER = `import { createPublicClient, http } from 'viem'
const client = createPublicClient({ transport: http(process.env.BARDO_SECRET_RPC_URL), cacheTime: 0 })
export const handler = async () => ({ statusCode: 200, body: String(await client.getBlockNumber()) })
`

export async function runColdStartBench(o: { rounds?: number; log?: (line: string) => void } = {}): Promise<ColdStartBenchResult> {
  const rounds = o.rounds ?? 3
  rmSync(outDir, { recursive: true, force: true })
  mkdirSync(outDir, { recursive: true })
  const runner = join(outDir, 'runner.mjs')
  writeFileSync(runner, RUNNER)
  const bundles = {} as Record<LambdaName | 'viem', string>
  for (const [name, entry] of Object.entries(COLD_LAMBDAS) as [LambdaName, string][]) {
    o.log?.(`bundling ${entry}`)
    bundles[name] = join(outDir, `${name}.mjs`)
    await bundleTo(bundles[name], entry)
  }
  bundles.viem = join(outDir, 'viem.mjs')
  await bundleTo(bundles.viem, { contents: VIEM_HANDLER })

  const devnet = await startDevnet()
  const dynalite = await startDynalite()
  // The walks the heartbeat sends are kept, not delivered: the walker's cold start takes one as its event.
  const sqs = await startSqsEndpoint(async () => ({}))
  const lambda = await startLambdaInvokeEndpoint({ tick: async () => [] })
  try {
    const table = 'bardo-bench'
    const dynamo = localDynamoClient(dynalite.endpoint)
    await createTable(dynamo, table)
    const store = new DynamoStore({ client: documentClient(dynamo), tableName: table })
    await provisionGolem({
      clients: devnet,
      deployment: devnet.deployment,
      store,
      signers: new MemorySignerResolver(devnet.deployment),
      owner: await devnet.createOwner(),
      golemId: 'atlas',
      strategy: readFileSync(join(root, 'examples', 'STRATEGY.md'), 'utf8'),
      runwayDays: 30,
    })
    const env = {
      ...lambdaEnv({ deployment: devnet.deployment, table, rpcUrl: devnet.rpcUrl, dynamoEndpoint: dynalite.endpoint }),
      BARDO_SECRET_OPERATOR_KEY: toHex(devnetAccount(1).getHdKey().privateKey!),
      BARDO_WALK_QUEUE_URL: sqs.queueUrl,
      BARDO_TICK_FUNCTION_NAME: 'tick',
      AWS_ENDPOINT_URL_SQS: sqs.endpoint,
      AWS_ENDPOINT_URL_LAMBDA: lambda.endpoint,
    }
    const runs: Record<LambdaName | 'viem', ColdStart[]> = { viem: [], tick: [], heartbeat: [], walker: [], api: [] }
    const tickEvent = JSON.parse(encodeTickPayload([{ golemId: 'bench-nobody' }]))
    const apiRead = apiEvent('GET', '/api/v1/golems/atlas/permission-health')
    for (let r = 0; r < rounds; r++) {
      o.log?.(`round ${r + 1}/${rounds}`)
      // In turn, so that a busy moment on the machine lands on all of them.
      runs.viem.push(await coldStart(bundles.viem, {}, env, undefined, runner))
      runs.tick.push(await coldStart(bundles.tick, tickEvent, env, undefined, runner))
      runs.heartbeat.push(await coldStart(bundles.heartbeat, {}, env, undefined, runner))
      const walk = sqs.sent.at(-1)
      if (!walk) throw new Error('cold start bench: the heartbeat sent no walk')
      const walkEvent = {
        Records: [
          { messageId: `walk-${r}`, receiptHandle: 'r', body: walk, eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:::walks' },
        ],
      }
      runs.walker.push(await coldStart(bundles.walker, walkEvent, env, undefined, runner))
      runs.api.push(await coldStart(bundles.api, apiRead, env, undefined, runner))
    }
    for (const run of runs.api) if (run.status !== 200) throw new Error(`the cold API answered ${run.status}, not 200`)
    const viem = medianStart(runs.viem)
    const lambdas = {} as ColdStartBenchResult['lambdas']
    for (const name of Object.keys(COLD_LAMBDAS) as LambdaName[]) {
      const m = medianStart(runs[name])
      lambdas[name] = { ...m, ratio: Math.round((m.firstMs / viem.firstMs) * 1000) / 1000 }
    }
    return { rounds, viem, lambdas }
  } finally {
    await Promise.allSettled([sqs.stop(), lambda.stop(), dynalite.stop(), devnet.stop()])
    rmSync(outDir, { recursive: true, force: true })
  }
}

export function formatColdStartBench(r: ColdStartBenchResult): string {
  const ms = (n: number) => `${n.toFixed(0)} ms`
  const rows = (Object.keys(COLD_LAMBDAS) as LambdaName[]).map((name) => {
    const s = r.lambdas[name]
    return [`\`${COLD_LAMBDAS[name]}\``, ms(s.importedMs), ms(s.firstMs), `${s.warmMs.toFixed(1)} ms`, formatRatio(s.ratio, 2)]
  })
  rows.push([
    "baseline: viem's public client alone (one eth_blockNumber)",
    ms(r.viem.importedMs),
    ms(r.viem.firstMs),
    `${r.viem.warmMs.toFixed(1)} ms`,
    formatRatio(1, 2),
  ])
  return [
    `Cold starts: a fresh Node process per round (${r.rounds} rounds, medians), clock from the process's start`,
    formatTable(['Lambda', 'bundle imported', 'first answer', 'warm answer', 'first answer vs viem alone'], rows),
  ].join('\n')
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await runColdStartBench({ rounds: numberArg('rounds'), log: (l) => process.stderr.write(`${l}\n`) })
  console.log(formatColdStartBench(r))
}
