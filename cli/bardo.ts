// The operator's `bardo` CLI: deploy the contracts, onboard a Golem from a STRATEGY.md, and see, revoke,
// renew or rotate it or grant and revoke its read-only observers, against the local stack or a configured
// chain. Arguments are parsed by commander; configuration and keys come from the environment
// (docs/cli.md) and are never printed. `runCli` is the whole program with its environment and streams
// passed in, so tests run it in-process.
import { rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Command, CommanderError } from 'commander'
import { parseEther, parseUnits, zeroAddress, type Address, type Hex, type PublicClient } from 'viem'
import { KeystoreSignerResolver } from '../adapters/signers/keystoreSignerResolver.ts'
import { privySignersFromEnv } from '../adapters/signers/privySignerResolver.ts'
import { SignersByKind } from '../adapters/signers/signersByKind.ts'
import { runSelfHostedHeartbeat } from './run.ts'
import { BardoError } from '../core/errors.ts'
import { parseGolemProfile } from '../core/lifecycle/profile.ts'
import { authFilePath, login, removeAuthFile, whoami, type AuthIo } from './auth.ts'
import { connect, deploymentPathOf, keyFrom, openCliStore, readCliDeployment, withStackDefaults } from './context.ts'
import { alchemyNotifySettings, registerCustodyWebhook } from './alchemyNotify.ts'
import { watchedOwnersVariable } from '../core/webhooks/index.ts'
import { alchemyNotifyAccess, livingOwners, watchOwners } from './watchedOwners.ts'
import { custodyContractsOf, deployContracts } from './deploy.ts'
import { apiUrlOf, feedGolem } from './feed.ts'
import { formatUsdc } from '../core/permissions/index.ts'
import { CliConfigError, CliUsageError } from './errors.ts'
import { addressFlag, wholeFlag } from './flags.ts'
import { keystoreSettings, newGolemKeystore } from './golemKeys.ts'
import { createGolemKmsKey, kmsAliasPrefix } from './kmsKeys.ts'
import { golemOf, golemStatus, renewGolem, resumeGolem, revokeGolem, rotateGolem, statusLines } from './lifecycle.ts'
import { rotateInStack } from './stackRotation.ts'
import { isStackKey, STACK_KEYS_DIR, withoutStackKeys } from '../local/stackKeys.ts'
import { checkGolemId, onboard, positiveSeconds, readStrategyFile } from './onboard.ts'
import { onboardingAnswerer, onboardThroughApi } from './onboardThroughApi.ts'
import { chainTime, createOutput, type Output, type Writer } from './output.ts'
import { assertOwns, ownerFrom, submitterFrom } from './owner.ts'
import { expiresFlag, grantObserver, listObservers, observerLines, publishFlag, readerHeaders, revokeObserver } from './observer.ts'
import { addressesFlag, councilLine, feedFlag, formCouncil, golemsFlag, listCouncils, TRANSFER_SELECTOR, usdFlag } from './council.ts'
import { parseMaxConsecutiveFailures } from '../core/lifecycle/heartbeatAnomaly.ts'

export type CliIo = {
  env: NodeJS.ProcessEnv
  stdout: Writer
  stderr: Writer
  /** The sign-in's HTTP, waits and clock; tests pass the API app's own fetch and a sleep that moves time. */
  auth?: Partial<Omit<AuthIo, 'progress'>>
}

type CouncilFormFlags = {
  golems: string
  threshold: string
  receiver: string[]
  dailyUsd: string
  target: string[]
  selector: string[]
  feed: string[]
  days: string
  api?: string
}

type GlobalFlags = { json?: boolean; quiet?: boolean; stateDir?: string; deployment?: string }

function ethFlag(flag: string, raw: string | undefined, fallback: bigint): bigint {
  if (raw === undefined) return fallback
  if (!/^\d+(\.\d{1,18})?$/.test(raw)) throw new CliUsageError(flag, `must be an amount of ETH such as 0.05, got ${JSON.stringify(raw)}`)
  return parseEther(raw)
}

