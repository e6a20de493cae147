// The performance goals as `npm run bench` ends them: one line per goal, `goal <n>: <measured> (target
// <target>): PASS|MISS`, computed from the results of the same run (each against its own same-run
// baseline). A goal whose benchmark was not run this time says which one measures it.
import type { ApiBenchResult } from './api.ts'
import type { BundleBenchResult } from './bundle.ts'
import type { ColdStartBenchResult } from './coldStart.ts'
import type { DashboardBenchResult } from './dashboard.ts'
import type { GasBenchResult } from './gas.ts'
import type { HeartbeatBenchResult } from './heartbeat.ts'
import { API_GOAL, apiGoalMet, BACKFILL_GOAL, busyTickCpu, GOAL_GOLEMS, idleGolemMinute, WALLET_GRANT_ALONE } from './lib/goalFigures.ts'
import type { IndexerBenchResult } from './indexer.ts'

export type BenchResults = Partial<{
  heartbeat: HeartbeatBenchResult
  api: ApiBenchResult
  bundle: BundleBenchResult
  cold: ColdStartBenchResult
  gas: GasBenchResult
  dashboard: DashboardBenchResult
  indexer: IndexerBenchResult
}>

export type Goal = { n: number; measured: string; target: string; verdict: 'PASS' | 'MISS' } | { n: number; missing: string }

