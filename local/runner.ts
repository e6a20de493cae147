// The local runner behind `npm start`: the whole system on 127.0.0.1 — anvil with the real MetaMask
// framework and the Bardo contracts, dynalite, the Ponder indexer on PGlite, the HTTP API and the
// heartbeat scheduler (the last four each a process the runner restarts after a crash) — plus a demo
// Golem provisioned from examples/STRATEGY.md whose life is minutes long on an honest chain clock.
// SIGINT/SIGTERM stop every process it started.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseEther } from 'viem'
import { formatSpan, usdc } from './consoleLines.ts'
import { STACK_KEY_SECRET_ENV, newStackKey, removeStackKeys, stackKeys } from './stackKeys.ts'
import { forwardedRotation, writeSchedulerConfig } from './schedulerConfig.ts'
import { supervise } from './supervisor.ts'
import { programCommand } from './program.ts'
import { READ_KEY_HASH_ENV, type ApiConfig } from './apiConfig.ts'
import { hashApiKey } from '../core/ratelimit/tiers.ts'
import { freePort } from '../indexer/start.ts'
import { privySettingsFromEnv } from '../adapters/signers/privySettings.ts'
import { HeartbeatAnomalyConfigError, parseMaxConsecutiveFailures } from '../core/lifecycle/heartbeatAnomaly.ts'
import { demoSliceUsdc } from './demoStrategy.ts'
import { superviseIndexer, type SupervisedIndexer } from './indexerProcess.ts'
import { stackIndexerOptions } from '../indexer/lib/deployment.ts'
import { FAUCET_ACCOUNT_INDEX } from './devnet.ts'
import { connectChain, type StackChain } from './chain.ts'
import { openStore } from './store.ts'
import { provisionGolemAt } from './provision.ts'
import { localReadKey } from './readKey.ts'
import { localOwnerKey } from './ownerKey.ts'
import { DEPLOYMENT_FILE, removeStackInfo, writeStackInfo } from './stackFile.ts'
import { writeDeploymentFile } from './chain.ts'
import { PORTAL_PORT, startDashboard } from './dashboard.ts'
import { LocalStackError } from './errors.ts'

export type RunLocalStackOptions = {
  log: (line: string) => void
  /** Resolves when the stack should stop; defaults to the first SIGINT or SIGTERM. */
  until?: Promise<void>
  env?: NodeJS.ProcessEnv
}

export type LocalStackSettings = {
  stateDir: string
  /**
   * Chain seconds each heartbeat moves time forward; 0 (the default) keeps the chain clock with the
   * wall clock. Anything else breaks every client that signs with its own clock (x402 payers).
   */
  secondsPerBeat: number
  beatMs: number
  apiPort: number | undefined
  dashboardPort: number | undefined
  strategyPath: string
  /** The demo Golem's life window (its grant's end and its runway), in seconds. */
  lifeSeconds: number
  /** The demo Golem's runway period (one allowance per period), in seconds. */
  periodSeconds: number
  /** Seconds between a Golem's ticks (chain time). */
  tickSeconds: number
  /** Ticks of one Golem that may fail in a row before it is halted (core/lifecycle/heartbeatAnomaly.ts). */
  maxFailedTicks: number
  indexer: boolean
  /**
   * How the Golems pay their runtime: `key` redeems the runway to the key, which pays by EIP-3009;
   * `delegation` pays by delegation from the owner's grant, and the key never holds the money.
   */
  runtimePayment: 'key' | 'delegation'
}

/** Where the running stack writes its addresses for `npm run faucet` and clients (removed at stop). */
export { STACK_FILE } from './stackFile.ts'

/** Anvil's test accounts the stack uses; a payer must bring another key (the faucet funds any address). */
export const reservedDevnetAccounts = [
  { index: 0, role: 'deployer: deploys the contracts, mints test USDC, funds session keys, posts the local feeds' },
  { index: 1, role: 'operator: owns the VitalityOracle, receives x402 payments' },
  { index: 2, role: 'settlement: submits x402 transferWithAuthorization' },
  { index: FAUCET_ACCOUNT_INDEX, role: 'faucet: sends test USDC and ETH from its reserve (npm run faucet)' },
] as const

