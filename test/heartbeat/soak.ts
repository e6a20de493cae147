// The soak: a fleet of Golems with short lives on anvil and dynalite (the real DynamoStore), ticked by the
// real heartbeat and tick through a JSON-RPC proxy that drops, delays, fails and loses answers (sends
// that land unanswered included), while the chain is reorganised now and then: the last 1-3 blocks
// dropped (anvil_rollback), transactions and all, and now and then a Golem's tick runs in a process of
// its own that is SIGKILLed mid-tick (right after it broadcasts, or at a random moment). Time moves in 30-second steps between heartbeats and a
// day between days, until every Golem is dead or the wall-clock budget is spent. Then the chain is the
// judge: per Golem, what left the owner's account for the key, what came home, what the key still holds
// and what went anywhere else, every redemption once per period, and every redemption the store records
// as confirmed present on the chain. `npm run soak` prints the report; test/heartbeat/soak.test.ts runs a
// short one.
import type { Address, Hex } from 'viem'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import { seededRandom, startRpcFaultProxy, type FaultRates, type RpcProxyStats } from '../support/rpcFaultProxy.ts'
import { crashArgsOn, crashingTick } from './crashingTick.ts'
import type { Store } from '../../core/store/index.ts'
import { provisionFleet, type FleetGolem } from './fleet.ts'
import {
  clientThrough,
  DAY,
  USDC,
  allEvents,
  chainNow,
  passStaggerOffsets,
  periodAt,
  redemptionsBy,
  startHeartbeatEnv,
  usdcBalance,
  usdcTransfersFrom,
  WHOLE_RUNWAY_ON_KEY,
} from './harness.ts'

export type SoakOptions = {
  golems: number
  /** Wall-clock budget; the soak stops earlier once every Golem is dead. */
  minutes: number
  /** Each Golem's life in days of chain time (default 3). */
  runwayDays?: number
  /** PRNG seed of the faults and reorgs. */
  seed?: number
  /** Per-request fault rates on every JSON-RPC call (default: a quarter of requests faulted). */
  rpcFaults?: FaultRates
  /** Probability, per heartbeat round, that the chain drops its last 1-3 blocks afterwards (default 0.1). */
  reorgRate?: number
  /**
   * Probability, per heartbeat round, that one living Golem's tick runs in a worker process that is
   * SIGKILLed mid-tick (default 0.1).
   */
  killRate?: number
  /**
   * Keep the fleet's size until the budget is spent: when a generation has died, provision the next
   * (every generation judged at the end). Default: one generation.
   */
  refill?: boolean
  log?: (line: string) => void
}

export type GolemAccount = {
  golemId: string
  /** USDC the owner's account sent the key (redemptions). */
  toKey: bigint
  /** USDC the key sent back to the owner (rotation and death returns). */
  home: bigint
  /** USDC the key holds at the end. */
  held: bigint
  /** USDC the key sent anywhere but the owner's account. */
  elsewhere: bigint
  redemptions: number
  /** Periods redeemed more than once on the chain. */
  doubled: number
  /** Redemptions the store records (RunwayRedeemed) whose transaction is not on the chain. */
  lost: number
  dead: boolean
  /** Stopped by the heartbeat anomaly (its ticks failed too many times in a row). */
  halted: boolean
  /** The record's status and its last tick's outcome at the end: where a Golem that did not die stopped. */
  status: string
  lastOutcome: string
  /** toKey === home + held + elsewhere, nothing elsewhere, nothing left on a dead Golem's key. */
  conserved: boolean
}

