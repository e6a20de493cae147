// The dashboard's fleet query next to a bare GraphQL query over the same rows, in the same run: one
// devnet filled with 1,000 Golems' lives (registration, five heartbeats walking Thriving -> Terminal,
// two runway redemptions each), the Bardo indexer backfilled on PGlite, then the queries timed in
// turn. The fleet query is what an owner's fleet view asks: the Golems, then their phase history and
// spend per period filtered to those Golems (`firstKey_in`), page by page. The bare query fetches the
// same rows as unfiltered flat lists. The same history asked as one nested query (each Golem with its
// `phaseTransitions` and `spend` relations) is timed too, because it is the obvious way to write it
// and Ponder answers it a Golem at a time. Reported: p50/p99 of each and the ratios of the p50s.
//
//   npx tsx bench/dashboard.ts [--golems 1000] [--samples 20]
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { startDevnet } from '../local/devnet.ts'
import { toIndexerDeployment } from '../indexer/lib/deployment.ts'
import { startIndexer } from '../indexer/start.ts'
import { generateIndexerEvents } from './indexer-events.ts'
import { formatInt, formatRatio, formatTable } from './lib/table.ts'

export type QueryTiming = { p50: number; p99: number; rows: number; requests: number }
export type DashboardBenchResult = {
  golems: number
  samples: number
  transitions: number
  spendRows: number
  fleet: QueryTiming
  nested: QueryTiming
  bare: QueryTiming
  /** fleet.p50 / bare.p50 */
  ratio: number
  /** nested.p50 / bare.p50 */
  nestedRatio: number
}

type Page<T> = { items: T[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } }

/** Ponder's largest page. */
const PAGE = 1000

const FLEET_GOLEMS = `query Golems($after: String) {
  golems(limit: ${PAGE}, after: $after) { items { address firstKey phase survivalScore registeredAt dead } pageInfo { hasNextPage endCursor } }
}`
const FLEET_TRANSITIONS = `query T($ids: [String!], $after: String) {
  phaseTransitions(where: { firstKey_in: $ids }, orderBy: "timestamp", limit: ${PAGE}, after: $after) {
    items { firstKey kind fromPhase toPhase survivalScore timestamp }
    pageInfo { hasNextPage endCursor }
  }
}`
const FLEET_SPEND = `query S($ids: [String!], $after: String) {
  golemSpends(where: { firstKey_in: $ids }, orderBy: "periodStart", orderDirection: "desc", limit: ${PAGE}, after: $after) {
    items { firstKey source asset periodStart periodEnd amount usd6 eventCount }
    pageInfo { hasNextPage endCursor }
  }
}`

const NESTED_QUERY = `query Nested($after: String) {
  golems(limit: ${PAGE}, after: $after, orderBy: "address") {
    items {
      firstKey phase survivalScore registeredAt dead
      phaseTransitions(orderBy: "timestamp", limit: 100) { items { kind fromPhase toPhase survivalScore timestamp } }
      spend(orderBy: "periodStart", orderDirection: "desc", limit: 100) { items { source asset periodStart periodEnd amount usd6 eventCount } }
    }
    pageInfo { hasNextPage endCursor }
  }
}`

const BARE_TRANSITIONS = `query T($after: String) {
  phaseTransitions(limit: ${PAGE}, after: $after) { items { firstKey kind fromPhase toPhase survivalScore timestamp } pageInfo { hasNextPage endCursor } }
}`
const BARE_SPEND = `query S($after: String) {
  golemSpends(limit: ${PAGE}, after: $after) { items { firstKey source asset periodStart periodEnd amount usd6 eventCount } pageInfo { hasNextPage endCursor } }
}`

async function graphql<T>(url: string, query: string, variables: Record<string, unknown>): Promise<T> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  })
  const body = (await res.json()) as { data?: T; errors?: { message: string }[] }
  if (!body.data) throw new Error(`graphql: ${body.errors?.map((e) => e.message).join('; ') ?? res.status}`)
  return body.data
}

/** Every page of one list; returns the rows and the number of requests it took. */
async function all<T>(
  url: string,
  query: string,
  field: string,
  variables: Record<string, unknown> = {},
): Promise<{ rows: T[]; requests: number }> {
  const rows: T[] = []
  let after: string | null = null
  let requests = 0
  for (;;) {
    const data: Record<string, Page<T>> = await graphql(url, query, { ...variables, after })
    requests++
    const page = data[field]!
    rows.push(...page.items)
    if (!page.pageInfo.hasNextPage) return { rows, requests }
    after = page.pageInfo.endCursor
  }
}

type Counted = { rows: number; requests: number; transitions: number; spend: number }

async function fleetQuery(url: string): Promise<Counted> {
  const golems = await all<{ firstKey: string }>(url, FLEET_GOLEMS, 'golems')
  const ids = [...new Set(golems.rows.map((g) => g.firstKey))]
  const t = await all(url, FLEET_TRANSITIONS, 'phaseTransitions', { ids })
  const s = await all(url, FLEET_SPEND, 'golemSpends', { ids })
  return {
    rows: t.rows.length + s.rows.length,
    requests: golems.requests + t.requests + s.requests,
    transitions: t.rows.length,
    spend: s.rows.length,
  }
}

