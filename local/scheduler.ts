// The local stack's heartbeat scheduler: a heartbeat every beat over every Golem in the store (ticks in
// this process, as the deployed tick function runs them), the demo Golem's strategy beat after its tick,
// the owner's rotation requests between two heartbeats, and a block per beat on the devnet. It keeps
// nothing a restart needs in memory: exactly-once comes from the store (a tick claims its slot before it
// sends), the keys from the stack's keystore, and the console's running totals from a small state file.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import type { Account, Chain, PublicClient, Transport } from 'viem'
import { runHeartbeat } from '../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../app/heartbeat/invokers.ts'
import type { TickDeps } from '../app/tick/types.ts'
import { Limiter } from '../app/concurrency.ts'
import { runtimeByDelegation } from '../app/tick/paymentByDelegation.ts'
import { selfExtensionConfig } from '../app/tick/selfExtensionConfig.ts'
import type { SignerResolver } from '../core/custody/signerResolver.ts'
import type { BardoDeployment } from '../core/deployment.ts'
import type { PermissionPlan } from '../core/permissions/index.ts'
import type { Store } from '../core/store/index.ts'
import { dcaBeat } from '../client/dcaBeat.ts'
import { golemActions, inProcessTransport, type GolemActions } from '../client/golemActions.ts'
import { DEFAULT_PRICING } from '../functions/api/local.ts'
import type { Address } from 'viem'
import type { AttachedDevnet, OwnerAccount } from './devnet.ts'
import { regrantDemoActions } from './demoStrategy.ts'
import { RepeatedLines, refusalKey } from './repeatedLines.ts'
import { LocalKeyRotation } from './rotation.ts'
import { LocalRotation } from './rotationRequest.ts'
import type { StackKeys } from './stackKeys.ts'
import { moneyLines, progressLine, returnLines } from './consoleLines.ts'

export type SchedulerSettings = {
  secondsPerBeat: number
  beatMs: number
  lifeSeconds: number
  tickSeconds: number
  maxFailedTicks: number
  runtimePayment: 'key' | 'delegation'
}

export type SchedulerDeps = {
  store: Store
  publicClient: PublicClient<Transport, Chain>
  deployment: BardoDeployment
  usdc: Address
  operator: Account
  settlement: Address
  signers: SignerResolver
  keys: StackKeys
  apiUrl: string
  settings: SchedulerSettings
  /** The local devnet (this stack's anvil); absent on a real chain. */
  devnet?: AttachedDevnet
  /** The demo Golem: its owner (whose key this stack holds), its plan, its birth and its strategy's slice. */
  demo?: { owner: OwnerAccount; plan: PermissionPlan; bornAt: bigint; sliceUsdc: bigint }
  /** Where the console's running totals survive a restart of this process. */
  statePath: string
  log: (line: string) => void
  until: Promise<void>
}

type ConsoleState = { redeemedTotal: string; deathAnnounced: boolean; strategyBeats: number }

function readConsoleState(path: string): ConsoleState {
  if (!existsSync(path)) return { redeemedTotal: '0', deathAnnounced: false, strategyBeats: 0 }
  return JSON.parse(readFileSync(path, 'utf8')) as ConsoleState
}

/**
 * How long a tick of this scheduler owns its Golem and its slots on the stack's own chain. Deployed, the
 * lease is the tick function's timeout: only then is a silent invocation surely gone. Here the ticks run
 * in this process, one heartbeat at a time, and the runner starts it again the moment it dies; anvil
 * mines each transaction as it arrives. So the lease only has to outlast a live tick: a tick the crash cut
 * short must not keep its Golem from the restarted scheduler for two minutes of a life of a few. A
 * `bardo run` beside the stack could see its tick overtaken after this; the slots still send each
 * transaction once (a tick that lost its slot's lease never broadcasts).
 */
export const DEVNET_LEASE_MS = 10_000