export type SoakReport = {
  /** Golems provisioned, every generation's. */
  golems: number
  generations: number
  seconds: number
  rounds: number
  days: number
  ticks: number
  tickErrors: number
  /** The failed ticks by their error's first line, most frequent first. */
  failures: [string, number][]
  heartbeatErrors: number
  reorgs: { count: number; blocksDropped: number }
  /** Ticks run in a worker process to be killed: `killed` by SIGKILL (by where), `finished` before the kill came. */
  kills: { attempted: number; killed: number; finished: number; byMoment: Record<string, number> }
  rpc: RpcProxyStats
  deaths: number
  accounts: GolemAccount[]
  /** Stopped by its wall-clock budget before every Golem's life was over. */
  cut: boolean
  /** Every Golem conserved, none doubled, none lost, and (unless cut) every one dead. */
  held: boolean
}

const SEND = 'eth_sendRawTransactionSync'
const PLAIN_SEND = 'eth_sendRawTransaction'
const DEFAULT_FAULTS: FaultRates = { drop: 0.06, delay: 0.08, fail: 0.06, loseResponse: 0.05 }
const SEND_FAULTS: FaultRates = { loseResponse: 0.2, drop: 0.05, fail: 0.05 }
const MAX_ROUNDS_PER_DAY = 150
/**
 * The chain's confirmation depth in the soak: deeper than its deepest reorg (3 blocks), as a deployment's
 * must be deeper than its chain's (docs/reliability.md, "Depths"); a slot final at a shallower depth can
 * be reorged after it was settled, and nothing looks at it again.
 */
const CONFIRMATIONS = 4
/** Where a killed tick dies: right after broadcasting one of these steps (`any`: its first), or at a random moment. */
const KILL_STEPS = ['runway', 'phase', 'deregister', 'return-token', 'return-native', 'any'] as const
/** The latest random moment of a kill from outside, after the worker starts (its start-up takes about a second). */
const MAX_KILL_DELAY_MS = 2_500
const LEASE_MS = 10_000
/** Golems judged at once at the end. */
const ACCOUNTS_AT_ONCE = 20

export class SoakOptionsError extends Error {
  constructor(field: string, rule: string) {
    super(`${field}: ${rule}`)
  }
}

export function checkSoakOptions(o: SoakOptions): void {
  if (!Number.isInteger(o.golems) || o.golems < 1 || o.golems > 2_000)
    throw new SoakOptionsError('golems', 'must be a whole number from 1 to 2000')
  if (!Number.isFinite(o.minutes) || o.minutes <= 0 || o.minutes > 24 * 60)
    throw new SoakOptionsError('minutes', 'must be more than 0 and at most 1440')
  const days = o.runwayDays ?? 3
  if (!Number.isInteger(days) || days < 1 || days > 30) throw new SoakOptionsError('runwayDays', 'must be a whole number from 1 to 30')
  const rate = o.reorgRate ?? 0.1
  if (!(rate >= 0 && rate <= 1)) throw new SoakOptionsError('reorgRate', 'must be from 0 to 1')
  const kill = o.killRate ?? 0.1
  if (!(kill >= 0 && kill <= 1)) throw new SoakOptionsError('killRate', 'must be from 0 to 1')
}