/** Reads the documented environment variables (README "Configuration"). */
export function localStackSettings(env: NodeJS.ProcessEnv = process.env): LocalStackSettings {
  const int = (name: string, fallback: number, min = 0) => {
    const raw = env[name]
    if (raw === undefined || raw === '') return fallback
    const n = Number(raw)
    if (!Number.isInteger(n) || n < min)
      throw new LocalStackError('LOCAL_CONFIG', `${name}: must be an integer of at least ${min}, got ${raw}`)
    return n
  }
  const lifeSeconds = int('BARDO_LIFE_SECONDS', 12 * 60, 1)
  const periodSeconds = int('BARDO_PERIOD_SECONDS', 60, 1)
  if (periodSeconds > lifeSeconds)
    throw new LocalStackError(
      'LOCAL_CONFIG',
      `BARDO_PERIOD_SECONDS: must not exceed BARDO_LIFE_SECONDS (${lifeSeconds}), got ${periodSeconds}`,
    )
  return {
    stateDir: resolve(env.BARDO_STATE_DIR ?? '.bardo'),
    secondsPerBeat: int('BARDO_SECONDS_PER_BEAT', 0),
    beatMs: int('BARDO_BEAT_MS', 1000),
    apiPort: env.BARDO_API_PORT ? int('BARDO_API_PORT', 0) : undefined,
    dashboardPort: env.BARDO_DASHBOARD_PORT ? int('BARDO_DASHBOARD_PORT', 0) : undefined,
    strategyPath: resolve(env.BARDO_STRATEGY ?? 'examples/STRATEGY.md'),
    lifeSeconds,
    periodSeconds,
    tickSeconds: int('BARDO_TICK_SECONDS', 5, 1),
    maxFailedTicks: maxFailedTicksOf(env.BARDO_MAX_FAILED_TICKS),
    indexer: env.BARDO_INDEXER !== '0',
    runtimePayment: runtimePaymentOf(env.BARDO_RUNTIME_PAYMENT),
  }
}

function maxFailedTicksOf(raw: string | undefined): number {
  try {
    return parseMaxConsecutiveFailures(raw, 'BARDO_MAX_FAILED_TICKS')
  } catch (error) {
    if (error instanceof HeartbeatAnomalyConfigError) throw new LocalStackError('LOCAL_CONFIG', `${error.message}, got ${raw}`)
    throw error
  }
}

function runtimePaymentOf(raw: string | undefined): LocalStackSettings['runtimePayment'] {
  if (raw === undefined || raw === '' || raw === 'key') return 'key'
  if (raw === 'delegation') return 'delegation'
  throw new LocalStackError('LOCAL_CONFIG', `BARDO_RUNTIME_PAYMENT: must be key or delegation, got ${raw}`)
}

/** Shows a URL without credentials (RPC URLs often carry an API key). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url)
    return `${u.protocol}//${u.host}${u.pathname.length > 1 ? '/…' : ''}`
  } catch {
    return '(configured RPC)'
  }
}

/**
 * Resolves on the first SIGINT or SIGTERM, or when the process that started this one is gone, and keeps
 * the handlers installed: a Ctrl-C reaches this process twice (from the terminal's process group and
 * relayed by npm), and a second signal without a handler would kill the runner halfway through stopping
 * what it started. A parent that died without relaying anything (SIGKILL, a shell that does not forward
 * signals) leaves this process orphaned: that is a stop too, never a stack left running on its own.
 */