/** The tick dependencies and the owner's rotation, as this scheduler runs them. */
export function schedulerParts(d: SchedulerDeps) {
  const { devnet, demo, settings } = d
  const rotation =
    devnet && demo
      ? new LocalKeyRotation(d.deployment, demo.owner, d.keys, async (address) => {
          await devnet.publicClient.waitForTransactionReceipt({
            hash: await devnet.deployer.sendTransaction({ to: address, value: 10n ** 18n }),
          })
        })
      : undefined
  // The demo Golem buys its own runtime from the stack's API, paying the operator (the API's payTo) in USDC.
  // Its life is minutes long, so it keeps half a life of TTL ahead: it buys while it still thrives.
  const selfExtension = selfExtensionConfig({
    apiUrl: d.apiUrl,
    asset: d.usdc,
    payee: d.operator.address,
    runtimeCostPerHour: DEFAULT_PRICING.runtimeCostPerHour,
    marginSeconds: BigInt(Math.floor(settings.lifeSeconds / 2)),
    // Paid by delegation, only the API's settlement account may redeem a payment.
    ...(settings.runtimePayment === 'delegation' ? { byDelegation: runtimeByDelegation(d.deployment.environment, [d.settlement]) } : {}),
  })
  const tickDeps = (invocationId: string): TickDeps => ({
    store: d.store,
    client: d.publicClient,
    deployment: d.deployment,
    signers: d.signers,
    operator: d.operator as never,
    invocationId,
    credits: { runtimeCostPerHour: DEFAULT_PRICING.runtimeCostPerHour },
    ...(selfExtension ? { selfExtension } : {}),
    tickIntervalSeconds: devnet ? settings.tickSeconds : undefined,
    ...(devnet ? { leaseMs: DEVNET_LEASE_MS } : {}),
    maxConsecutiveFailures: settings.maxFailedTicks,
    ...(rotation ? { rotation } : {}),
  })
  // One turn at a time: a heartbeat with the demo's strategy beat, or a rotation the owner asked for.
  const turns = new Limiter(1)
  const ownerRotation =
    rotation && demo && devnet
      ? new LocalRotation({
          deps: (invocationId) => ({ ...tickDeps(invocationId), rotation }),
          keys: d.keys,
          client: d.publicClient,
          chainId: d.deployment.chainId,
          owner: demo.owner.address,
          serial: (task) => turns.run(task),
          afterRotation: async (r) => {
            d.log(`               session key of '${r.golemId}' rotated ${r.from} -> ${r.to} (operator, on the owner's request)`)
            if (r.golemId === 'demo')
              d.log(`               ${await regrantDemoActions({ devnet, store: d.store, owner: demo.owner, plan: demo.plan }, r.to)}`)
          },
        })
      : undefined
  return { tickDeps, turns, ownerRotation }
}