export async function runSoak(o: SoakOptions): Promise<SoakReport> {
  checkSoakOptions(o)
  const log = o.log ?? (() => undefined)
  const runwayDays = o.runwayDays ?? 3
  const seed = o.seed ?? 20_261_128
  const random = seededRandom(seed)
  const started = performance.now()
  const deadline = started + o.minutes * 60_000
  const env = await startHeartbeatEnv()
  const proxy = await startRpcFaultProxy({ target: env.devnet.rpcUrl, seed })
  try {
    const faulty = clientThrough(env, proxy.url)
    // The owner's account is paid enough for every generation's whole lives: a soak never starves.
    const owner = await env.devnet.createOwner({ usdc: 0n })
    const usdc = env.devnet.deployment.assets.usdc
    const keys = new Map<string, Hex>()
    const fleets: FleetGolem[][] = []
    const provision = async (generation: number): Promise<FleetGolem[]> => {
      log(`soak: provisioning ${o.golems} Golems with ${runwayDays}-day lives${generation > 1 ? ` (generation ${generation})` : ''}`)
      await env.devnet.mintUsdc(owner.address, USDC(10) * BigInt(o.golems * (runwayDays + 1)))
      const fleet = await provisionFleet({
        exportKeys: keys,
        keyCeiling: WHOLE_RUNWAY_ON_KEY,
        devnet: env.devnet,
        store: env.store,
        signers: env.signers,
        owner,
        count: o.golems,
        idPrefix: generation === 1 ? 'soak' : `soak-g${generation}`,
        periodAmount: USDC(10),
        runwayDays,
      })
      await passStaggerOffsets(
        env.devnet,
        fleet.map((g) => g.golemId),
      )
      fleets.push(fleet)
      return fleet
    }
    let fleet = await provision(1)
    proxy.setFaults(o.rpcFaults ?? DEFAULT_FAULTS, { [SEND]: SEND_FAULTS, [PLAIN_SEND]: SEND_FAULTS })
    let tickErrors = 0
    let heartbeatErrors = 0
    const failures = new Map<string, number>()
    const invoker = new LocalInvoker(
      (id) =>
        env.deps(id, {
          client: faulty,
          leaseMs: LEASE_MS,
          tickIntervalSeconds: 3_600,
          confirmations: { [env.devnet.chain.id]: CONFIRMATIONS },
        }),
      {
        onError: (_id, e) => {
          tickErrors++
          const what = (e instanceof Error ? `${e.name}: ${e.message}` : String(e)).split('\n')[0]!.slice(0, 120)
          failures.set(what, (failures.get(what) ?? 0) + 1)
        },
      },
    )
    const reorgs = { count: 0, blocksDropped: 0 }
    const kills: SoakReport['kills'] = { attempted: 0, killed: 0, finished: 0, byMoment: {} }
    /** One living Golem's tick in a worker process, SIGKILLed after a step's broadcast or at a random moment. */
    const killOne = async (living: readonly string[]) => {
      const golemId = living[Math.floor(random() * living.length)]!
      const atRandom = random() < 0.5
      const step = KILL_STEPS[Math.floor(random() * KILL_STEPS.length)]!
      const delay = Math.floor(random() * MAX_KILL_DELAY_MS)
      kills.attempted++
      const exit = await crashingTick(
        crashArgsOn(env, {
          golemId,
          invocationId: `soak-kill-${kills.attempted}`,
          crashAfter: atRandom ? 'none' : step,
          leaseMs: LEASE_MS,
          confirmations: CONFIRMATIONS,
          tickIntervalSeconds: 3_600,
        }),
        keys.get(golemId)!,
        atRandom ? { killAfterMs: delay } : {},
      )
      if (exit.signal !== 'SIGKILL') {
        kills.finished++
        return
      }
      kills.killed++
      const moment = atRandom ? 'at a random moment' : `after ${step}`
      kills.byMoment[moment] = (kills.byMoment[moment] ?? 0) + 1
    }
    let rounds = 0
    let days = 0
    const alive = async () => (await fleetRecords(env.store, fleet)).filter((r) => r?.status !== 'dead')
    for (let generation = 1; ; generation++) {
      if (generation > 1) fleet = await provision(generation)
      let lifeDays = 0
      while (performance.now() < deadline && (await alive()).length > 0 && lifeDays <= runwayDays + 10) {
        const dayStartMs = Number(await chainNow(env.client)) * 1000
        for (let round = 0; round < MAX_ROUNDS_PER_DAY && performance.now() < deadline; round++) {
          rounds++
          const before = await env.client.getBlockNumber()
          await runHeartbeat({ store: env.store, client: faulty, deployment: env.devnet.deployment, invoker }).catch(
            () => heartbeatErrors++,
          )
          if (random() < (o.killRate ?? 0.1)) {
            const living = (await alive()).map((r) => r!.golemId)
            if (living.length > 0) await killOne(living)
          }
          // A reorganisation: 1-3 of the blocks this heartbeat mined leave the chain with their transactions
          // (never an older block: the clock's steps stay on the chain).
          const mined = Number((await env.client.getBlockNumber()) - before)
          if (mined > 0 && random() < (o.reorgRate ?? 0.1)) {
            const depth = Math.min(mined, 1 + Math.floor(random() * 3))
            await env.client.request({ method: 'anvil_rollback' as never, params: [depth] as never })
            reorgs.count++
            reorgs.blocksDropped += depth
          }
          const records = await fleetRecords(env.store, fleet)
          const done = records.every(
            (r) => r?.status === 'dead' || (r?.lastTick && r.lastTick.at >= dayStartMs && r.lastTick.outcome !== 'running'),
          )
          if (done) break
          await env.devnet.increaseTime(30)
        }
        days++
        lifeDays++
        log(`soak: day ${days} done after ${rounds} rounds, ${invoker.results.length} ticks, ${reorgs.count} reorgs`)
        await env.devnet.increaseTime(DAY)
      }
      // With refill, a new generation takes the dead one's place until the budget is spent.
      if (!o.refill || performance.now() >= deadline) break
    }
    proxy.setFaults({})
    const cut = performance.now() >= deadline
    // The owner's transfers read once; the Golems judged a few at a time (a thousand at once time out).
    const fromOwner = await usdcTransfersFrom(env.client, usdc, owner.address)
    const accounts: GolemAccount[] = []
    const everyGolem = fleets.flat()
    for (let i = 0; i < everyGolem.length; i += ACCOUNTS_AT_ONCE)
      accounts.push(
        ...(await Promise.all(everyGolem.slice(i, i + ACCOUNTS_AT_ONCE).map((g) => accountOf(env, g, owner.address, usdc, fromOwner)))),
      )
    return {
      golems: fleets.flat().length,
      generations: fleets.length,
      seconds: Math.round((performance.now() - started) / 1000),
      rounds,
      days,
      ticks: invoker.results.length,
      tickErrors,
      failures: [...failures].sort((a, b) => b[1] - a[1]),
      heartbeatErrors,
      reorgs,
      kills,
      rpc: proxy.stats,
      deaths: accounts.filter((a) => a.dead).length,
      accounts,
      cut,
      // Every generation but a last one the budget cut must have died.
      held: accounts.every(
        (a, i) => a.conserved && a.doubled === 0 && a.lost === 0 && (a.dead || (cut && i >= accounts.length - fleet.length)),
      ),
    }
  } finally {
    await proxy.stop()
    await env.stop()
  }
}

