// Heartbeat bench: ticks per minute for 100 and 1,000 Golems on this machine against anvil, with the
// in-memory store and with the real DynamoStore on dynalite, and JSON-RPC requests per idle tick.
// Baseline, measured in the same run on the same Golems: the per-Golem read a tick does when it is not
// handed the heartbeat's batched observation (readGolems for one Golem: a block read and its own
// multicall). Every request is counted by a transport wrapper around viem's http transport. Each row
// (store and size) runs on a devnet of its own, and each heartbeat's CPU time is split between the
// chain's process and this one (the ticks and the store emulator), per busy tick.
//   busy tick: a new period past the stagger window, so every Golem redeems its runway in the same
//   heartbeat (simulate, price, sign, send, receipt)
//   idle minute: the same period a minute later; already redeemed, nothing to do: the heartbeat observes
//   every Golem and hands none over (core/lifecycle/tickNeed.ts)
//   baseline idle ticks: every Golem ticked that same kind of minute anyway, each reading its own record and
//   chain state (what an idle minute cost when every Golem was ticked every minute)
//   busy tick on blocks: the next period's busy heartbeat again, on a chain that mines a block every 2 s
//   (the target chain's block time) instead of one block a transaction, its invocations accepted at once
//   and run in the background as Lambda's asynchronous invoke runs them, as many ticks in flight as the
//   deployment runs (an invocation of 10 Golems each, TICK_CONCURRENCY ticks at a time in each)
// Goals printed PASS/MISS: busy ticks a minute at 1,000 Golems on dynalite (>= 3,000; the busy heartbeat
// on blocks) and JSON-RPC requests per busy tick there (<= 4; the busy heartbeat under automine); goal 1, an idle Golem's
// minute: no tick invocation and <= 0.05 DynamoDB requests, from the same run's idle heartbeat there.
// `npx tsx bench/heartbeat.ts [--sizes 100,1000] [--stores memory,dynalite] [--concurrency 8]`, or
// `npm run bench -- heartbeat`.
import { busyTickCpu, idleGolemMinute } from './lib/goalFigures.ts'
import { randomUUID } from 'node:crypto'
import { availableParallelism } from 'node:os'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { createPublicClient, type LocalAccount, type PublicClient } from 'viem'
import { countingTransport } from './lib/countingTransport.ts'
import { DynamoStore, InMemoryStore } from '../adapters/store/index.ts'
import { staggerWindow } from '../core/lifecycle/stagger.ts'
import type { Store } from '../core/store/index.ts'
import { withReceiptPolling } from '../adapters/chain/receipts.ts'
import { runHeartbeat } from '../app/heartbeat/heartbeat.ts'
import type { TickInvoker, TickRequest } from '../app/heartbeat/handOver.ts'
import { LocalInvoker } from '../app/heartbeat/invokers.ts'
import { WALK_BATCH_SIZE } from '../app/heartbeat/walk.ts'
import { TICK_CONCURRENCY } from '../functions/tick/handler.ts'
import { MemorySignerResolver } from '../adapters/signers/memorySignerResolver.ts'
import type { TickDeps } from '../app/tick/types.ts'
import { startDevnet, type Devnet, type OwnerAccount } from '../local/devnet.ts'
import { createTable, documentClient, localDynamoClient, startDynaliteChild, type DynaliteProcess } from '../local/dynalite.ts'
import { provisionFleet } from '../test/heartbeat/fleet.ts'
import { WHOLE_RUNWAY_ON_KEY } from '../test/heartbeat/harness.ts'
import { childCpuMs, processCpuMs } from './lib/cpuTime.ts'
import { formatInt, formatRatio, formatTable, verdict } from './lib/table.ts'

export type StoreKind = 'memory' | 'dynalite'
export type HeartbeatBenchOptions = {
  log?: (line: string) => void
  sizes?: readonly number[]
  stores?: readonly StoreKind[]
  concurrency?: number
}

