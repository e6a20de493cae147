// Backfill speed of the Bardo indexer next to an empty-handler Ponder app over the same events, in the
// same run: one devnet, >= 10,000 events, each app started on a fresh PGlite directory, timed by
// Ponder's own "Completed backfill indexing" duration (startup and table creation excluded, RPC
// fetching included for both). Goal: ours >= 90% of the empty app's events/sec.
//
//   npx tsx bench/indexer.ts [--rounds 3] [--golems 50]
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startDevnet } from '../local/devnet.ts'
import { toIndexerDeployment } from '../indexer/lib/deployment.ts'
import { INDEXER_ROOT, startIndexer } from '../indexer/start.ts'
import { DEFAULT_MIX, eventsPerGolem, generateIndexerEvents, type EventMix } from './indexer-events.ts'
import { BACKFILL_GOAL } from './lib/goalFigures.ts'
import { formatInt, formatTable } from './lib/table.ts'

export type BackfillRun = { app: 'bardo' | 'empty'; events: number; seconds: number; eventsPerSecond: number }

export type IndexerBenchResult = {
  events: number
  transactions: number
  blocks: number
  /** Best run of each app (least disturbed by the machine). */
  bardo: BackfillRun
  empty: BackfillRun
  /** bardo.eventsPerSecond / empty.eventsPerSecond (best runs): the number the goal is checked on. */
  ratio: number
  /** The same with each app's median run, to show how much the machine disturbed the runs. */
  medianRatio: number
  goal: number
  runs: BackfillRun[]
}

/** Every `ponder.on('Contract:Event'` the Bardo app registers, so the empty app asks Ponder for the same logs. */
export function registeredEvents(): string[] {
  const dir = join(INDEXER_ROOT, 'src')
  const names = new Set<string>()
  for (const file of readdirSync(dir)) {
    if (!file.endsWith('.ts')) continue
    for (const m of readFileSync(join(dir, file), 'utf8').matchAll(/ponder\.on\(\s*'([A-Za-z0-9]+:[A-Za-z0-9]+)'/g)) names.add(m[1]!)
  }
  return [...names].sort()
}

/** A Ponder app with the Bardo config and schema and handlers that do nothing, in a temporary root. */
export function createEmptyApp(): { root: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), 'bardo-empty-app-'))
  // Bare imports ('ponder', 'viem') in the re-exported files resolve from the real node_modules.
  symlinkSync(join(INDEXER_ROOT, '..', 'node_modules'), join(root, 'node_modules'), 'dir')
  writeFileSync(join(root, 'ponder.config.ts'), `export { default } from ${JSON.stringify(join(INDEXER_ROOT, 'ponder.config.ts'))}\n`)
  writeFileSync(join(root, 'ponder.schema.ts'), `export * from ${JSON.stringify(join(INDEXER_ROOT, 'ponder.schema.ts'))}\n`)
  mkdirSync(join(root, 'src'))
  const handlers = registeredEvents().map((name) => `ponder.on(${JSON.stringify(name)}, async () => {})`)
  writeFileSync(join(root, 'src', 'index.ts'), [`import { ponder } from 'ponder:registry'`, ...handlers, ''].join('\n'))
  mkdirSync(join(root, 'src', 'api'))
  writeFileSync(join(root, 'src', 'api', 'index.ts'), `import { Hono } from 'hono'\nexport default new Hono()\n`)
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) }
}

async function timeBackfill(
  app: 'bardo' | 'empty',
  root: string | undefined,
  input: { rpcUrl: string; deployment: ReturnType<typeof toIndexerDeployment> },
): Promise<BackfillRun> {
  const indexer = await startIndexer({ rpcUrl: input.rpcUrl, deployment: input.deployment, ...(root === undefined ? {} : { root }) })
  try {
    const done = await indexer.waitForLog((l) => l.msg === 'Completed backfill indexing across all chains', 600_000)
    const events = indexer.logs.filter((l) => l.msg === 'Indexed block range').reduce((n, l) => n + Number(l.event_count ?? 0), 0)
    const seconds = Number(done.duration) / 1000
    return { app, events, seconds, eventsPerSecond: events / seconds }
  } finally {
    await indexer.stop()
  }
}