/**
 * The soak's own reads of its fleet (who lives, who ticked today). On a loaded machine dynalite now and
 * then drops a connection: the soak asks again rather than end the run (the ticks answer such a fault
 * for themselves, and that is what the soak measures).
 */
async function fleetRecords(store: Pick<Store, 'getGolem'>, fleet: readonly FleetGolem[]) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await Promise.all(fleet.map((g) => store.getGolem(g.golemId)))
    } catch (error) {
      if (attempt >= 5) throw error
      await new Promise((resume) => setTimeout(resume, 500 * attempt))
    }
  }
}

/** One Golem's money and redemptions as the chain has them, against what the store records. */
async function accountOf(
  env: Awaited<ReturnType<typeof startHeartbeatEnv>>,
  g: FleetGolem,
  owner: Address,
  usdc: Address,
  fromOwner: Awaited<ReturnType<typeof usdcTransfersFrom>>,
): Promise<GolemAccount> {
  const toKey = fromOwner.filter((t) => t.to === g.golemKey).reduce((s, t) => s + t.value, 0n)
  const out = await usdcTransfersFrom(env.client, usdc, g.golemKey)
  const home = out.filter((t) => t.to === owner).reduce((s, t) => s + t.value, 0n)
  const elsewhere = out.filter((t) => t.to !== owner).reduce((s, t) => s + t.value, 0n)
  const held = await usdcBalance(env.client, usdc, g.golemKey)
  const redemptions = await redemptionsBy(env.client, env.devnet.deployment.environment.DelegationManager, g.golemKey)
  const periods = redemptions.map((r) => periodAt(g.profile, r.timestamp))
  const doubled = periods.length - new Set(periods).size
  const onChain = new Set(redemptions.map((r) => r.txHash.toLowerCase()))
  // What the store says was redeemed (its RunwayRedeemed events, each with its transaction), not on the chain.
  const recorded = (await allEvents(env.store, g.golemId)).filter((e) => e.type === 'RunwayRedeemed')
  const lost = recorded.filter((e) => !onChain.has(String(e.data.txHash).toLowerCase())).length
  const record = await env.store.getGolem(g.golemId)
  const dead = record?.status === 'dead'
  const halted = record?.lastTick?.outcome === 'halted'
  const status = record?.status ?? 'missing'
  const lastOutcome = record?.lastTick
    ? `${record.lastTick.outcome}${record.lastTick.failures ? ` (${record.lastTick.failures} failed in a row)` : ''}`
    : 'never ticked'
  const conserved = toKey === home + held + elsewhere && elsewhere === 0n && (!dead || held === 0n)
  return {
    golemId: g.golemId,
    toKey,
    home,
    held,
    elsewhere,
    redemptions: redemptions.length,
    doubled,
    lost,
    dead,
    halted,
    status,
    lastOutcome,
    conserved,
  }
}