export type PhaseNumbers = {
  ticks: number
  /** Tick invocations handed over (batches of up to 10 Golems). */
  invocations: number
  /** What the per-Golem figures divide by: the ticks, or the Golems of an idle minute. */
  per: number
  seconds: number
  ticksPerMinute: number
  rpc: number
  rpcPerTick: number
  rpcByMethod: Record<string, number>
  /** DynamoDB requests (dynalite only; null in memory): how many, by command, and their request bytes. */
  store: StoreNumbers | null
  /**
   * CPU time over the phase, in milliseconds: the chain's process (anvil; null where /proc cannot tell)
   * and the ticks' with the store's: this one (the ticks, the heartbeat, the AWS SDK) and, on dynalite, the
   * emulator's own process.
   */
  cpu: { chainMs: number | null; benchMs: number }
}
export type StoreNumbers = {
  requests: number
  requestsPerTick: number
  byCommand: Record<string, { requests: number; bytes: number }>
}
export type HeartbeatBenchRow = {
  store: StoreKind
  golems: number
  busy: PhaseNumbers
  idle: PhaseNumbers
  /** Baseline: every Golem ticked in an idle minute, each tick reading its own Golem (no batched observation). */
  idlePerGolemRead: PhaseNumbers
  /**
   * The next period's busy heartbeat on a chain that mines a block every `blockSeconds`, with the
   * deployment's ticks in flight (`inFlight`) and its invocations accepted at once.
   */
  busyOnBlocks: PhaseNumbers & { blockSeconds: number; inFlight: number }
  /** idle.rpcPerTick / idlePerGolemRead.rpcPerTick. */
  rpcRatio: number
}
export type HeartbeatBenchResult = {
  concurrency: number
  /** This machine's cores (what the busy ticks' CPU ceiling divides among the chain and the ticks). */
  cores: number
  /** Goal: JSON-RPC requests per idle tick well under one per Golem (<= 0.05). */
  goalRpcPerIdleTick: number
  /** Goal: busy ticks a minute at GOAL_GOLEMS Golems on dynalite (>= 3,000). */
  goalBusyTicksPerMinute: number
  /** Goal: JSON-RPC requests per busy tick at GOAL_GOLEMS Golems on dynalite (<= 4). */
  goalRpcPerBusyTick: number
  /** Goal 1: an idle Golem-minute at GOAL_GOLEMS Golems on dynalite: no invocation, at most this many DynamoDB requests. */
  goalIdleInvocations: number
  goalIdleStoreRequests: number
  rows: HeartbeatBenchRow[]
  provisionSeconds: number
}

const GOAL_RPC_PER_IDLE_TICK = 0.05
const GOAL_BUSY_TICKS_PER_MINUTE = 3_000
const GOAL_RPC_PER_BUSY_TICK = 4
const GOAL_IDLE_INVOCATIONS = 0
const GOAL_IDLE_STORE_REQUESTS = 0.05
/** The busy-tick goals are judged on this row: the real store (dynalite) at this many Golems. */
const GOAL_STORE: StoreKind = 'dynalite'
const GOAL_GOLEMS = 1_000
/** The target chain's block time, in seconds, for the busy heartbeat measured on blocks. */
const BLOCK_SECONDS = 2
const USDC = (n: number) => BigInt(n) * 1_000_000n

/** Hands the ticks over without the heartbeat's observation: each tick reads its own Golem. */
class PerGolemReadInvoker implements TickInvoker {
  constructor(private readonly inner: LocalInvoker) {}
  invoke(requests: readonly TickRequest[]): Promise<void> {
    return this.inner.invoke(requests.map((r) => ({ golemId: r.golemId })))
  }
}

/**
 * Hands each invocation over as Lambda's asynchronous (Event) invoke does: accepted at once and run in
 * the background, so the walks never wait for ticks; `settle` waits for every tick handed over.
 */