function signalled(): Promise<void> {
  return new Promise((resolve) => {
    const parent = process.ppid
    const watch = setInterval(() => {
      if (process.ppid !== parent) stop()
    }, 500)
    watch.unref()
    const stop = () => {
      clearInterval(watch)
      resolve()
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
}

/**
 * The stack's indexer, supervised (restarted after a crash). Its index lives as long as this run: a
 * PGlite directory readable by the user alone, removed when the indexer has stopped, unless DATABASE_URL
 * names a Postgres. `stop` may be called while it is still starting: it waits for the start, then stops.
 */
function startStackIndexer(
  chain: StackChain,
  stateDir: string,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): { starting: Promise<SupervisedIndexer>; stop(): Promise<void> } {
  const databaseUrl = env.DATABASE_URL
  const pgliteDir = databaseUrl ? undefined : join(stateDir, `pglite-${Date.now()}`)
  if (pgliteDir) mkdirSync(pgliteDir, { recursive: true, mode: 0o700 })
  const starting = superviseIndexer(
    {
      ...stackIndexerOptions(chain, { local: chain.devnet !== undefined }),
      ...(databaseUrl ? { databaseUrl } : { pgliteDir: pgliteDir! }),
    },
    log,
  )
  // A failed start is reported where the runner awaits it; until then its rejection is not unhandled.
  starting.catch(() => undefined)
  return {
    starting,
    async stop() {
      await (await starting.catch(() => undefined))?.stop()
      if (pgliteDir) rmSync(pgliteDir, { recursive: true, force: true })
    },
  }
}

export async function runLocalStack(options: RunLocalStackOptions): Promise<void> {
  const { log } = options
  const settings = localStackSettings(options.env)
  mkdirSync(settings.stateDir, { recursive: true, mode: 0o700 })
  const stops: (() => Promise<void>)[] = []
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((e: unknown) => log(`stop failed: ${String(e)}`))
  }
  const until = options.until ?? signalled()
  try {
    const started = Date.now()
    log('Bardo Custody: starting the local stack on 127.0.0.1')
    const env = options.env ?? process.env
    const chain = await connectChain(env)
    stops.push(chain.stop)
    const devnet = chain.devnet
    log(
      devnet
        ? `  chain        anvil ${chain.rpcUrl} (chain ${chain.deployment.chainId}), MetaMask framework + Bardo contracts deployed`
        : `  chain        ${redactUrl(chain.rpcUrl)} (chain ${chain.deployment.chainId}), Bardo contracts from BARDO_DEPLOYMENT`,
    )

    // The indexer starts first, as a process of its own: Ponder takes the longest of the stack's parts
    // (about 12 s) and needs only the chain. The store starts meanwhile.
    const indexerStart = settings.indexer ? startStackIndexer(chain, settings.stateDir, env, log) : undefined
    if (indexerStart) stops.push(indexerStart.stop)

    const {
      store,
      describe: storeLine,
      stop: stopStore,
      endpoint: storeEndpoint,
      tableName,
    } = await openStore(env, { stateDir: settings.stateDir, log })
    stops.push(stopStore)
    log(`  store        ${storeLine}`)

    // The stack's own Golem keys are keystore files under the state directory, so any of its processes
    // resolves them; they sign for this run's chain and go at stop.
    const keys = stackKeys(env, settings.stateDir)
    stops.push(async () => removeStackKeys(keys))
    const indexer = await indexerStart?.starting
    if (indexer) log(`  indexer      Ponder on ${env.DATABASE_URL ? 'Postgres (DATABASE_URL)' : 'PGlite'} ${indexer.url}`)

    // The demo Golem is born now, while the API starts: its life (a few minutes, on the wall clock) begins
    // a few seconds before the stack is ready, not while the indexer is still starting.
    const ownerKey = devnet ? localOwnerKey(env) : undefined
    const demoProvisioning =
      devnet && ownerKey
        ? (async () => {
            const owner = await devnet.createOwner({}, ownerKey.account)
            // The owner's wallet key holds ETH, as a MetaMask user's does: it submits the owner's own acts
            // (`bardo revoke`, `renew`) to the EntryPoint with no relay.
            await devnet.publicClient.waitForTransactionReceipt({
              hash: await devnet.deployer.sendTransaction({ to: owner.signer.address, value: parseEther('1') }),
            })
            const golem = await provisionGolemAt({
              clients: devnet,
              deployment: devnet.deployment,
              store,
              key: await newStackKey(keys, 'demo'),
              owner,
              golemId: 'demo',
              strategy: readFileSync(settings.strategyPath, 'utf8'),
              lifeSeconds: BigInt(settings.lifeSeconds),
              periodSeconds: BigInt(settings.periodSeconds),
            })
            return { golem, owner }
          })()
        : undefined
    // A failure is reported where the provisioning is awaited, after the API has started.
    demoProvisioning?.catch(() => undefined)

    // The API and the heartbeat scheduler, each a process of its own, resolve the keys this stack made, the
    // CLI's keystore Golems when they have their passphrase, and Privy wallets when they have the Privy
    // app's settings (BARDO_PRIVY_*).
    const privySettings = privySettingsFromEnv(env)
    if (privySettings.settings)
      log(`  privy        Privy wallets of app ${privySettings.settings.appId} through ${privySettings.settings.apiUrl}`)
    const readApiKey = localReadKey(env)
    // What the CLI, the API process and the scheduler process read the chain's contracts from.
    if (devnet) writeDeploymentFile(join(settings.stateDir, DEPLOYMENT_FILE), devnet.deployment)
    // The API on a port of its own that a restart keeps, so the dashboard, the CLI and the Golems' x402
    // payments find it again; it reads the stack from api.json (no secret in it) and the read key's hash
    // and the keys' secret from its environment.
    const apiPort = settings.apiPort || (await freePort())
    const apiConfig = join(settings.stateDir, 'api.json')
    writeFileSync(
      apiConfig,
      `${JSON.stringify({
        stateDir: settings.stateDir,
        rpcUrl: chain.rpcUrl,
        chainId: chain.deployment.chainId,
        devnet: devnet !== undefined,
        deploymentFile: devnet ? join(settings.stateDir, DEPLOYMENT_FILE) : env.BARDO_DEPLOYMENT,
        store: storeEndpoint && !env.BARDO_TABLE_NAME ? { endpoint: storeEndpoint, tableName } : undefined,
        indexerUrl: indexer?.url,
        port: apiPort,
        lifeSeconds: settings.lifeSeconds,
        periodSeconds: settings.periodSeconds,
      } satisfies ApiConfig)}\n`,
      { mode: 0o600 },
    )
    stops.push(async () => rmSync(apiConfig, { force: true }))
    const apiProcess = await supervise({
      name: 'api',
      ...programCommand(join(import.meta.dirname, 'apiProcess.ts')),
      env: { ...env, BARDO_API_CONFIG: apiConfig, [STACK_KEY_SECRET_ENV]: keys.secret, [READ_KEY_HASH_ENV]: hashApiKey(readApiKey) },
      ready: (line) => line.startsWith('api listening on'),
      readyTimeoutMs: 60_000,
      onLine: (line) => {
        if (!line.startsWith('api listening on')) log(line)
      },
      onRestart: () => log(`  API          restarted on http://127.0.0.1:${apiPort}; what it settled and credited is in the store`),
    })
    stops.push(apiProcess.stop)
    const api = { url: `http://127.0.0.1:${apiPort}` }

    const demo = await demoProvisioning
    let sliceUsdc = 0n
    if (demo) {
      const { golem, owner } = demo
      sliceUsdc = demoSliceUsdc({ plan: golem.plan, lifeSeconds: settings.lifeSeconds, tickSeconds: settings.tickSeconds })
      log(`  demo Golem   'demo' key ${golem.golemKey}, owner smart account ${owner.address}`)
      log(
        `               ${golem.plan.capabilities.join(', ') || 'no'} capabilities, ${usdc(golem.profile.runway.periodAmount)} per ${formatSpan(settings.periodSeconds)} period, a life of ${formatSpan(settings.lifeSeconds)}`,
      )
      log(`               its strategy swaps ${usdc(sliceUsdc)} a tick: its swaps' daily limit spread over every tick of its life`)
    } else {
      log('  demo Golem   not provisioned on a real chain (the owner signs the grant in MetaMask); ticking the Golems in the store')
    }
    // The heartbeat scheduler runs as a process of its own (local/schedulerProcess.ts), restarted after a
    // crash; the owner's rotation requests the dashboard takes go to it, to run between two heartbeats.
    const controlPort = await freePort()
    const controlUrl = `http://127.0.0.1:${controlPort}`
    const ownerRotation = devnet && demo ? forwardedRotation(controlUrl) : undefined
    const dashboard = await startDashboard({
      ...(ownerRotation ? { rotation: ownerRotation } : {}),
      chain,
      store,
      apiUrl: api.url,
      indexerUrl: indexer?.url,
      readApiKey,
      ...(demo ? { owner: demo.owner.address } : {}),
      ...(settings.dashboardPort === undefined ? {} : { port: settings.dashboardPort }),
    })
    stops.push(dashboard.stop)
    log('')
    log(
      `  dashboard    ${dashboard.url}/ (the owner's dashboard; owner actions through a browser wallet, e.g. MetaMask with BARDO_OWNER_KEY)`,
    )
    if (!dashboard.atPortalPort) log(`               not on port ${PORTAL_PORT}: the Snap answers the Portal there only (docs/snap.md)`)
    log(`  API          ${api.url}/api/v1/golems/demo/permission-health`)
    log(`  OpenAPI      ${api.url}/openapi.json`)
    log(`  API docs     ${api.url}/docs`)
    if (indexer) log(`  GraphQL      ${indexer.url}/graphql`)
    if (devnet) {
      // What the CLI and the faucet need to act on this stack with no setup but the state directory.
      const deploymentFile = join(settings.stateDir, DEPLOYMENT_FILE)
      writeStackInfo(
        settings.stateDir,
        {
          rpcUrl: chain.rpcUrl,
          chainId: chain.deployment.chainId,
          usdc: chain.usdc,
          apiUrl: api.url,
          network: `eip155:${chain.deployment.chainId}`,
          dashboardUrl: dashboard.url,
          deploymentFile,
          ...(storeEndpoint ? { store: { endpoint: storeEndpoint, tableName } } : {}),
        },
        { ...(ownerKey ? { ownerKey: ownerKey.key } : {}), readKey: readApiKey },
      )
      stops.push(async () => removeStackInfo(settings.stateDir))
      log(
        `  pay locally  npm run faucet -- <your address> (test USDC ${chain.usdc} and ETH); anvil accounts ${reservedDevnetAccounts.map((a) => a.index).join(', ')} are the stack's`,
      )
    }
    log(`  read key     ${readApiKey} (header x-api-key: 300 requests/min for dashboards; 30/min per IP without it)`)
    log(
      "  council      form one of the owner's Golems in the dashboard's council panel, or: npx bardo council form --golems <id>,<id> --threshold 2 --receiver <address> --daily-usd 100",
    )

    // The scheduler's process reads the stack from a file with no secret in it; the stack keys' secret and
    // the demo owner's key reach it in its environment.
    const schedulerConfig = join(settings.stateDir, 'scheduler.json')
    writeSchedulerConfig(schedulerConfig, {
      stateDir: settings.stateDir,
      rpcUrl: chain.rpcUrl,
      chainId: chain.deployment.chainId,
      devnet: devnet !== undefined,
      deploymentFile: devnet ? join(settings.stateDir, DEPLOYMENT_FILE) : env.BARDO_DEPLOYMENT,
      store: storeEndpoint && !env.BARDO_TABLE_NAME ? { endpoint: storeEndpoint, tableName } : undefined,
      usdc: chain.usdc,
      settlement: chain.settlement.address,
      apiUrl: api.url,
      controlPort,
      settings: {
        secondsPerBeat: settings.secondsPerBeat,
        // A real chain beats like the cron on AWS: once a minute unless BARDO_BEAT_MS says otherwise.
        beatMs: devnet || env.BARDO_BEAT_MS ? settings.beatMs : 60_000,
        lifeSeconds: settings.lifeSeconds,
        tickSeconds: settings.tickSeconds,
        maxFailedTicks: settings.maxFailedTicks,
        runtimePayment: settings.runtimePayment,
      },
      demo: demo ? { owner: demo.owner.address, plan: demo.golem.plan, bornAt: demo.golem.profile.life.bornAt, sliceUsdc } : undefined,
    })
    stops.push(async () => rmSync(join(settings.stateDir, 'scheduler-console.json'), { force: true }))
    stops.push(async () => rmSync(schedulerConfig, { force: true }))
    const scheduler = await supervise({
      name: 'scheduler',
      ...programCommand(join(import.meta.dirname, 'schedulerProcess.ts')),
      env: {
        ...env,
        BARDO_SCHEDULER_CONFIG: schedulerConfig,
        [STACK_KEY_SECRET_ENV]: keys.secret,
        ...(ownerKey ? { BARDO_OWNER_KEY: ownerKey.key } : {}),
      },
      ready: (line) => line === 'scheduler ready',
      readyTimeoutMs: 60_000,
      onLine: (line) => {
        if (line !== 'scheduler ready') log(line)
      },
      onRestart: () => log('  scheduler    restarted; it carries on from the store'),
    })
    stops.push(scheduler.stop)
    const accelerated = devnet !== undefined && settings.secondsPerBeat > 0
    log(
      `  ready in ${Date.now() - started} ms; ${accelerated ? `chain time moves ${formatSpan(settings.secondsPerBeat)} per beat (BARDO_SECONDS_PER_BEAT): clients that sign with their own clock, x402 payers included, will be refused` : 'chain time follows the wall clock'}. Ctrl-C stops everything.`,
    )
    log('')
    await until
  } finally {
    log('stopping: scheduler, dashboard, API, dynalite, indexer, anvil')
    await stopAll()
    log('stopped')
  }
}
