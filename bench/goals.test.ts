// The goal lines `npm run bench` ends with, computed from one run's results: PASS or MISS against each
// target, and a goal whose benchmark did not run names the one that measures it.
import { describe, expect, it } from 'vitest'
import { benchGoals, formatGoals, type BenchResults } from './goals.ts'
import { WALLET_GRANT_ALONE } from './lib/goalFigures.ts'

const size = (bytes: number) => ({ entry: 'x', bytes, bytesWithAwsSdk: bytes, packages: [] })
const phase = (ticks: number, seconds: number, requests: number, invocations = ticks) => ({
  ticks,
  invocations,
  seconds,
  ticksPerMinute: (ticks / seconds) * 60,
  rpc: 0,
  rpcPerTick: 0,
  rpcByMethod: {},
  store: { requests, requestsPerTick: ticks > 0 ? requests / ticks : 0, byCommand: {} },
  cpu: { chainMs: null, benchMs: 0 },
})
const gasPair = (repeat: bigint) => ({ first: repeat, repeat, calldata: 0n })
const policy = (name: string, repeat: bigint) => ({
  name,
  caveats: [],
  gas: gasPair(repeat),
  ratio: { first: 1, repeat: 1 },
  verdict: 'PASS' as const,
})

const results = {
  heartbeat: {
    cores: 2,
    goalIdleInvocations: 0,
    goalIdleStoreRequests: 0.05,
    concurrency: 8,
    rows: [
      {
        store: 'dynalite',
        golems: 1_000,
        busy: phase(3_000, 120, 12_000),
        idle: { ...phase(0, 60, 38), store: { requests: 38, requestsPerTick: 0.038, byCommand: {} } },
        idlePerGolemRead: phase(0, 1, 0),
        rpcRatio: 0,
        busyOnBlocks: { ...phase(3_000, 50, 12_000), blockSeconds: 2, inFlight: 500 },
      },
    ],
  },
  api: { rpsRatio: 0.92, p99Ratio: 1.1 },
  bundle: {
    goalBytes: 400_000,
    tick: size(399_000),
    heartbeat: size(380_000),
    walker: size(390_000),
    api: size(1_700_000),
    openApiFloor: 513_000,
    x402Floor: 371_000,
  },
  gas: { policies: [policy('ERC-7715 chain: wallet grant -> Session Account -> key', 120_000n), policy(WALLET_GRANT_ALONE, 100_000n)] },
  dashboard: { fleet: { p99: 30 }, bare: { p99: 20 } },
  indexer: { ratio: 0.85 },
} as unknown as BenchResults

describe('the goal lines of a bench run', () => {
  it('judges each goal from the same run: one line each, PASS or MISS', () => {
    expect(formatGoals(benchGoals(results)).split('\n')).toEqual([
      'goal 1: 0 tick invocations and 0.0380 DynamoDB requests per idle Golem-minute at 1,000 Golems on dynalite (target 0 invocations, <= 0.05 DynamoDB requests): PASS',
      'goal 2: 4.00 DynamoDB requests per busy tick, 3,600 busy ticks/min on 2-second blocks with 500 ticks in flight (1,500 under automine with 8) (target <= 4 requests, >= 3,000 ticks/min at 1,000 Golems on dynalite): PASS',
      "goal 3: permission health 0.92x bare Hono's throughput, p99 1.10x bare's (target >= 0.9x throughput, p99 <= 1.2x): PASS",
      'goal 4: tick 399.0 KB, heartbeat 380.0 KB, walker 390.0 KB, api 1700.0 KB (its router alone 513.0 KB, its x402 settlement at least 371.0 KB) (target every Lambda <= 400.0 KB): MISS',
      'goal 5: ERC-7715 chain 120,000 gas = 1.2000x the wallet grant alone (repeat) (target <= 1.25x): PASS',
      'goal 6: fleet query p99 1.50x a bare GraphQL list; backfill 0.85x an empty-handler Ponder app (target p99 <= 2x, backfill >= 0.9x): MISS',
    ])
  })

  it("reports each Lambda's cold start beside the bundle sizes when the cold-start bench ran", () => {
    const ratio = (r: number) => ({ ratio: r })
    const cold = { lambdas: { tick: ratio(2.9), heartbeat: ratio(2.8), walker: ratio(2.75), api: ratio(4.5) } }
    const line = formatGoals(benchGoals({ bundle: results.bundle, cold } as unknown as BenchResults)).split('\n')[3]
    expect(line).toBe(
      "goal 4: tick 399.0 KB, heartbeat 380.0 KB, walker 390.0 KB, api 1700.0 KB (its router alone 513.0 KB, its x402 settlement at least 371.0 KB); cold start tick 2.90x, heartbeat 2.80x, walker 2.75x, api 4.50x viem's alone (target every Lambda <= 400.0 KB): MISS",
    )
  })

  it("says where the busy ticks' time went on blocks beside goal 2: the chain's CPU, the ticks', and the machine's ceiling", () => {
    const row = results.heartbeat!.rows[0]!
    const timed = {
      heartbeat: {
        ...results.heartbeat!,
        rows: [{ ...row, busyOnBlocks: { ...row.busyOnBlocks, cpu: { chainMs: 90_000, benchMs: 60_000 } } }],
      },
    } as unknown as BenchResults
    // 3,000 ticks: 30 ms of chain and 20 ms of ticks each; 2 cores run 2 x 60,000 / 50 = 2,400 a minute at most.
    expect(formatGoals(benchGoals(timed)).split('\n')[1]).toBe(
      'goal 2: 4.00 DynamoDB requests per busy tick, 3,600 busy ticks/min on 2-second blocks with 500 ticks in flight (1,500 under automine with 8); CPU per busy tick on blocks: chain 30.0 ms, ticks and store 20.0 ms (ceiling 2,400 ticks/min on 2 cores) (target <= 4 requests, >= 3,000 ticks/min at 1,000 Golems on dynalite): PASS',
    )
  })

  it('names the benchmark that measures a goal it did not run', () => {
    expect(formatGoals(benchGoals({ api: results.api }))).toBe(
      [
        'goal 1: not measured in this run (npm run bench -- heartbeat (dynalite at 1000 Golems))',
        'goal 2: not measured in this run (npm run bench -- heartbeat (dynalite at 1000 Golems))',
        "goal 3: permission health 0.92x bare Hono's throughput, p99 1.10x bare's (target >= 0.9x throughput, p99 <= 1.2x): PASS",
        'goal 4: not measured in this run (npm run bench -- bundle)',
        'goal 5: not measured in this run (npm run bench -- gas)',
        'goal 6: not measured in this run (npm run bench -- dashboard indexer)',
      ].join('\n'),
    )
  })

  it('an idle Golem that is still ticked misses goal 1', () => {
    const ticked = {
      ...results,
      heartbeat: {
        ...results.heartbeat!,
        rows: [
          {
            ...results.heartbeat!.rows[0]!,
            idle: { ...phase(1_000, 60, 5_000, 100), store: { requests: 5_000, requestsPerTick: 5, byCommand: {} } },
          },
        ],
      },
    } as unknown as BenchResults
    expect(formatGoals(benchGoals(ticked)).split('\n')[0]).toBe(
      'goal 1: 0.1 tick invocations and 5.0000 DynamoDB requests per idle Golem-minute at 1,000 Golems on dynalite (target 0 invocations, <= 0.05 DynamoDB requests): MISS',
    )
  })
})