class AcceptingInvoker implements TickInvoker {
  readonly #running: Promise<void>[] = []
  constructor(private readonly inner: LocalInvoker) {}
  invoke(requests: readonly TickRequest[]): Promise<void> {
    this.#running.push(this.inner.invoke(requests))
    return Promise.resolve()
  }
  tickNeedParameters() {
    return this.inner.tickNeedParameters()
  }
  async settle(): Promise<void> {
    await Promise.all(this.#running.splice(0))
  }
}

/** Ticks in flight when the deployment runs a busy heartbeat of `golems`: every invocation at once. */
export function deployedInFlight(golems: number): number {
  return Math.ceil(golems / WALK_BATCH_SIZE) * TICK_CONCURRENCY
}

type Env = {
  devnet: Devnet
  client: PublicClient
  counts: Map<string, number>
  /** DynamoDB requests of the current store by command name, counted on the wire (the serialised request). */
  storeCounts: Map<string, { requests: number; bytes: number }> | null
  owner: OwnerAccount
  dynalite?: DynaliteProcess
}

async function openStore(kind: StoreKind, env: Env): Promise<{ store: Store; close: () => void }> {
  if (kind === 'memory') {
    env.storeCounts = null
    return { store: new InMemoryStore(), close: () => {} }
  }
  // In a process of its own, as DynamoDB never runs in a function's. The client keeps the SDK's 50
  // sockets: with 1,000 (one per tick in flight, as many functions would open) dynalite's one process
  // hung up on some of them.
  env.dynalite ??= await startDynaliteChild()
  const raw = localDynamoClient(env.dynalite.endpoint)
  const counts = new Map<string, { requests: number; bytes: number }>()
  env.storeCounts = counts
  // What a deployment pays DynamoDB for: one entry per request the client sends, with its body size.
  raw.middlewareStack.add(
    (next, context) => async (args) => {
      const body = (args.request as { body?: unknown }).body
      const command = context.commandName ?? 'unknown'
      const entry = counts.get(command) ?? { requests: 0, bytes: 0 }
      entry.requests += 1
      entry.bytes += typeof body === 'string' ? Buffer.byteLength(body) : body instanceof Uint8Array ? body.byteLength : 0
      counts.set(command, entry)
      return next(args)
    },
    { step: 'finalizeRequest', name: 'benchStoreRequestCounter' },
  )
  const tableName = `bench-${randomUUID().slice(0, 8)}`
  await createTable(raw, tableName)
  return { store: new DynamoStore({ client: documentClient(raw), tableName }), close: () => raw.destroy() }
}

/** `per`: what the per-Golem figures divide by (the ticks; the fleet for an idle minute, which runs none). */
async function measure(
  env: Env,
  expectTicks: number,
  run: () => Promise<{ ticks: number; invocations: number }>,
  per = expectTicks,
): Promise<PhaseNumbers> {
  env.counts.clear()
  env.storeCounts?.clear()
  const chainPid = env.devnet.anvil.process.pid
  const chainBefore = childCpuMs(chainPid)
  // The store's emulator runs beside the ticks only on a dynalite row.
  const storePid = env.storeCounts ? env.dynalite?.pid : undefined
  const storeCpu = () => (storePid === undefined ? 0 : (childCpuMs(storePid) ?? 0))
  const benchBefore = processCpuMs() + storeCpu()
  const started = performance.now()
  const { ticks, invocations } = await run()
  const seconds = (performance.now() - started) / 1000
  const benchMs = processCpuMs() + storeCpu() - benchBefore
  const chainAfter = childCpuMs(chainPid)
  const cpu = { chainMs: chainBefore === null || chainAfter === null ? null : chainAfter - chainBefore, benchMs }
  if (ticks !== expectTicks) throw new Error(`heartbeat bench: ${ticks} ticks ran, ${expectTicks} expected`)
  const rpcByMethod = Object.fromEntries([...env.counts.entries()].sort())
  const rpc = [...env.counts.values()].reduce((a, b) => a + b, 0)
  const store = env.storeCounts && storeNumbers(env.storeCounts, per)
  return { ticks, invocations, per, seconds, ticksPerMinute: (ticks / seconds) * 60, rpc, rpcPerTick: rpc / per, rpcByMethod, store, cpu }
}

function storeNumbers(counts: Map<string, { requests: number; bytes: number }>, ticks: number): StoreNumbers {
  const byCommand = Object.fromEntries([...counts.entries()].sort().map(([k, v]) => [k, { ...v }]))
  const requests = [...counts.values()].reduce((a, b) => a + b.requests, 0)
  return { requests, requestsPerTick: requests / ticks, byCommand }
}

async function benchRow(
  env: Env,
  kind: StoreKind,
  golems: number,
  concurrency: number,
  log: (l: string) => void,
): Promise<HeartbeatBenchRow> {
  const { store, close } = await openStore(kind, env)
  try {
    const signers = new MemorySignerResolver(env.devnet.deployment)
    const fleet = await provisionFleet({
      keyCeiling: WHOLE_RUNWAY_ON_KEY,
      devnet: env.devnet,
      store,
      signers,
      owner: env.owner,
      count: golems,
      idPrefix: `${kind}${golems}`,
      periodAmount: USDC(10),
      log,
    })
    const failures: unknown[] = []
    const deps = (invocationId: string): TickDeps => ({
      store,
      client: env.client,
      deployment: env.devnet.deployment,
      signers,
      operator: env.devnet.operator.account as LocalAccount,
      invocationId,
      vitalityParameters: { shockProbabilityPerDay: 0 },
    })
    const invoker = new LocalInvoker(deps, { concurrency, onError: (_id, e) => failures.push(e) })
    // Counts the invocations the walks hand over, as a Lambda invoker would send them.
    let invocations = 0
    const counted = (via: TickInvoker): TickInvoker => ({
      invoke: (requests) => {
        invocations++
        return via.invoke(requests)
      },
      tickNeedParameters: () => invoker.tickNeedParameters(),
    })
    const heartbeatWith = (ticks: LocalInvoker, accepting?: AcceptingInvoker) => () => async () => {
      const before = ticks.results.length
      const invoked = invocations
      await runHeartbeat({ store, client: env.client, deployment: env.devnet.deployment, invoker: counted(accepting ?? ticks) })
      await accepting?.settle()
      if (failures.length > 0) throw new Error(`heartbeat bench: ${failures.length} ticks failed: ${String(failures[0])}`)
      return { ticks: ticks.results.length - before, invocations: invocations - invoked }
    }
    const heartbeat = heartbeatWith(invoker)
    /** Every Golem ticked, reading its own record and chain state, in invocations of 10 as the walks send them. */
    const tickEveryGolem = async () => {
      const before = invoker.results.length
      const baseline = new PerGolemReadInvoker(invoker)
      const batches: string[][] = []
      for (let i = 0; i < fleet.length; i += 10) batches.push(fleet.slice(i, i + 10).map((g) => g.golemId))
      await Promise.all(batches.map((ids) => baseline.invoke(ids.map((golemId) => ({ golemId })))))
      if (failures.length > 0) throw new Error(`heartbeat bench: ${failures.length} ticks failed: ${String(failures[0])}`)
      return { ticks: invoker.results.length - before, invocations: batches.length }
    }
    const redeemed = (ticks = invoker) => ticks.results.slice(-fleet.length).filter((r) => r.redemption?.status === 'confirmed').length

    // Warm-up: the first period's redemptions (first writes of every enforcer slot), not measured.
    await heartbeat()()
    // A day and the stagger window on: every Golem is past its offset into the period, so one heartbeat
    // measures the whole fleet's busy ticks (staggered, they would spread over the window's minutes).
    await env.devnet.increaseTime(86_400n + staggerWindow(86_400n))
    const busy = await measure(env, golems, heartbeat())
    if (redeemed() !== golems) throw new Error(`heartbeat bench: ${redeemed()} of ${golems} busy ticks redeemed`)
    log(`${kind} ${golems}: busy ${busy.ticksPerMinute.toFixed(0)} ticks/min, ${busy.rpcPerTick.toFixed(2)} RPC/tick`)
    await env.devnet.increaseTime(61)
    // The idle minute: every Golem observed, none handed over (0 ticks); per-Golem figures over the fleet.
    const idle = await measure(env, 0, heartbeat(), golems)
    log(
      `${kind} ${golems}: idle minute ${idle.invocations} invocations, ${idle.rpc} RPC, ${idle.store ? `${idle.store.requests} DynamoDB requests` : 'memory store'}`,
    )
    await env.devnet.increaseTime(61)
    const idlePerGolemRead = await measure(env, golems, tickEveryGolem)
    if (redeemed() !== 0) throw new Error('heartbeat bench: an idle tick redeemed')
    log(
      `${kind} ${golems}: baseline, every Golem ticked ${idlePerGolemRead.ticksPerMinute.toFixed(0)} ticks/min, ${idlePerGolemRead.rpc} RPC`,
    )

    // The next period on blocks: the chain mines every BLOCK_SECONDS, and the ticks run as the deployment
    // runs them (each waits for the block that carries its redemption).
    const inFlight = deployedInFlight(golems)
    const onBlocks = new LocalInvoker(deps, { concurrency: inFlight, onError: (_id, e) => failures.push(e) })
    await env.devnet.publicClient.request({ method: 'evm_setIntervalMining' as never, params: [BLOCK_SECONDS] as never })
    await env.devnet.increaseTime(86_400n)
    const busyOnBlocks = await measure(env, golems, heartbeatWith(onBlocks, new AcceptingInvoker(onBlocks))())
    if (redeemed(onBlocks) !== golems) throw new Error(`heartbeat bench: ${redeemed(onBlocks)} of ${golems} busy ticks on blocks redeemed`)
    log(
      `${kind} ${golems}: busy on ${BLOCK_SECONDS}-second blocks, ${inFlight} in flight: ${busyOnBlocks.ticksPerMinute.toFixed(0)} ticks/min`,
    )
    return {
      store: kind,
      golems,
      busy,
      idle,
      idlePerGolemRead,
      rpcRatio: idle.rpcPerTick / idlePerGolemRead.rpcPerTick,
      busyOnBlocks: { ...busyOnBlocks, blockSeconds: BLOCK_SECONDS, inFlight },
    }
  } finally {
    close()
  }
}

export async function runHeartbeatBench(options: HeartbeatBenchOptions = {}): Promise<HeartbeatBenchResult> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`))
  const sizes = options.sizes ?? [100, 1000]
  const stores = options.stores ?? ['memory', 'dynalite']
  const concurrency = options.concurrency ?? 8
  process.env.DO_NOT_TRACK ??= '1'
  let dynalite: DynaliteProcess | undefined
  try {
    const rows: HeartbeatBenchRow[] = []
    let provisionSeconds = 0
    for (const kind of stores) {
      for (const golems of sizes) {
        const started = performance.now()
        // Each row on a chain of its own: anvil's work a block grows with the chain's state, so a row run
        // after others would pay for their fleets too.
        const env = await openChain(dynalite)
        try {
          rows.push(await benchRow(env, kind, golems, concurrency, log))
        } finally {
          dynalite = env.dynalite
          await env.devnet.stop()
        }
        provisionSeconds +=
          (performance.now() - started) / 1000 -
          rows.at(-1)!.busy.seconds -
          rows.at(-1)!.idle.seconds -
          rows.at(-1)!.idlePerGolemRead.seconds -
          rows.at(-1)!.busyOnBlocks.seconds
      }
    }
    return {
      concurrency,
      cores: availableParallelism(),
      goalRpcPerIdleTick: GOAL_RPC_PER_IDLE_TICK,
      goalBusyTicksPerMinute: GOAL_BUSY_TICKS_PER_MINUTE,
      goalRpcPerBusyTick: GOAL_RPC_PER_BUSY_TICK,
      goalIdleInvocations: GOAL_IDLE_INVOCATIONS,
      goalIdleStoreRequests: GOAL_IDLE_STORE_REQUESTS,
      rows,
      provisionSeconds,
    }
  } finally {
    await dynalite?.stop()
  }
}

/** A fresh devnet, its counted client and a funded owner; the store emulator is shared between rows. */
async function openChain(dynalite: DynaliteProcess | undefined): Promise<Env> {
  const devnet = await startDevnet()
  try {
    const counts = new Map<string, number>()
    const client = withReceiptPolling(
      createPublicClient({ chain: devnet.chain, transport: countingTransport(devnet.rpcUrl, counts), pollingInterval: 25 }) as PublicClient,
    )
    const owner = await devnet.createOwner({ usdc: USDC(10_000_000) })
    return { devnet, client, counts, storeCounts: null, owner, ...(dynalite ? { dynalite } : {}) }
  } catch (error) {
    await devnet.stop()
    throw error
  }
}

export function formatHeartbeatBench(result: HeartbeatBenchResult): string {
  const n = (v: number, digits = 0) => (digits === 0 ? formatInt(v) : v.toFixed(digits))
  const speed = formatTable(
    [
      'store',
      { header: 'Golems', align: 'right' },
      { header: 'busy ticks/min', align: 'right' },
      { header: 'RPC per busy tick', align: 'right' },
      { header: 'idle minute: ticks', align: 'right' },
      { header: 'idle minute: invocations', align: 'right' },
      { header: 'baseline: idle ticks/min, every Golem ticked', align: 'right' },
    ],
    result.rows.map((r) => [
      r.store,
      n(r.golems),
      n(r.busy.ticksPerMinute),
      n(r.busy.rpcPerTick, 2),
      n(r.idle.ticks),
      n(r.idle.invocations),
      n(r.idlePerGolemRead.ticksPerMinute),
    ]),
  )
  const rpc = formatTable(
    [
      'store',
      { header: 'Golems', align: 'right' },
      { header: 'RPC per idle heartbeat', align: 'right' },
      { header: 'per Golem', align: 'right' },
      { header: 'baseline: every Golem ticked', align: 'right' },
      { header: 'per Golem', align: 'right' },
      { header: 'batched / baseline', align: 'right' },
      `goal <= ${result.goalRpcPerIdleTick}/Golem`,
    ],
    result.rows.map((r) => [
      r.store,
      n(r.golems),
      n(r.idle.rpc),
      n(r.idle.rpcPerTick, 4),
      n(r.idlePerGolemRead.rpc),
      n(r.idlePerGolemRead.rpcPerTick, 2),
      formatRatio(r.rpcRatio, 4),
      verdict(r.idle.rpcPerTick, result.goalRpcPerIdleTick),
    ]),
  )
  const ms = (v: number) => `${v.toFixed(1)} ms`
  const cpuRows = result.rows.flatMap((r) => {
    const split = busyTickCpu(r.busy, result.cores)
    return split ? [[r.store, n(r.golems), ms(split.chainMs), ms(split.benchMs), n(split.ceilingPerMinute), n(r.busy.ticksPerMinute)]] : []
  })
  const cpu =
    cpuRows.length > 0
      ? formatTable(
          [
            'store',
            { header: 'Golems', align: 'right' },
            { header: 'chain (anvil) CPU per busy tick', align: 'right' },
            { header: 'ticks and store CPU per busy tick', align: 'right' },
            { header: `ceiling on ${result.cores} cores, ticks/min`, align: 'right' },
            { header: 'measured, ticks/min', align: 'right' },
          ],
          cpuRows,
        )
      : null
  const onBlocks = formatTable(
    [
      'store',
      { header: 'Golems', align: 'right' },
      { header: 'ticks in flight', align: 'right' },
      { header: 'busy ticks/min', align: 'right' },
      { header: 'RPC per busy tick', align: 'right' },
      { header: 'DynamoDB requests per busy tick', align: 'right' },
      { header: 'chain (anvil) CPU per busy tick', align: 'right' },
      { header: 'ticks and store CPU per busy tick', align: 'right' },
    ],
    result.rows.map((r) => {
      const b = r.busyOnBlocks
      const split = busyTickCpu(b, result.cores)
      return [
        r.store,
        n(r.golems),
        n(b.inFlight),
        n(b.ticksPerMinute),
        n(b.rpcPerTick, 2),
        b.store ? n(b.store.requestsPerTick, 2) : 'memory store',
        split ? ms(split.chainMs) : 'unknown',
        split ? ms(split.benchMs) : ms(b.cpu.benchMs / Math.max(b.ticks, 1)),
      ]
    }),
  )
  const methods = (m: Record<string, number>) =>
    Object.entries(m)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')
  const largest = result.rows.at(-1)
  const commands = (s: StoreNumbers, ticks: number) =>
    Object.entries(s.byCommand)
      .map(([k, v]) => `${k} ${(v.requests / ticks).toFixed(2)} (${Math.round(v.bytes / Math.max(v.requests, 1))} B)`)
      .join(', ')
  const storeLines = result.rows
    .filter((r) => r.busy.store !== null)
    .flatMap((r) => [
      `${r.store} ${r.golems}: DynamoDB requests per busy tick ${r.busy.store!.requestsPerTick.toFixed(2)}: ${commands(r.busy.store!, r.busy.ticks)}`,
      `${r.store} ${r.golems}: DynamoDB requests per idle Golem-minute ${r.idle.store!.requestsPerTick.toFixed(4)}: ${commands(r.idle.store!, r.idle.per)}`,
      `${r.store} ${r.golems}: baseline, DynamoDB requests per idle tick when every Golem is ticked ${r.idlePerGolemRead.store!.requestsPerTick.toFixed(2)}: ${commands(r.idlePerGolemRead.store!, r.idlePerGolemRead.ticks)}`,
    ])
  const goalRow = result.rows.find((r) => r.store === GOAL_STORE && r.golems === GOAL_GOLEMS)
  const goal1 = goalOne(result)
  const goals = formatTable(
    ['goal', { header: 'measured', align: 'right' }, { header: 'target', align: 'right' }, 'verdict'],
    [
      [
        `busy ticks/min on blocks, ${GOAL_STORE} ${n(GOAL_GOLEMS)} Golems`,
        goalRow ? n(goalRow.busyOnBlocks.ticksPerMinute) : 'not run',
        `>= ${n(result.goalBusyTicksPerMinute)}`,
        goalRow ? verdict(goalRow.busyOnBlocks.ticksPerMinute, result.goalBusyTicksPerMinute, 'atLeast') : 'not run',
      ],
      [
        `JSON-RPC per busy tick, ${GOAL_STORE} ${n(GOAL_GOLEMS)} Golems`,
        goalRow ? n(goalRow.busy.rpcPerTick, 2) : 'not run',
        `<= ${result.goalRpcPerBusyTick}`,
        goalRow ? verdict(goalRow.busy.rpcPerTick, result.goalRpcPerBusyTick) : 'not run',
      ],
    ],
  )
  return [
    goal1,
    '',
    'Busy-tick goals:',
    '',
    goals,
    '',
    `Ticks per minute (LocalInvoker, ${result.concurrency} ticks in flight; anvil automine; this machine):`,
    '',
    speed,
    ...(cpu
      ? [
          '',
          "Where a busy tick's time goes (CPU time per busy tick; the ceiling is the most ticks a minute these cores could run at that cost):",
          '',
          cpu,
        ]
      : []),
    '',
    `The next period's busy heartbeat on blocks (the chain mines a block every ${result.rows[0]?.busyOnBlocks.blockSeconds ?? BLOCK_SECONDS} s, the target chain's block time; invocations accepted at once, as Lambda's asynchronous invoke accepts them; the deployment's ticks in flight: ${TICK_CONCURRENCY} at a time in each invocation of ${WALK_BATCH_SIZE} Golems):`,
    '',
    onBlocks,
    '',
    'JSON-RPC requests per idle tick (same period, nothing to redeem):',
    '',
    rpc,
    ...(largest
      ? [
          '',
          `${largest.store} ${largest.golems}: idle ${methods(largest.idle.rpcByMethod)}; per-Golem reads ${methods(largest.idlePerGolemRead.rpcByMethod)}; busy ${methods(largest.busy.rpcByMethod)}`,
        ]
      : []),
    ...(storeLines.length > 0 ? ['', 'DynamoDB requests per tick by command (average request body):', '', ...storeLines] : []),
  ].join('\n')
}

/**
 * Goal 1, from the idle heartbeat of the goal row (dynalite, 1,000 Golems; else the largest dynalite row):
 * tick invocations and DynamoDB requests per idle Golem-minute.
 */
export function goalOne(result: HeartbeatBenchResult): string {
  const idle = idleGolemMinute(result)
  const target = `${result.goalIdleInvocations} invocations, <= ${result.goalIdleStoreRequests} DynamoDB requests per idle Golem-minute`
  if (!idle) return `goal 1: not run (target ${target}): MISS`
  return `goal 1: ${idle.invocations} invocations, ${idle.requests.toFixed(4)} DynamoDB requests per idle Golem-minute at ${formatInt(idle.golems)} Golems on ${idle.store} (target ${target}): ${idle.pass ? 'PASS' : 'MISS'}`
}

function argList(name: string): string[] | undefined {
  const i = process.argv.indexOf(name)
  return i >= 0 ? (process.argv[i + 1] ?? '').split(',').filter(Boolean) : undefined
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const sizes = argList('--sizes')?.map(Number)
  const stores = argList('--stores') as StoreKind[] | undefined
  const concurrency = argList('--concurrency')?.map(Number)[0]
  const result = await runHeartbeatBench({
    ...(sizes ? { sizes } : {}),
    ...(stores ? { stores } : {}),
    ...(concurrency ? { concurrency } : {}),
  })
  console.log(formatHeartbeatBench(result))
}
