// The operator's walkthrough, run as an operator runs it: the `bardo` CLI's deploy, onboard, status,
// renew, rotate, feed and revoke against a fresh anvil and dynalite, with the chain and the store checked after
// each, a heartbeat ticking the onboarded Golem in between, and every bad flag refused with nothing written.
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { erc20Abi, parseEther, parseUnits, toHex, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DelegationManager as DelegationManagerAbi } from '@metamask/delegation-abis'
import { Implementation, toMetaMaskSmartAccount } from '@metamask/smart-accounts-kit'
import { VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import { parseGolemProfile } from '../../core/lifecycle/profile.ts'
import { DynamoStore } from '../../adapters/store/index.ts'
import { createLocalApi } from '../../functions/api/local.ts'
import { serveApi } from '../../functions/api/server.ts'
import { runCli } from '../../cli/bardo.ts'
import { readCliDeployment, type CliDeployment } from '../../cli/context.ts'
import { startAnvil, type Anvil } from '../../local/anvil.ts'
import { devnetAccount, devnetActions, devnetClients, type DevnetClients } from '../../local/devnet.ts'
import { createTable, documentClient, localDynamoClient, startDynalite, type Dynalite } from '../../local/dynalite.ts'

const PASSPHRASE = 'walkthrough passphrase'
const keyOf = (index: number): Hex => toHex(devnetAccount(index).getHdKey().privateKey!)

let anvil: Anvil
let dynalite: Dynalite
let store: DynamoStore
let clients: DevnetClients
let dir: string
let env: NodeJS.ProcessEnv
const ownerKey = generatePrivateKey()

async function bardo(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string; json: Record<string, unknown> }> {
  let stdout = ''
  let stderr = ''
  const code = await runCli(argv, {
    env,
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  })
  let json: Record<string, unknown> = {}
  if (argv.includes('--json') && stdout.trim()) json = JSON.parse(stdout) as Record<string, unknown>
  return { code, stdout, stderr, json }
}

const deploymentFile = () => join(dir, 'deployment.json')
const deployment = (): CliDeployment => readCliDeployment(deploymentFile(), anvil.chainId)
const code = async (address: Address) => (await clients.publicClient.getCode({ address })) ?? '0x'
const keystores = () => (existsSync(join(dir, 'keys')) ? readdirSync(join(dir, 'keys')) : [])
const oraclePhase = (key: Address) =>
  clients.publicClient.readContract({ address: deployment().vitalityOracle, abi: VitalityOracleAbi, functionName: 'getPhase', args: [key] })
const disabled = (hash: Hex) =>
  clients.publicClient.readContract({
    address: deployment().environment.DelegationManager,
    abi: DelegationManagerAbi,
    functionName: 'disabledDelegations',
    args: [hash],
  })

beforeAll(async () => {
  ;[anvil, dynalite] = await Promise.all([startAnvil(), startDynalite()])
  clients = devnetClients(anvil.rpcUrl, anvil.chainId)
  const table = `bardo-${randomUUID().slice(0, 8)}`
  const raw = localDynamoClient(dynalite.endpoint)
  await createTable(raw, table)
  store = new DynamoStore({ client: documentClient(raw), tableName: table })
  dir = mkdtempSync(join(tmpdir(), 'bardo-cli-'))
  // The store client the CLI builds reads the AWS SDK's own environment: placeholders dynalite ignores.
  process.env.AWS_REGION = 'us-east-1'
  process.env.AWS_ACCESS_KEY_ID = 'local'
  process.env.AWS_SECRET_ACCESS_KEY = 'local'
  env = {
    PATH: process.env.PATH,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    DO_NOT_TRACK: '1',
    BARDO_RPC_URL: anvil.rpcUrl,
    BARDO_DEPLOYMENT: deploymentFile(),
    BARDO_STATE_DIR: dir,
    BARDO_DEPLOYER_KEY: keyOf(0),
    BARDO_OPERATOR_KEY: keyOf(1),
    BARDO_OWNER_KEY: ownerKey,
    BARDO_KEYSTORE_PASSPHRASE: PASSPHRASE,
    BARDO_KEYSTORE_SCRYPT_N: '1024',
    BARDO_TABLE_NAME: table,
    BARDO_DYNAMODB_ENDPOINT: dynalite.endpoint,
  }
}, 120_000)

afterAll(async () => {
  await Promise.all([anvil?.stop(), dynalite?.stop()])
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('bardo deploy', () => {
  it('refuses bad flags and keys with the flag and the rule, writing no file', async () => {
    const missing = await bardo('deploy')
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/--phase-table-owner/)
    const same = await bardo('deploy', '--phase-table-owner', devnetAccount(1).address, '--deploy-framework', '--local-assets')
    expect(same.code).toBe(2)
    expect(same.stderr).toContain('--phase-table-owner: must be a different address from the operator')
    const notAddress = await bardo('deploy', '--phase-table-owner', '0x1234')
    expect(notAddress.stderr).toContain('--phase-table-owner: must be a 20-byte hex address')
    const noFramework = await bardo('deploy', '--phase-table-owner', devnetAccount(4).address)
    expect(noFramework.code).toBe(2)
    expect(noFramework.stderr).toContain('--deploy-framework: chain 31337 is not one the MetaMask kit knows')
    const badKey = await runCli(['deploy', '--phase-table-owner', devnetAccount(4).address], {
      env: { ...env, BARDO_DEPLOYER_KEY: '0xnot-a-key' },
      stdout: { write: () => true },
      stderr: { write: () => true },
    })
    expect(badKey).toBe(1)
    expect(existsSync(deploymentFile())).toBe(false)
  })

  it('deploys the framework, the Bardo contracts and the local assets, and writes the deployment file', async () => {
    const r = await bardo('--json', 'deploy', '--phase-table-owner', devnetAccount(4).address, '--deploy-framework', '--local-assets')
    expect(r.code, r.stderr).toBe(0)
    expect(r.json.framework).toBe('deployed')
    expect(r.json.kept).toEqual([])
    expect((r.json.deployed as string[]).length).toBe(20)
    expect(r.stderr).toContain('deployed     vitalityOracle')
    const d = deployment()
    for (const address of [
      d.vitalityOracle,
      d.dreamOracle,
      d.daimonOracle,
      d.policyCage!,
      ...Object.values(d.enforcers),
      d.environment.DelegationManager,
    ])
      expect(await code(address)).not.toBe('0x')
    expect(d.assets?.usdc).toBeDefined()
    // The operator owns the oracle; the phase table is another key's.
    const owner = await clients.publicClient.readContract({ address: d.vitalityOracle, abi: VitalityOracleAbi, functionName: 'owner' })
    expect(owner).toBe(devnetAccount(1).address)
  })

  it('is idempotent, and resumes: only what has no code (and what was built on it) is deployed again', async () => {
    const again = await bardo('--json', 'deploy', '--phase-table-owner', devnetAccount(4).address, '--local-assets')
    expect(again.code, again.stderr).toBe(0)
    expect(again.json.deployed).toEqual([])
    expect(again.json.framework).toBe('file')
    const before = deployment()
    const file = JSON.parse(readFileSync(deploymentFile(), 'utf8')) as { dreamOracle: string; enforcers: Record<string, string> }
    file.dreamOracle = privateKeyToAccount(generatePrivateKey()).address
    writeFileSync(deploymentFile(), JSON.stringify(file))
    const resumed = await bardo('--json', 'deploy', '--phase-table-owner', devnetAccount(4).address, '--local-assets')
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(resumed.json.deployed).toEqual(['dreamOracle', 'enforcers.dreamMode'])
    const after = deployment()
    expect(after.vitalityOracle).toBe(before.vitalityOracle)
    expect(after.enforcers.golemPhase).toBe(before.enforcers.golemPhase)
    expect(after.enforcers.dreamMode).not.toBe(before.enforcers.dreamMode)
  })
})

describe('a Golem from onboarding to revocation', () => {
  let golemKey: Address
  const strategy = () => join(dir, 'STRATEGY.md')

  beforeAll(async () => {
    // The owner's MetaMask smart account (the owner's key is local here), funded with test USDC and ETH.
    const d = deployment()
    const signer = privateKeyToAccount(ownerKey)
    const smartAccount = await toMetaMaskSmartAccount({
      client: clients.publicClient as never,
      implementation: Implementation.Hybrid,
      deployParams: [signer.address, [], [], []],
      deploySalt: '0x',
      signer: { account: signer },
      environment: d.environment,
    })
    const { factory, factoryData } = await smartAccount.getFactoryArgs()
    const wait = async (hash: Promise<Hex>) => clients.publicClient.waitForTransactionReceipt({ hash: await hash })
    await wait(clients.deployer.sendTransaction({ to: factory!, data: factoryData! }))
    await devnetActions(clients, { ...d, assets: d.assets! }).mintUsdc(smartAccount.address, parseUnits('1000', 6))
    await wait(clients.deployer.sendTransaction({ to: smartAccount.address, value: parseEther('2') }))
    await wait(clients.deployer.sendTransaction({ to: signer.address, value: parseEther('1') }))
    writeFileSync(strategy(), readFileSync('examples/STRATEGY.md', 'utf8'))
  })

  it('refuses bad onboarding flags and guardrail breaches with nothing signed, sent or written', async () => {
    const badId = await bardo('onboard', '--golem', 'Bad_Id', '--strategy', strategy())
    expect(badId.code).toBe(2)
    expect(badId.stderr).toContain('--golem: must be 1-63 lowercase letters')
    const badLife = await bardo('onboard', '--golem', 'g1', '--strategy', strategy(), '--life-seconds', '-5')
    expect(badLife.stderr).toContain('--life-seconds: must be a whole number of seconds greater than 0')
    const noFile = await bardo('onboard', '--golem', 'g1', '--strategy', join(dir, 'missing.md'))
    expect(noFile.stderr).toContain('--strategy: must be a readable STRATEGY.md file')
    const big = join(dir, 'BIG.md')
    writeFileSync(
      big,
      '---\ncapabilities: [swap]\nbudget: $500/day\nruntime_days: 30\n---\nSwap USDC into WETH.\n'.replace('runtime', 'runway'),
    )
    const noOverride = await bardo('onboard', '--golem', 'big', '--strategy', big)
    expect(noOverride.code).toBe(1)
    expect(noOverride.stderr).toMatch(/dailyUsdcCap: 500 USDC\/day is over the 100 USDC\/day runway guardrail/)
    writeFileSync(big, '---\ncapabilities: [swap]\nbudget: $500/day\nrunway_days: 120\noverride: true\n---\nSwap USDC into WETH.\n')
    const noFlag = await bardo('onboard', '--golem', 'big', '--strategy', big)
    expect(noFlag.code).toBe(2)
    expect(noFlag.stderr).toContain('--override: the plan asks 500 USDC/day for 120 days')
    const noPassphrase = await runCli(['onboard', '--golem', 'g1', '--strategy', strategy()], {
      env: { ...env, BARDO_KEYSTORE_PASSPHRASE: '' },
      stdout: { write: () => true },
      stderr: { write: () => true },
    })
    expect(noPassphrase).toBe(1)
    expect(await store.getGolem('big')).toBeNull()
    expect(await store.getGolem('g1')).toBeNull()
    expect(keystores()).toEqual([])
  })

  it('onboards: shows the plan, signs the grant, registers the key and records a Golem the heartbeat ticks', async () => {
    const r = await bardo('--json', 'onboard', '--golem', 'walker', '--strategy', strategy())
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('runway        up to 25 USDC per day')
    expect(r.stderr).toContain('capabilities  Swap')
    golemKey = r.json.golemKey as Address
    const record = await store.getGolem('walker')
    expect(record?.status).toBe('alive')
    const profile = parseGolemProfile(record!.profile)
    expect(profile.golemKey).toBe(golemKey)
    expect(profile.signer.kind).toBe('keystore')
    expect(profile.runway.periodAmount).toBe(25_000_000n)
    expect(JSON.stringify(record)).not.toContain(PASSPHRASE)
    const path = (profile.signer as { path: string }).path
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(await oraclePhase(golemKey)).toEqual([true, 0])
    expect((await store.listDueGolems({ now: Date.now() + 1000 })).golems.map((g) => g.golemId)).toContain('walker')
    expect(r.stdout).not.toContain(ownerKey.slice(2))

    // The operator's own heartbeat (`bardo run`, the same heartbeat and tick code the AWS stack runs)
    // picks it up and redeems its first period through the keystore key.
    for (const [flag, value] of [
      ['--beats', '0'],
      ['--beat-ms', 'soon'],
    ] as const) {
      const bad = await bardo('run', flag, value)
      expect(bad.code).toBe(2)
      expect(bad.stderr).toContain(`${flag}: must be a whole number of at least`)
    }
    const run = await bardo('--json', 'run', '--beats', '1')
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).toMatch(/tick walker: ticked .*\| redemption confirmed [\d.]+ USDC in 0x[0-9a-f]{64}/)
    expect(run.json).toMatchObject({ beats: 1, ticks: 1, failed: 0 })
    expect(BigInt(run.json.redeemed as string)).toBeGreaterThan(0n)
    expect(run.stderr).not.toContain(PASSPHRASE)
  })

  it('leaves no keystore behind when an onboarding fails after making its key (an operator key the VitalityOracle refuses)', async () => {
    const files = keystores()
    const operatorKey = env.BARDO_OPERATOR_KEY
    env = { ...env, BARDO_OPERATOR_KEY: generatePrivateKey() }
    try {
      const r = await bardo('onboard', '--golem', 'orphan', '--strategy', strategy())
      expect(r.code).toBe(1)
      expect(r.stderr).toContain('session key')
      expect(r.stderr).toMatch(/reverted/)
    } finally {
      env = { ...env, BARDO_OPERATOR_KEY: operatorKey }
    }
    expect(keystores()).toEqual(files)
    expect(await store.getGolem('orphan')).toBeNull()
  })

  it('refuses a second onboarding of the same Golem (a conflicting active grant), changing nothing', async () => {
    const before = await store.getGolem('walker')
    const files = keystores()
    const r = await bardo('onboard', '--golem', 'walker', '--strategy', strategy())
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('--golem: Golem walker already has an active grant')
    expect(await store.getGolem('walker')).toEqual(before)
    expect(keystores()).toEqual(files)
  })

  it('shows status from the store and the chain', async () => {
    const r = await bardo('--json', 'status', '--golem', 'walker')
    expect(r.code, r.stderr).toBe(0)
    expect(r.json).toMatchObject({
      golemId: 'walker',
      status: 'alive',
      halted: null,
      golemKey,
      chain: { registered: true, grantDisabled: false },
    })
    expect((r.json.store as { events: string[] }).events).toContain('DelegationGranted')
    const human = await bardo('status', '--golem', 'walker')
    expect(human.stdout).toContain('Golem walker: alive')
    expect((await bardo('status', '--golem', 'nobody')).stderr).toContain('--golem: names no Golem in the store: nobody')
  })

  it('renews the grant with a later end (the owner signs a superseding delegation)', async () => {
    const before = parseGolemProfile((await store.getGolem('walker'))!.profile)
    expect((await bardo('renew', '--golem', 'walker', '--extend-seconds', 'soon')).stderr).toContain(
      '--extend-seconds: must be a whole number',
    )
    const r = await bardo('--json', 'renew', '--golem', 'walker', '--extend-seconds', '86400')
    expect(r.code, r.stderr).toBe(0)
    const after = parseGolemProfile((await store.getGolem('walker'))!.profile)
    // Queued behind the grant: it starts where the grant stops paying, and ends a day after it.
    expect(after.runway.periodDelegationHash).toBe(before.runway.periodDelegationHash)
    expect(after.renewals.map((g) => g.periodDelegationHash)).toEqual([r.json.delegationHash])
    expect(after.renewals[0]!.periodStart).toBe(before.runway.expiresAt + 1n)
    expect(after.renewals[0]!.expiresAt).toBe(before.runway.expiresAt + 86_400n)
    const events = await store.listEvents({ golemId: 'walker' })
    expect(events.events.map((e) => e.type)).toContain('DelegationRenewed')
  })

  it('refuses a rotation the owner cannot fund or submit, leaving no keystore file and the Golem untouched', async () => {
    const files = keystores().length
    const version = (await store.getGolem('walker'))!.version
    const errors: string[] = []
    const run = (argv: string[], extra: NodeJS.ProcessEnv = {}) =>
      runCli(argv, { env: { ...env, ...extra }, stdout: { write: () => true }, stderr: { write: (t: string) => errors.push(t) > 0 } })
    // More ETH than the owner's smart account holds: refused before a key is made.
    expect(await run(['rotate', '--golem', 'walker', '--gas', '1000000'])).toBe(1)
    expect(errors.join('')).toMatch(/--gas: the owner's smart account 0x[0-9a-fA-F]{40} sends the new key 1000000 ETH and holds [\d.]+ ETH/)
    expect(keystores().length).toBe(files)
    // A submitter with no ETH: the new key's file was made, and is gone again with the refusal.
    const brokeKey = generatePrivateKey()
    const broke = privateKeyToAccount(brokeKey).address
    errors.length = 0
    expect(await run(['rotate', '--golem', 'walker'], { BARDO_SUBMITTER_KEY: brokeKey })).toBe(1)
    expect(errors.join('')).toContain(`BARDO_SUBMITTER_KEY: account ${broke} submits the owner's transaction and cannot pay its gas`)
    expect(keystores().length).toBe(files)
    expect((await store.getGolem('walker'))!.version).toBe(version)
    expect(parseGolemProfile((await store.getGolem('walker'))!.profile).golemKey).toBe(golemKey)
  })

  it('rotates the session key: the oracle moves to the new key, the old keystore is deleted', async () => {
    const before = parseGolemProfile((await store.getGolem('walker'))!.profile)
    const oldPath = (before.signer as { path: string }).path
    const r = await bardo('--json', 'rotate', '--golem', 'walker')
    expect(r.code, r.stderr).toBe(0)
    expect(r.json.from).toBe(golemKey)
    const record = (await store.getGolem('walker'))!
    const after = parseGolemProfile(record.profile)
    expect(record.sessionKeyAddress.toLowerCase()).toBe((r.json.to as string).toLowerCase())
    expect(after.golemKey).toBe(r.json.to)
    expect(after.pendingRotation).toBeUndefined()
    expect((await oraclePhase(golemKey))[0]).toBe(false)
    expect((await oraclePhase(after.golemKey))[0]).toBe(true)
    expect(existsSync(oldPath)).toBe(false)
    expect(statSync((after.signer as { path: string }).path).mode & 0o777).toBe(0o600)
    golemKey = after.golemKey
  })

  it('feeds the Golem through the API with x402 from any payer, and refuses an offer over --max-usdc', async () => {
    const d = deployment()
    const app = createLocalApi({
      store,
      publicClient: clients.publicClient as never,
      deployment: d,
      asset: d.assets!.usdc,
      operator: devnetAccount(1).address,
      settlement: devnetAccount(2),
    })
    const api = await serveApi(app, 0)
    try {
      const payerKey = generatePrivateKey()
      const payer = privateKeyToAccount(payerKey)
      await devnetActions(clients, { ...d, assets: d.assets! }).mintUsdc(payer.address, parseUnits('50', 6))
      const balance = () =>
        clients.publicClient.readContract({ address: d.assets!.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [payer.address] })
      const feedEnv = { ...env, BARDO_PAYER_KEY: payerKey, BARDO_API_URL: api.url }
      const run = async (...argv: string[]) => {
        let stdout = ''
        let stderr = ''
        const code = await runCli(argv, {
          env: feedEnv,
          stdout: { write: (t: string) => (stdout += t) },
          stderr: { write: (t: string) => (stderr += t) },
        })
        return { code, stdout, stderr }
      }
      const capped = await run('feed', '--golem', 'walker', '--max-usdc', '0.000001')
      expect(capped.code).toBe(2)
      expect(capped.stderr).toContain('--max-usdc: the feed costs')
      expect(await balance()).toBe(50_000_000n)
      const before = parseGolemProfile((await store.getGolem('walker'))!.profile)
      const fed = await run('--json', 'feed', '--golem', 'walker', '--max-usdc', '50')
      expect(fed.code, fed.stderr).toBe(0)
      const paid = BigInt((JSON.parse(fed.stdout) as { amount: string }).amount)
      expect(paid).toBeGreaterThan(0n)
      expect(await balance()).toBe(50_000_000n - paid)
      const after = parseGolemProfile((await store.getGolem('walker'))!.profile)
      expect(after.life.runwayEndsAt).toBeGreaterThan(before.life.runwayEndsAt)
    } finally {
      await api.close()
    }
  })

  it("revokes: only the owner's key may, and then the grant is disabled on-chain and the Golem is due", async () => {
    const stranger = await runCli(['revoke', '--golem', 'walker'], {
      env: { ...env, BARDO_OWNER_KEY: generatePrivateKey() },
      stdout: { write: () => true },
      stderr: { write: () => true },
    })
    expect(stranger).toBe(1)
    const profile = parseGolemProfile((await store.getGolem('walker'))!.profile)
    expect(await disabled(profile.runway.periodDelegationHash)).toBe(false)
    // A submitter with no ETH is named, with what to do; nothing is disabled or written.
    const brokeKey = generatePrivateKey()
    const broke = privateKeyToAccount(brokeKey).address
    const errors: string[] = []
    const version = (await store.getGolem('walker'))!.version
    const unfunded = await runCli(['revoke', '--golem', 'walker'], {
      env: { ...env, BARDO_SUBMITTER_KEY: brokeKey },
      stdout: { write: () => true },
      stderr: { write: (t: string) => errors.push(t) > 0 },
    })
    expect(unfunded).toBe(1)
    expect(errors.join('')).toContain(
      `BARDO_SUBMITTER_KEY: account ${broke} submits the owner's transaction and cannot pay its gas (it holds 0 ETH): send it ETH (locally: npm run faucet -- ${broke} 0 1)`,
    )
    expect(await disabled(profile.runway.periodDelegationHash)).toBe(false)
    expect((await store.getGolem('walker'))!.version).toBe(version)
    const r = await bardo('--json', 'revoke', '--golem', 'walker')
    expect(r.code, r.stderr).toBe(0)
    expect(await disabled(profile.runway.periodDelegationHash)).toBe(true)
    expect(r.json.disabled).toContain(profile.runway.periodDelegationHash)
    const events = (await store.listEvents({ golemId: 'walker' })).events
    // At the start of the chain second of the owner's transaction: before anything the death tick records.
    const { blockNumber } = await clients.publicClient.getTransactionReceipt({ hash: r.json.txHash as Hex })
    const { timestamp } = await clients.publicClient.getBlock({ blockNumber })
    expect(events.find((e) => e.type === 'OwnerRevoked')?.at).toBe(Number(timestamp) * 1000)
    expect((await store.listDueGolems({ now: Date.now() + 1000 })).golems.map((g) => g.golemId)).toContain('walker')
    const again = await bardo('--json', 'revoke', '--golem', 'walker')
    expect(again.json.disabled).toEqual([])
  })

  it('runs as the installed `bardo` executable, with --json for scripts', async () => {
    const child = spawn(process.execPath, ['bin/bardo.mjs', '--json', 'status', '--golem', 'walker'], { env: { ...process.env, ...env } })
    let stdout = ''
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()))
    const exit = await new Promise<number | null>((resolve) => child.on('close', resolve))
    expect(exit).toBe(0)
    expect(JSON.parse(stdout)).toMatchObject({ golemId: 'walker', chain: { grantDisabled: true } })
  })
})