export async function runScheduler(d: SchedulerDeps, parts: ReturnType<typeof schedulerParts>): Promise<void> {
  const { devnet, demo, settings, store, log } = d
  const { tickDeps, turns } = parts
  let stopping = false
  void d.until.then(() => {
    stopping = true
  })
  const invoker = new LocalInvoker(tickDeps, {
    onError: (id, e) => log(`tick ${id} failed: ${e instanceof Error ? e.message : String(e)} (the next beat retries)`),
  })
  // The demo Golem's runtime lives its strategy through custody's action path: each of its ticks a DCA
  // slice (approve + swap USDC for WETH on the local router, sized so the whole life fits the swap's
  // daily limit); every fourth asks a minimum output 3% under the feed, past the grant's MaxSlippage,
  // so the console shows custody refusing it in words.
  const runtime =
    devnet && demo
      ? golemActions({
          golemId: 'demo',
          transport: inProcessTransport({
            store,
            client: d.publicClient,
            deployment: d.deployment,
            signers: d.signers,
            invocationId: 'demo-runtime',
          }),
        })
      : undefined
  const state = readConsoleState(d.statePath)
  const save = () => writeFileSync(d.statePath, JSON.stringify(state), { mode: 0o600 })
  // A refusal the demo meets beat after beat is printed once, then counted.
  const strategyLines = new RepeatedLines('               ')
  let redeemedTotal = BigInt(state.redeemedTotal)
  let seen = 0
  const accelerated = devnet !== undefined && settings.secondsPerBeat > 0
  while (!stopping) {
    await turns.run(async () => {
      try {
        const beat = await runHeartbeat({ store, client: d.publicClient, deployment: d.deployment, invoker })
        // The console follows the demo's own ticks: other Golems in the store tick without a line.
        const fresh = invoker.results.slice(seen).filter((r) => r.golemId === 'demo')
        seen = invoker.results.length
        for (const r of fresh) if (r.redemption?.status === 'confirmed') redeemedTotal += r.redemption.amount ?? 0n
        state.redeemedTotal = redeemedTotal.toString()
        const result = fresh.at(-1)
        const record = demo && !state.deathAnnounced ? await store.getGolem('demo') : undefined
        if (demo && !state.deathAnnounced && result) {
          log(progressLine(Number(beat.timestamp - demo.bornAt), result, { redeemedTotal }))
          for (const line of moneyLines(result)) log(`               ${line}`)
          if (result.rotated)
            log(`               session key rotated ${result.rotated.from} -> ${result.rotated.to} (${result.rotated.reason})`)
          // The strategy beats with the Golem's own ticks: a tick that found another holding the Golem's
          // lease (busy) did nothing, and neither does the strategy, or it would swap more often than it plans.
          if (runtime && devnet && record?.status !== 'dead' && result.outcome === 'ticked') {
            const strategy = await strategyBeat(devnet, runtime, demo.sliceUsdc, ++state.strategyBeats % 4 === 0 ? 300 : 50).catch(
              (e: unknown) => `strategy beat failed: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`,
            )
            for (const line of strategyLines.next(`               ${strategy}`, refusalKey(strategy))) log(line)
          }
        }
        // Announced once, even when this process restarted between the death and its announcement.
        if (demo && !state.deathAnnounced && record?.status === 'dead') {
          state.deathAnnounced = true
          for (const line of strategyLines.flush()) log(line)
          const death = await store.getDeathSettlement('demo')
          log(
            `the demo Golem died: ${death?.kind ?? 'DelegationExpiry'} (${String((death?.settlement as { expiryCause?: string } | undefined)?.expiryCause ?? '')}); the stack stays up for the API and the indexer`,
          )
          for (const line of returnLines(death?.settlement)) log(`               ${line}`)
        }
        save()
      } catch (error) {
        log(`heartbeat failed: ${error instanceof Error ? error.message : String(error)} (retrying)`)
      }
    })
    // A real chain beats like the cron on AWS: once a minute unless BARDO_BEAT_MS says otherwise.
    await Promise.race([d.until, new Promise((r) => setTimeout(r, settings.beatMs))])
    if (stopping) break
    // Anvil mines only on transactions: a block per beat keeps chain time with the wall clock (or
    // moves it on, when BARDO_SECONDS_PER_BEAT asks for an accelerated life).
    if (devnet)
      await (accelerated && !state.deathAnnounced ? devnet.increaseTime(settings.secondsPerBeat) : devnet.mine()).catch(() => undefined)
  }
  for (const line of strategyLines.flush()) log(line)
}

/** One beat of the demo's DCA strategy through the action path, with the local feeds fresh first. */
async function strategyBeat(devnet: AttachedDevnet, actions: GolemActions, sliceUsdc: bigint, slippageBps: number): Promise<string> {
  const { router, usdc, weth } = devnet.deployment.assets
  await devnet.refreshFeeds()
  const { line } = await dcaBeat({ actions, router, usdc, weth, sliceUsdc, wethPerUsdc: 10n ** 18n / 3_000n, slippageBps })
  return `strategy: ${line}`
}