/** Runs one command line; resolves to the exit code (0 done, 1 refused or failed, 2 bad usage). */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const program = new Command('bardo')
  let out: Output = createOutput({ json: false, quiet: false, stdout: io.stdout, stderr: io.stderr })
  const globals = (): GlobalFlags => program.opts<GlobalFlags>()
  const stateDir = () => resolve(globals().stateDir ?? io.env.BARDO_STATE_DIR ?? '.bardo')
  program
    .description('Operate Bardo Custody: contracts, Golems, their grants and keys')
    .option('--json', 'print the result as one JSON document (for scripts)')
    .option('-q, --quiet', 'no progress lines')
    .option('--state-dir <dir>', 'where Golem keystores are kept (default BARDO_STATE_DIR or .bardo)')
    .option('--deployment <file>', 'the deployment file (default BARDO_DEPLOYMENT)')
    .exitOverride()
    // Errors are printed once, by the catch below (with the code and exit status), not by commander too.
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s), outputError: () => undefined })
    .hook('preAction', () => {
      out = createOutput({ json: globals().json === true, quiet: globals().quiet === true, stdout: io.stdout, stderr: io.stderr })
      // A local stack in the state directory answers for whatever the environment does not name.
      io = { ...io, env: withStackDefaults(io.env, stateDir()) }
    })

  const withChain = async () => {
    const chain = await connect(io.env)
    const deployment = readCliDeployment(deploymentPathOf(io.env, globals().deployment), chain.chainId)
    return { chain, deployment }
  }

  program
    .command('deploy')
    .description('deploy the Bardo contracts (idempotent and resumable) and write the deployment file')
    .option('--operator <address>', "the VitalityOracle's owner (default: BARDO_OPERATOR_KEY's address)")
    .requiredOption('--phase-table-owner <address>', "GolemPhase's action-table owner, a different key from the operator")
    .option('--deploy-framework', "deploy the MetaMask Delegation Framework where the kit doesn't know the chain (a devnet)")
    .option('--local-assets', 'deploy the local test assets (USDC-like token, feeds, vault, router): chain 31337 only')
    .option('--sequencer-uptime-feed <address>', "the chain's L2 sequencer uptime feed for the USD-capped enforcers")
    .option('--sequencer-grace-seconds <seconds>', 'grace period after the sequencer comes back', '3600')
    .action(async (f: Record<string, string | boolean | undefined>) => {
      const phaseTableOwner = addressFlag('--phase-table-owner', f.phaseTableOwner as string)!
      const operator = addressFlag('--operator', f.operator as string | undefined) ?? keyFrom(io.env, 'BARDO_OPERATOR_KEY').address
      const feed = addressFlag('--sequencer-uptime-feed', f.sequencerUptimeFeed as string | undefined)
      const grace = f.sequencerGraceSeconds as string
      if (!/^\d{1,9}$/.test(grace))
        throw new CliUsageError('--sequencer-grace-seconds', `must be a whole number of seconds, got ${JSON.stringify(grace)}`)
      const deployer = keyFrom(io.env, 'BARDO_DEPLOYER_KEY')
      const file = resolve(deploymentPathOf(io.env, globals().deployment))
      const chain = await connect(io.env)
      out.progress(`deploying to chain ${chain.chainId} from ${deployer.address}, file ${file}`)
      const r = await deployContracts({
        chain,
        deployer,
        operator,
        phaseTableOwner,
        file,
        deployFramework: f.deployFramework === true,
        localAssets: f.localAssets === true,
        sequencerUptimeFeed: feed ?? zeroAddress,
        sequencerGraceSeconds: feed ? BigInt(grace) : 0n,
        progress: out.progress,
      })
      // With an Alchemy Notify token, the API hears of revocations as they land (docs/deploy.md).
      const notify = alchemyNotifySettings(io.env, chain.chainId, stateDir())
      const alchemyWebhook = notify
        ? await registerCustodyWebhook(notify, custodyContractsOf(r.deployment, chain.chainId), chain.chainId, out.progress)
        : undefined
      out.result(
        {
          file: r.file,
          chainId: r.chainId,
          framework: r.framework,
          deployed: r.deployed,
          kept: r.kept,
          deployment: r.deployment,
          ...(alchemyWebhook ? { alchemyWebhook } : {}),
        },
        [
          `deployment ${r.file}: ${r.deployed.length} deployed, ${r.kept.length} kept (framework: ${r.framework})`,
          ...(alchemyWebhook ? [`alchemy webhook ${alchemyWebhook.id}: ${alchemyWebhook.status}`] : []),
        ],
      )
    })

  program
    .command('onboard')
    .description('onboard a Golem from a STRATEGY.md: show the plan, sign the grant (local owner key), register it and record it')
    .requiredOption('--golem <id>', 'the Golem id')
    .requiredOption('--strategy <file>', 'the STRATEGY.md')
    .option('--override', 'confirm a plan over the guardrail (100 USDC/day or 90 days) whose document says override: true')
    .option('--life-seconds <seconds>', "the Golem's life (default: the strategy's runway days)")
    .option('--period-seconds <seconds>', 'the runway period (default a day)')
    .option('--kms', "create the Golem's key in the deployed stack's KMS (BARDO_KMS_ALIAS_PREFIX) instead of a keystore file")
    .option(
      '--owner <address>',
      "grant from this wallet account in the browser: print the dashboard's grant page and wait (no owner key here)",
    )
    .option('--shape <shape>', 'with --owner: delegations (a separate MetaMask smart account) or permissions (ERC-7715)', 'delegations')
    .action(async (f: Record<string, string | boolean | undefined>) => {
      const golem = checkGolemId(f.golem as string)
      const throughApi = onboardingAnswerer(f, io.env)
      if (throughApi) {
        const r = await onboardThroughApi({
          api: apiUrlOf(undefined, io.env),
          answerer: throughApi,
          golemId: golem,
          strategy: readStrategyFile(f.strategy as string),
          progress: out.progress,
        })
        const how = r.grantPage ? 'in the browser' : 'with the owner key'
        out.result({ ...r }, [`onboarded Golem ${r.golemId}: key ${r.golemKey}, granted from ${r.account} ${how}`])
        return
      }
      const lifeSeconds = positiveSeconds('--life-seconds', f.lifeSeconds as string | undefined)
      const periodSeconds = positiveSeconds('--period-seconds', f.periodSeconds as string | undefined)
      const aliasPrefix = f.kms === true ? kmsAliasPrefix(io.env) : undefined
      const keys = aliasPrefix ? undefined : keystoreSettings(io.env, stateDir())
      const operator = keyFrom(io.env, 'BARDO_OPERATOR_KEY')
      const notify = alchemyNotifyAccess(io.env)
      const { chain, deployment } = await withChain()
      const owner = await ownerFrom(io.env, chain, deployment)
      const { store, stop } = await openCliStore(io.env)
      try {
        const ownersVariable = notify ? watchedOwnersVariable(chain.chainId, deployment.vitalityOracle) : undefined
        // A keystore made for an attempt that then failed is removed, unless the store came to name it.
        let made: string | undefined
        const r = await onboard({
          flags: {
            golem,
            strategy: f.strategy as string,
            override: f.override === true,
            ...(lifeSeconds === undefined ? {} : { lifeSeconds }),
            ...(periodSeconds === undefined ? {} : { periodSeconds }),
          },
          chain,
          deployment,
          store,
          owner,
          operator,
          submitter: submitterFrom(io.env, owner),
          // With an Alchemy Notify token the webhook hears this owner's revocations (docs/deploy.md).
          ...(notify && ownersVariable
            ? {
                watchOwner: async (address: Address) => {
                  await watchOwners(notify, ownersVariable, [address])
                  return `watched by the Alchemy webhook (variable ${ownersVariable})`
                },
              }
            : {}),
          newKey: async () => {
            if (aliasPrefix) {
              const k = await createGolemKmsKey({ aliasPrefix, golemId: golem, store, chain, deployment })
              return { address: k.address, signer: k.signer, where: `KMS ${k.alias}${k.created ? '' : ', found from an earlier attempt'}` }
            }
            const k = await newGolemKeystore(keys!, golem)
            made = k.path
            return { address: k.address, signer: { kind: 'keystore', path: k.path }, where: `keystore ${k.path}` }
          },
          progress: out.progress,
        }).catch(async (error: unknown) => {
          if (made !== undefined) {
            const record = await store.getGolem(golem).catch(() => null)
            const kept = record?.profile ? (parseGolemProfile(record.profile).signer as { path?: string }).path === made : false
            if (!kept) rmSync(made, { force: true })
          }
          throw error
        })
        out.result({ ...r }, [`onboarded Golem ${r.golemId}: key ${r.golemKey}, grant ${r.delegationHash}, ends ${chainTime(r.expiresAt)}`])
      } finally {
        await stop()
      }
    })

  program
    .command('watch-owners')
    .description("add the owner of every living Golem in the store to the Alchemy webhook's watched owners (ALCHEMY_NOTIFY_TOKEN)")
    .action(async () => {
      const notify = alchemyNotifyAccess(io.env)
      if (!notify)
        throw new CliConfigError(
          'ALCHEMY_NOTIFY_TOKEN',
          "must be the Alchemy Notify auth token (watch-owners adds to the webhook's variable)",
        )
      const { chain, deployment } = await withChain()
      const ownersVariable = watchedOwnersVariable(chain.chainId, deployment.vitalityOracle)
      const { store, stop } = await openCliStore(io.env)
      try {
        const owners = await livingOwners(store)
        await watchOwners(notify, ownersVariable, owners)
        out.result({ ownersVariable, owners }, [`watched ${owners.length} owner(s) in variable ${ownersVariable}`])
      } finally {
        await stop()
      }
    })

  program
    .command('run')
    .description(
      "the heartbeat on this machine: ticks the Golems whose keys are this state directory's keystore files, and Privy wallets with BARDO_PRIVY_APP_ID and BARDO_PRIVY_APP_SECRET",
    )
    .option('--beats <n>', 'stop after this many beats (default: until interrupted)')
    .option('--beat-ms <ms>', 'milliseconds between beats (default 60000, the deployed schedule)', '60000')
    .option('--max-failed-ticks <n>', 'failed ticks in a row that halt a Golem (default BARDO_MAX_FAILED_TICKS, else 5)')
    .action(async (f: { beats?: string; beatMs: string; maxFailedTicks?: string }) => {
      const beats = f.beats === undefined ? undefined : wholeFlag('--beats', f.beats, 1)
      const beatMs = wholeFlag('--beat-ms', f.beatMs, 100)
      const maxConsecutiveFailures =
        f.maxFailedTicks === undefined
          ? parseMaxConsecutiveFailures(io.env.BARDO_MAX_FAILED_TICKS, 'BARDO_MAX_FAILED_TICKS')
          : parseMaxConsecutiveFailures(f.maxFailedTicks, '--max-failed-ticks')
      const keys = keystoreSettings(io.env, stateDir())
      const operator = keyFrom(io.env, 'BARDO_OPERATOR_KEY')
      const { chain, deployment } = await withChain()
      // Keystore Golems always; Privy wallets when the Privy app's settings are in the environment.
      const privy = privySignersFromEnv(deployment, io.env)
      const signers = new SignersByKind(
        {
          keystore: withoutStackKeys({ dir: join(stateDir(), STACK_KEYS_DIR) }, new KeystoreSignerResolver(deployment, keys.passphrase)),
          ...privy.resolvers,
        },
        {
          memory: 'its key is in the memory of the local stack that made it: that stack ticks it',
          kms: 'its key is in KMS: the deployed stack ticks it',
          ...privy.missing,
        },
      )
      const { store, stop } = await openCliStore(io.env)
      let interrupted: () => void = () => undefined
      const stopped = new Promise<void>((done) => (interrupted = done))
      process.once('SIGINT', interrupted)
      process.once('SIGTERM', interrupted)
      try {
        const summary = await runSelfHostedHeartbeat({
          store,
          client: chain.publicClient as PublicClient,
          deployment,
          signers,
          operator,
          ...(beats === undefined ? {} : { beats }),
          beatMs,
          maxConsecutiveFailures,
          stopped,
          progress: out.progress,
        })
        out.result({ ...summary }, [
          `${summary.beats} beat(s), ${summary.ticks} tick(s), ${summary.failed} failed, ${formatUsdc(BigInt(summary.redeemed))} redeemed`,
        ])
      } finally {
        process.off('SIGINT', interrupted)
        process.off('SIGTERM', interrupted)
        await stop()
      }
    })

  program
    .command('status')
    .description("a Golem's state in the store and on the chain")
    .requiredOption('--golem <id>', 'the Golem id')
    .action(async (f: { golem: string }) => {
      const golem = checkGolemId(f.golem)
      const { chain, deployment } = await withChain()
      const { store, stop } = await openCliStore(io.env)
      try {
        const s = await golemStatus(store, chain, deployment, golem)
        out.result({ ...s }, statusLines(s))
      } finally {
        await stop()
      }
    })

  program
    .command('revoke')
    .description("the owner's kill switch: disable the Golem's grants from the owner's smart account")
    .requiredOption('--golem <id>', 'the Golem id')
    .action(async (f: { golem: string }) => {
      const golem = checkGolemId(f.golem)
      const { chain, deployment } = await withChain()
      const owner = await ownerFrom(io.env, chain, deployment)
      const { store, stop } = await openCliStore(io.env)
      try {
        const r = await revokeGolem({
          store,
          chain,
          deployment,
          owner,
          submitter: submitterFrom(io.env, owner),
          golemId: golem,
          progress: out.progress,
        })
        out.result({ ...r }, [
          `revoked Golem ${r.golemId}: ${r.disabled.length} delegation(s) disabled; the next heartbeat runs its death protocol`,
        ])
      } finally {
        await stop()
      }
    })

  program
    .command('resume')
    .description('lift the halt of a Golem whose ticks kept failing, once the cause is fixed: the next heartbeat ticks it')
    .requiredOption('--golem <id>', 'the Golem id')
    .action(async (f: { golem: string }) => {
      const golem = checkGolemId(f.golem)
      const { store, stop } = await openCliStore(io.env)
      try {
        const r = await resumeGolem({ store, golemId: golem, now: Date.now() })
        out.result({ ...r }, [
          `resumed Golem ${r.golemId}: its halt after ${r.failures} failed tick(s) lifted; the next heartbeat ticks it`,
        ])
      } finally {
        await stop()
      }
    })

  program
    .command('renew')
    .description("the owner's superseding grant: the same runway with a later end")
    .requiredOption('--golem <id>', 'the Golem id')
    .requiredOption('--extend-seconds <seconds>', 'how much later the new grant ends')
    .action(async (f: { golem: string; extendSeconds: string }) => {
      const golem = checkGolemId(f.golem)
      const extendSeconds = positiveSeconds('--extend-seconds', f.extendSeconds)!
      const { chain, deployment } = await withChain()
      const owner = await ownerFrom(io.env, chain, deployment)
      const { store, stop } = await openCliStore(io.env)
      try {
        const r = await renewGolem({ store, chain, deployment, owner, golemId: golem, extendSeconds, progress: out.progress })
        out.result({ ...r }, [`renewed Golem ${r.golemId}: grant ${r.delegationHash} ends ${chainTime(r.expiresAt)}`])
      } finally {
        await stop()
      }
    })

  program
    .command('rotate')
    .description("rotate a Golem's session key now: a new key, the owner's grant to it, the oracle moved to it")
    .requiredOption('--golem <id>', 'the Golem id')
    .option('--gas <eth>', "ETH the owner's smart account sends the new key (a keystore key; the local stack funds its own)", '0.01')
    .action(async (f: { golem: string; gas: string }) => {
      const golem = checkGolemId(f.golem)
      const gas = ethFlag('--gas', f.gas, parseEther('0.01'))
      const { chain, deployment } = await withChain()
      const { store, stop } = await openCliStore(io.env)
      try {
        const { record, profile } = await golemOf(store, golem)
        // A key the running local stack holds (in memory, or a keystore file of its own under the state
        // directory's stack-keys) is rotated by that stack, on the owner's signed request.
        if (profile.signer.kind === 'memory' || isStackKey({ dir: join(stateDir(), STACK_KEYS_DIR) }, profile.signer)) {
          const owner = await ownerFrom(io.env, chain, deployment)
          assertOwns(owner, record.owner, golem)
          const r = await rotateInStack({ env: io.env, chainId: chain.chainId, owner, golemId: golem, profile, progress: out.progress })
          out.result({ ...r }, [`rotated Golem ${r.golemId}: ${r.from} -> ${r.to}`])
          return
        }
        const keys = keystoreSettings(io.env, stateDir())
        const operator = keyFrom(io.env, 'BARDO_OPERATOR_KEY')
        const owner = await ownerFrom(io.env, chain, deployment)
        const r = await rotateGolem({
          store,
          chain,
          deployment,
          owner,
          operator,
          submitter: submitterFrom(io.env, owner),
          keys,
          golemId: golem,
          gas,
          progress: out.progress,
        })
        out.result({ ...r }, [`rotated Golem ${r.golemId}: ${r.from} -> ${r.to}`])
      } finally {
        await stop()
      }
    })

  program
    .command('feed')
    .description('Feed-the-Golem: pay its feed through the API (x402) from BARDO_PAYER_KEY')
    .requiredOption('--golem <id>', 'the Golem id')
    .option('--api <url>', 'the API base URL (default BARDO_API_URL)')
    .option('--max-usdc <amount>', 'the most this payment may spend, in USDC', '20')
    .action(async (f: { golem: string; api?: string; maxUsdc: string }) => {
      const golem = checkGolemId(f.golem)
      const api = apiUrlOf(f.api, io.env)
      if (!/^\d+(\.\d{1,6})?$/.test(f.maxUsdc))
        throw new CliUsageError('--max-usdc', `must be an amount of USDC such as 12.5, got ${JSON.stringify(f.maxUsdc)}`)
      const payer = keyFrom(io.env, 'BARDO_PAYER_KEY')
      const r = await feedGolem({ api, golemId: golem, payer, maxAmount: parseUnits(f.maxUsdc, 6), progress: out.progress })
      out.result({ ...r }, [`fed Golem ${r.golemId}: ${formatUsdc(r.amount)} USDC from ${r.payer}`])
    })

  const council = program
    .command('council')
    .description("the owner's Coordination Councils: k of n of the owner's Golems acting together through the owner's delegation")
  const collect = (value: string, previous: string[]) => [...previous, value]
  council
    .command('form')
    .description(
      "form a council of the owner's Golems through the API: draft it, sign the owner's delegation to it (BARDO_OWNER_KEY), the API deploys and keeps it",
    )
    .requiredOption('--golems <ids>', "the owner's living Golems that hold the seats, separated by commas")
    .requiredOption('--threshold <k>', 'how many of the seats must sign an action')
    .requiredOption('--receiver <address>', 'an address the council may pay (repeat for more)', collect, [])
    .requiredOption('--daily-usd <usd>', 'the most the council may move per UTC day, in US dollars')
    .option('--target <address>', "a contract the council may call (repeat for more; default the chain's USDC)", collect, [])
    .option('--selector <hex>', `a function it may call (repeat for more; default ${TRANSFER_SELECTOR}, ERC-20 transfer)`, collect, [])
    .option('--feed <token:feed:decimals>', "a token's price feed (repeat; default the deployment's known feeds)", collect, [])
    .option('--days <n>', "how long the council's authority lasts", '30')
    .option('--api <url>', 'the API base URL (default BARDO_API_URL)')
    .action(async (f: CouncilFormFlags) => {
      const golems = golemsFlag(f.golems)
      const threshold = wholeFlag('--threshold', f.threshold, 1)
      if (f.receiver.length === 0) throw new CliUsageError('--receiver', 'must name at least one address the council may pay')
      const receivers = addressesFlag('--receiver', f.receiver).map((receiver) => ({ receiver, startIndex: 4 }))
      const dailyLimitUsd = usdFlag(f.dailyUsd)
      const days = wholeFlag('--days', f.days, 1)
      for (const s of f.selector)
        if (!/^0x[0-9a-fA-F]{8}$/.test(s))
          throw new CliUsageError('--selector', `must be a 4-byte selector such as 0xa9059cbb, got ${JSON.stringify(s)}`)
      const feeds = f.feed.map(feedFlag)
      const api = apiUrlOf(f.api, io.env)
      const { chain, deployment } = await withChain()
      const targets = f.target.length > 0 ? addressesFlag('--target', f.target) : deployment.assets ? [deployment.assets.usdc] : []
      if (targets.length === 0)
        throw new CliUsageError('--target', "must name the token the council moves: this chain's deployment has none")
      const owner = await ownerFrom(io.env, chain, deployment)
      const now = (await chain.publicClient.getBlock({ blockTag: 'latest' })).timestamp
      const r = await formCouncil({
        api,
        owner,
        golems,
        threshold,
        scope: {
          targets,
          selectors: f.selector.length > 0 ? (f.selector as `0x${string}`[]) : [TRANSFER_SELECTOR],
          receivers,
          dailyLimitUsd,
          ...(feeds.length > 0 ? { feeds } : {}),
          endsAt: Number(now) + days * 86_400,
        },
        progress: out.progress,
      })
      out.result({ ...r }, [`${r.created ? 'formed' : 'formed already'} ${councilLine(r)}`])
    })
  council
    .command('list')
    .description("the owner's councils, newest first (default: the smart account of BARDO_OWNER_KEY)")
    .option('--owner <address>', "the owner's smart account")
    .option('--api <url>', 'the API base URL (default BARDO_API_URL)')
    .action(async (f: { owner?: string; api?: string }) => {
      const api = apiUrlOf(f.api, io.env)
      let owner = addressFlag('--owner', f.owner)
      if (!owner) {
        const { chain, deployment } = await withChain()
        owner = (await ownerFrom(io.env, chain, deployment)).address
      }
      const councils = await listCouncils({ api, owner })
      out.result({ owner, councils }, councils.length === 0 ? [`no councils of ${owner}`] : councils.map(councilLine))
    })

  const authIo = (): AuthIo => ({
    fetch: io.auth?.fetch ?? ((url, init) => fetch(url, init)),
    sleep: io.auth?.sleep ?? ((ms) => new Promise((done) => setTimeout(done, ms))),
    now: io.auth?.now ?? Date.now,
    progress: out.progress,
  })

  const observer = program
    .command('observer')
    .description("the owner's read-only observers (Sleepwalkers): they may publish to the Dream and Daimon oracles and nothing else")

  observer
    .command('grant')
    .description("grant an observer from the owner's smart account (BARDO_OWNER_KEY signs the API's draft)")
    .requiredOption('--golem <id>', 'the Golem id')
    .requiredOption('--observer <address>', "the observer's key or account")
    .option('--publish <methods>', 'comma-separated: startDream, endDream, setPAD (default all three)')
    .option('--expires <when>', 'a span from now (90m, 24h, 7d) or an ISO 8601 time (default: no expiry)')
    .option('--max-calls <n>', 'how many publish calls in all (default: no limit)')
    .option('--api <url>', 'the API base URL (default BARDO_API_URL)')
    .action(async (f: { golem: string; observer: string; publish?: string; expires?: string; maxCalls?: string; api?: string }) => {
      const golem = checkGolemId(f.golem)
      const observerKey = addressFlag('--observer', f.observer)!
      const publish = publishFlag(f.publish)
      const maxCalls = f.maxCalls === undefined ? undefined : wholeFlag('--max-calls', f.maxCalls, 1)
      const api = apiUrlOf(f.api, io.env)
      const { chain, deployment } = await withChain()
      const expiresAt = expiresFlag(f.expires, (await chain.publicClient.getBlock()).timestamp)
      const owner = await ownerFrom(io.env, chain, deployment)
      const r = await grantObserver({
        api,
        chain,
        deployment,
        owner,
        golemId: golem,
        observer: observerKey,
        ...(publish ? { publish } : {}),
        ...(expiresAt === undefined ? {} : { expiresAt }),
        ...(maxCalls === undefined ? {} : { maxCalls }),
        progress: out.progress,
      })
      out.result({ ...r }, [
        `${r.recorded ? 'granted' : 'already granted'} observer ${r.observer} for Golem ${r.golemId}: ${r.publish.join(', ')} from ${owner.address}, ${r.expiresAt === null ? 'no expiry' : `until ${chainTime(r.expiresAt)}`}, ${r.maxCalls === null ? 'no call limit' : `${r.maxCalls} calls`}`,
        `  delegation ${r.delegationHash} (bardo --json observer list prints it signed, for the observer to redeem)`,
      ])
    })

  observer
    .command('list')
    .description("a Golem's observers, active, revoked or expired (BARDO_READ_API_KEY, or the owner's bardo login)")
    .requiredOption('--golem <id>', 'the Golem id')
    .option('--api <url>', 'the API base URL (default BARDO_API_URL)')
    .action(async (f: { golem: string; api?: string }) => {
      const golem = checkGolemId(f.golem)
      const api = apiUrlOf(f.api, io.env)
      const r = await listObservers({ api, golemId: golem, headers: await readerHeaders(io.env, api, authIo()) })
      out.result({ ...r }, observerLines(r.golemId, r.observers))
    })

  observer
    .command('revoke')
    .description("disable an observer's grant from the owner's smart account (BARDO_OWNER_KEY signs the API's user operation)")
    .requiredOption('--golem <id>', 'the Golem id')
    .option('--observer <address>', 'every grant to this observer')
    .option('--delegation <hash>', 'one grant, by its delegation hash')
    .option('--api <url>', 'the API base URL (default BARDO_API_URL)')
    .action(async (f: { golem: string; observer?: string; delegation?: string; api?: string }) => {
      const golem = checkGolemId(f.golem)
      if ((f.observer === undefined) === (f.delegation === undefined))
        throw new CliUsageError('--observer', 'exactly one of --observer and --delegation is required')
      if (f.delegation !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(f.delegation))
        throw new CliUsageError('--delegation', `must be a 32-byte hex delegation hash, got ${JSON.stringify(f.delegation)}`)
      const which =
        f.delegation === undefined ? { observer: addressFlag('--observer', f.observer)! } : { delegationHash: f.delegation as Hex }
      const api = apiUrlOf(f.api, io.env)
      const { chain, deployment } = await withChain()
      const owner = await ownerFrom(io.env, chain, deployment)
      const r = await revokeObserver({
        api,
        chain,
        deployment,
        owner,
        submitter: submitterFrom(io.env, owner),
        golemId: golem,
        which,
        progress: out.progress,
      })
      out.result({ ...r }, [`revoked ${r.disabled.length} observer grant(s) of Golem ${r.golemId} in ${r.txHash}`])
    })

  program
    .command('login')
    .description("sign in to the API as the owner (device code): confirm the code shown with the owner's wallet")
    .option('--api <url>', 'the API base URL (default BARDO_API_URL)')
    .action(async (f: { api?: string }) => {
      const api = apiUrlOf(f.api, io.env)
      const file = authFilePath(io.env)
      // The code and the URL are for the person at the terminal, even with --json or --quiet.
      const a = await login({ api, file, io: authIo(), show: (lines) => io.stderr.write(lines.map((l) => `${l}\n`).join('')) })
      out.result({ owner: a.owner, api: a.api, file, accessExpiresAt: a.accessExpiresAt }, [
        `signed in as ${a.owner} at ${a.api} until ${new Date(a.accessExpiresAt * 1000).toISOString()} (${file})`,
      ])
    })

  program
    .command('logout')
    .description('forget the sign-in (removes the sign-in file)')
    .action(() => {
      const file = authFilePath(io.env)
      const removed = removeAuthFile(file)
      out.result({ file, removed }, [removed ? `signed out (${file} removed)` : `not signed in (no ${file})`])
    })

  program
    .command('whoami')
    .description('the owner the stored sign-in stands for, as the API sees it (refreshes the token when near its end)')
    .action(async () => {
      const w = await whoami({ file: authFilePath(io.env), io: authIo() })
      out.result({ ...w }, [`signed in as ${w.owner} at ${w.api} until ${new Date(w.expiresAt * 1000).toISOString()}`])
    })

  try {
    await program.parseAsync(argv, { from: 'user' })
    return 0
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, with exit code 0.
      if (error.exitCode === 0) return 0
      out.error('CLI_USAGE', error.message.replace(/^error: /, ''))
      return 2
    }
    if (error instanceof CliUsageError) {
      out.error(error.code, error.message)
      return 2
    }
    if (error instanceof BardoError) {
      out.error(error.code, error.message)
      return 1
    }
    out.error('CLI_FAILED', error instanceof Error ? `${error.name}: ${error.message.split('\n')[0]}` : String(error))
    return 1
  }
}