export async function runIndexerBench(
  options: { rounds?: number; mix?: Partial<EventMix>; log?: (line: string) => void } = {},
): Promise<IndexerBenchResult> {
  const log = options.log ?? (() => {})
  const mix = { ...DEFAULT_MIX, ...options.mix }
  const rounds = options.rounds ?? 3
  const devnet = await startDevnet()
  const empty = createEmptyApp()
  try {
    log(`generating ~${eventsPerGolem(mix) * mix.golems} events from ${mix.golems} Golems`)
    const { transactions, blocks } = await generateIndexerEvents(devnet, mix)
    // Push every event behind Ponder's 30-block finality window so all of it is backfill, none live.
    await devnet.publicClient.request({ method: 'anvil_mine' as never, params: ['0x28'] as never })
    const input = { rpcUrl: devnet.rpcUrl, deployment: toIndexerDeployment(devnet.deployment) }
    const runs: BackfillRun[] = []
    for (let round = 0; round < rounds; round++) {
      // Alternate the order so neither app always runs on a cold or a warm machine.
      const order: ('bardo' | 'empty')[] = round % 2 === 0 ? ['empty', 'bardo'] : ['bardo', 'empty']
      for (const app of order) {
        const run = await timeBackfill(app, app === 'empty' ? empty.root : undefined, input)
        log(`  ${app.padEnd(5)} ${run.events} events in ${run.seconds.toFixed(2)} s = ${run.eventsPerSecond.toFixed(0)} events/s`)
        runs.push(run)
      }
    }
    const best = (app: 'bardo' | 'empty') =>
      runs.filter((r) => r.app === app).reduce((a, b) => (b.eventsPerSecond > a.eventsPerSecond ? b : a))
    const median = (app: 'bardo' | 'empty') => {
      const rates = runs
        .filter((r) => r.app === app)
        .map((r) => r.eventsPerSecond)
        .sort((a, b) => a - b)
      const mid = Math.floor(rates.length / 2)
      return rates.length % 2 === 1 ? rates[mid]! : (rates[mid - 1]! + rates[mid]!) / 2
    }
    const bardo = best('bardo')
    const emptyRun = best('empty')
    if (bardo.events !== emptyRun.events) throw new Error(`the apps indexed different event counts: ${bardo.events} vs ${emptyRun.events}`)
    return {
      events: bardo.events,
      transactions,
      blocks,
      bardo,
      empty: emptyRun,
      ratio: bardo.eventsPerSecond / emptyRun.eventsPerSecond,
      medianRatio: median('bardo') / median('empty'),
      goal: BACKFILL_GOAL,
      runs,
    }
  } finally {
    empty.remove()
    await devnet.stop()
  }
}

/** The table `npm run bench` prints. */
export function formatIndexerBench(r: IndexerBenchResult): string {
  const row = (name: string, run: BackfillRun) => [name, formatInt(run.events), run.seconds.toFixed(2), formatInt(run.eventsPerSecond)]
  const table = formatTable(
    ['app', { header: 'events', align: 'right' }, { header: 'backfill s (best)', align: 'right' }, { header: 'events/s', align: 'right' }],
    [row('empty handlers', r.empty), row('Bardo handlers', r.bardo)],
  )
  const all = r.runs.map((x) => `${x.app} ${x.seconds.toFixed(2)} s`).join(', ')
  const verdict = r.ratio >= r.goal ? 'meets' : 'misses'
  return [
    table,
    '',
    `${formatInt(r.transactions)} transactions in ${r.blocks} blocks; every run: ${all}`,
    `Bardo/empty = ${(r.ratio * 100).toFixed(1)}% best runs (${verdict} the >= ${r.goal * 100}% goal), ${(r.medianRatio * 100).toFixed(1)}% median runs`,
  ].join('\n')
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`)
    return i >= 0 ? Number(process.argv[i + 1]) : undefined
  }
  const golems = arg('golems')
  const result = await runIndexerBench({
    rounds: arg('rounds') ?? 3,
    ...(golems === undefined ? {} : { mix: { golems } }),
    log: (l) => console.error(l),
  })
  console.log(formatIndexerBench(result))
}