const x = (v: number, digits = 2) => `${v.toFixed(digits)}x`
const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`

/** What the API cannot go below while built on its libraries: each floor measured in the same run, when it was. */
function apiFloors(bundle: BundleBenchResult): string {
  const floors = [
    ...(bundle.openApiFloor ? [`its router alone ${kb(bundle.openApiFloor)}`] : []),
    ...(bundle.x402Floor ? [`its x402 settlement at least ${kb(bundle.x402Floor)}`] : []),
  ]
  return floors.length > 0 ? ` (${floors.join(', ')})` : ''
}
const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS')

function heartbeatRow(r: HeartbeatBenchResult) {
  return r.rows.find((row) => row.store === 'dynalite' && row.golems === GOAL_GOLEMS)
}

export function benchGoals(results: BenchResults): Goal[] {
  const goals: Goal[] = []
  const { heartbeat, api, bundle, cold, gas, dashboard, indexer } = results

  const row = heartbeat ? heartbeatRow(heartbeat) : undefined
  const idle = heartbeat ? idleGolemMinute(heartbeat) : undefined
  if (!heartbeat || !idle) goals.push({ n: 1, missing: `npm run bench -- heartbeat (dynalite at ${GOAL_GOLEMS} Golems)` })
  else
    goals.push({
      n: 1,
      measured: `${idle.invocations} tick invocations and ${idle.requests.toFixed(4)} DynamoDB requests per idle Golem-minute at ${idle.golems.toLocaleString('en-US')} Golems on ${idle.store}`,
      target: `${heartbeat.goalIdleInvocations} invocations, <= ${heartbeat.goalIdleStoreRequests} DynamoDB requests`,
      verdict: verdict(idle.pass),
    })

  const busy = row?.busy
  const onBlocks = row?.busyOnBlocks
  if (!busy?.store || !onBlocks) goals.push({ n: 2, missing: `npm run bench -- heartbeat (dynalite at ${GOAL_GOLEMS} Golems)` })
  else {
    // The throughput is judged on blocks (the target chain's block time, the deployment's ticks in flight):
    // under automine the chain builds a block for every transaction, work no chain does a heartbeat's worth
    // of times, so that figure (kept beside it) measures the emulator more than the ticks. Beside both, where
    // the ticks' time went on blocks: the chain's CPU and the ticks' (with the store emulator's).
    const split = busyTickCpu(onBlocks, heartbeat!.cores)
    const cpu = split
      ? `; CPU per busy tick on blocks: chain ${split.chainMs.toFixed(1)} ms, ticks and store ${split.benchMs.toFixed(1)} ms (ceiling ${Math.round(split.ceilingPerMinute).toLocaleString('en-US')} ticks/min on ${heartbeat!.cores} cores)`
      : ''
    const perMinute = (v: number) => Math.round(v).toLocaleString('en-US')
    goals.push({
      n: 2,
      measured: `${busy.store.requestsPerTick.toFixed(2)} DynamoDB requests per busy tick, ${perMinute(onBlocks.ticksPerMinute)} busy ticks/min on ${onBlocks.blockSeconds}-second blocks with ${perMinute(onBlocks.inFlight)} ticks in flight (${perMinute(busy.ticksPerMinute)} under automine with ${perMinute(heartbeat!.concurrency)})${cpu}`,
      target: `<= 4 requests, >= 3,000 ticks/min at ${GOAL_GOLEMS.toLocaleString('en-US')} Golems on dynalite`,
      verdict: verdict(busy.store.requestsPerTick <= 4 && onBlocks.ticksPerMinute >= 3_000),
    })
  }

  if (!api) goals.push({ n: 3, missing: 'npm run bench -- api' })
  else
    goals.push({
      n: 3,
      measured: `permission health ${x(api.rpsRatio)} bare Hono's throughput, p99 ${x(api.p99Ratio)} bare's`,
      target: `>= ${API_GOAL.minRpsRatio}x throughput, p99 <= ${API_GOAL.maxP99Ratio}x`,
      verdict: verdict(apiGoalMet(api)),
    })

  if (!bundle) goals.push({ n: 4, missing: 'npm run bench -- bundle' })
  else {
    const sizes = (['tick', 'heartbeat', 'walker', 'api'] as const).map((name) => ({ name, bytes: bundle[name].bytes }))
    const over = sizes.filter((s) => s.bytes > bundle.goalBytes)
    // The cold starts are reported beside the sizes (the goal is the size): each Lambda's first answer
    // in a fresh process against viem's public client alone.
    const starts = cold
      ? `; cold start ${(['tick', 'heartbeat', 'walker', 'api'] as const).map((name) => `${name} ${x(cold.lambdas[name].ratio)}`).join(', ')} viem's alone`
      : ''
    goals.push({
      n: 4,
      // The API's floors beside it, each a stock library it is built on, alone: its router (an empty
      // @hono/zod-openapi app) and the least the x402 settlement it verifies and settles with can be.
      measured: sizes.map((s) => `${s.name} ${kb(s.bytes)}${s.name === 'api' ? apiFloors(bundle) : ''}`).join(', ') + starts,
      target: `every Lambda <= ${kb(bundle.goalBytes)}`,
      verdict: verdict(over.length === 0),
    })
  }

  const chain = gas?.policies.find((p) => p.name.startsWith('ERC-7715 chain'))
  const alone = gas?.policies.find((p) => p.name === WALLET_GRANT_ALONE)
  if (!chain || !alone) goals.push({ n: 5, missing: 'npm run bench -- gas' })
  else {
    const ratio = Number(chain.gas.repeat) / Number(alone.gas.repeat)
    goals.push({
      n: 5,
      measured: `ERC-7715 chain ${chain.gas.repeat.toLocaleString('en-US')} gas = ${x(ratio, 4)} the wallet grant alone (repeat)`,
      target: '<= 1.25x',
      verdict: verdict(ratio <= 1.25),
    })
  }

  if (!dashboard || !indexer) goals.push({ n: 6, missing: 'npm run bench -- dashboard indexer' })
  else {
    const p99 = dashboard.fleet.p99 / dashboard.bare.p99
    goals.push({
      n: 6,
      measured: `fleet query p99 ${x(p99)} a bare GraphQL list; backfill ${x(indexer.ratio)} an empty-handler Ponder app`,
      target: `p99 <= 2x, backfill >= ${BACKFILL_GOAL}x`,
      verdict: verdict(p99 <= 2 && indexer.ratio >= BACKFILL_GOAL),
    })
  }
  return goals
}

export function formatGoals(goals: readonly Goal[]): string {
  return goals
    .map((g) =>
      'missing' in g
        ? `goal ${g.n}: not measured in this run (${g.missing})`
        : `goal ${g.n}: ${g.measured} (target ${g.target}): ${g.verdict}`,
    )
    .join('\n')
}