/** The report as the soak prints it. */
export function soakLines(r: SoakReport): string[] {
  const usdc = (v: bigint) => `${Number(v) / 1e6} USDC`
  const faults = Object.entries(r.rpc.byKind)
    .filter(([k]) => k !== 'ok')
    .map(([k, n]) => `${k} ${n}`)
    .join(', ')
  const kills = Object.entries(r.kills.byMoment)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ')
  const lines = [
    `soak: ${r.golems} Golems${r.generations > 1 ? ` in ${r.generations} generations` : ''}, ${r.seconds} s, ${r.days} days of chain time, ${r.rounds} heartbeats, ${r.ticks} ticks completed (${r.tickErrors} failed and retried, ${r.heartbeatErrors} heartbeats failed)`,
    `faults survived: ${r.rpc.faulted} of ${r.rpc.requests} JSON-RPC requests (${faults}); ${r.reorgs.count} reorgs dropping ${r.reorgs.blocksDropped} blocks; ${r.kills.killed} ticks SIGKILLed mid-tick (${kills || 'none'}), ${r.kills.finished} more finished before their kill`,
    `held: ${r.accounts.reduce((s, a) => s + a.redemptions, 0)} redemptions, ${r.deaths} of ${r.golems} dead${r.cut ? ' (cut by the time budget)' : ''}, doubled ${r.accounts.reduce((s, a) => s + a.doubled, 0)}, lost ${r.accounts.reduce((s, a) => s + a.lost, 0)}`,
  ]
  for (const [what, n] of r.failures.slice(0, 5)) lines.push(`  failed ${n}x: ${what}`)
  for (const a of r.accounts)
    lines.push(
      `  ${a.golemId}: to key ${usdc(a.toKey)} = home ${usdc(a.home)} + held ${usdc(a.held)} + elsewhere ${usdc(a.elsewhere)}: ${a.conserved ? 'conserved' : 'NOT CONSERVED'}; ${a.redemptions} redemptions${a.doubled ? `, ${a.doubled} doubled` : ''}${a.lost ? `, ${a.lost} lost` : ''}${a.dead ? ', dead' : a.halted ? ', halted' : `, ${a.status}`}; last tick ${a.lastOutcome}`,
    )
  lines.push(`soak: ${r.held ? 'HELD' : 'BROKE'}`)
  return lines
}