type NestedRow = { phaseTransitions: { items: unknown[] }; spend: { items: unknown[] } }

async function nestedQuery(url: string): Promise<Counted> {
  const { rows, requests } = await all<NestedRow>(url, NESTED_QUERY, 'golems')
  const transitions = rows.reduce((n, g) => n + g.phaseTransitions.items.length, 0)
  const spend = rows.reduce((n, g) => n + g.spend.items.length, 0)
  return { rows: transitions + spend, requests, transitions, spend }
}

async function bareQuery(url: string): Promise<Counted> {
  const t = await all(url, BARE_TRANSITIONS, 'phaseTransitions')
  const s = await all(url, BARE_SPEND, 'golemSpends')
  return { rows: t.rows.length + s.rows.length, requests: t.requests + s.requests, transitions: t.rows.length, spend: s.rows.length }
}

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

export async function runDashboardBench(
  options: { golems?: number; samples?: number; log?: (line: string) => void } = {},
): Promise<DashboardBenchResult> {
  const log = options.log ?? (() => {})
  const golems = options.golems ?? 1000
  const samples = options.samples ?? 20
  const devnet = await startDevnet()
  try {
    log(`generating the lives of ${golems} Golems`)
    await generateIndexerEvents(devnet, { golems, heartbeats: 5, dreams: 0, pads: 0, toggles: 0, redemptions: 2 })
    // Behind Ponder's finality window, so the whole history is backfilled before timing starts.
    await devnet.publicClient.request({ method: 'anvil_mine' as never, params: ['0x28'] as never })
    const indexer = await startIndexer({ rpcUrl: devnet.rpcUrl, deployment: toIndexerDeployment(devnet.deployment) })
    try {
      await indexer.waitForLog((l) => l.msg === 'Completed backfill indexing across all chains', 600_000)
      const run = { fleet: fleetQuery, nested: nestedQuery, bare: bareQuery }
      const first = { fleet: await fleetQuery(indexer.url), nested: await nestedQuery(indexer.url), bare: await bareQuery(indexer.url) }
      log(`indexed: ${first.bare.transitions} phase transitions, ${first.bare.spend} spend rows`)
      if (first.fleet.rows !== first.bare.rows || first.nested.rows !== first.bare.rows)
        throw new Error(
          `the queries returned different rows: fleet ${first.fleet.rows}, nested ${first.nested.rows}, bare ${first.bare.rows}`,
        )
      const times = { fleet: [] as number[], nested: [] as number[], bare: [] as number[] }
      const orders = [
        ['fleet', 'nested', 'bare'],
        ['bare', 'fleet', 'nested'],
        ['nested', 'bare', 'fleet'],
      ] as const
      for (let i = 0; i < samples; i++) {
        // The order rotates, so no query always runs on a warmer cache or a quieter machine.
        for (const which of orders[i % orders.length]!) {
          const t0 = performance.now()
          await run[which](indexer.url)
          times[which].push(performance.now() - t0)
        }
        log(`sample ${i + 1}/${samples}`)
      }
      const timing = (which: keyof typeof times): QueryTiming => {
        const sorted = [...times[which]].sort((a, b) => a - b)
        return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), rows: first[which].rows, requests: first[which].requests }
      }
      const fleet = timing('fleet')
      const nested = timing('nested')
      const bare = timing('bare')
      return {
        golems,
        samples,
        transitions: first.bare.transitions,
        spendRows: first.bare.spend,
        fleet,
        nested,
        bare,
        ratio: fleet.p50 / bare.p50,
        nestedRatio: nested.p50 / bare.p50,
      }
    } finally {
      await indexer.stop()
    }
  } finally {
    await devnet.stop()
  }
}

/** The table `npm run bench` prints. */
export function formatDashboardBench(r: DashboardBenchResult): string {
  const row = (name: string, t: QueryTiming) => [name, formatInt(t.rows), String(t.requests), t.p50.toFixed(1), t.p99.toFixed(1)]
  return [
    formatTable(
      [
        'query',
        { header: 'rows', align: 'right' },
        { header: 'requests', align: 'right' },
        { header: 'p50 ms', align: 'right' },
        { header: 'p99 ms', align: 'right' },
      ],
      [
        row(`fleet: ${formatInt(r.golems)} Golems, then their phase history + spend (firstKey_in)`, r.fleet),
        row('nested: each Golem with its phaseTransitions + spend relations', r.nested),
        row('bare: the same rows as unfiltered flat lists', r.bare),
      ],
    ),
    '',
    `fleet / bare (p50): ${formatRatio(r.ratio)}; nested / bare (p50): ${formatRatio(r.nestedRatio)}; ${r.samples} samples each`,
  ].join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`)
    return i === -1 ? undefined : Number(process.argv[i + 1])
  }
  const golems = arg('golems')
  const samples = arg('samples')
  const result = await runDashboardBench({
    ...(golems === undefined ? {} : { golems }),
    ...(samples === undefined ? {} : { samples }),
    log: (line) => process.stderr.write(`${line}\n`),
  })
  process.stdout.write(`${formatDashboardBench(result)}\n`)
}
