// A second Golem created from the dashboard, as an owner with a separate MetaMask smart account does it:
// the local stack as `npm start` runs it (in this process, with its own anvil, dynalite, indexer, API and
// dashboard), headless Chromium, and a wallet announced over EIP-6963 that refuses what MetaMask refuses,
// holding the demo owner's key (the signer of the owner's Hybrid smart account). The owner pastes a
// STRATEGY.md, reads the plan, signs each drafted delegation in the wallet; the API registers the Golem
// and the heartbeat redeems its runway. Then the owner revokes the runway grant from the wallet side
// (the smart account's own disableDelegation, not through Bardo) and the Golem dies at a heartbeat while
// the demo lives on. An owner whose MetaMask account is itself the smart account (EIP-7702) grants
// Advanced Permissions from the dashboard instead (MetaMask's own permissions Snap, in the Snaps
// simulator, grants it; the owner lowers the runway in its dialog), the Golem
// redeems through the Session Account's re-delegation, and the owner's disableDelegation sent from the
// wallet ends it. A third Golem is onboarded by `bardo onboard --owner`: the CLI prints the dashboard's
// grant page and waits while the owner grants there; a fourth by `bardo onboard` with the demo key.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPublicClient, createWalletClient, http, parseEther, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { Implementation, toMetaMaskSmartAccount, type Delegation } from '@metamask/smart-accounts-kit'
import { decodeDelegations } from '@metamask/smart-accounts-kit/utils'
import { startGatorWallet, type GatorWallet } from '../support/gatorSnap.ts'
import { fund, readStackInfo, type StackInfo } from '../../local/faucet.ts'
import { readDeploymentFile } from '../../local/chain.ts'
import { localChain } from '../../local/devnet.ts'
import { disableDelegationCall, sendOwnerCalls } from '../../local/ownerActions.ts'
import { runLocalStack } from '../../local/runner.ts'
import { runCli } from '../../cli/bardo.ts'
import { waitFor as waitUntil } from '../e2e/stackProcess.ts'
import { launchChromium, openWalletPage } from './browser.ts'

const artifacts = join(import.meta.dirname, '..', '..', 'test-artifacts', 'onboarding')
const STRATEGY = '---\nname: second\nbudget: $20/day\nrunway_days: 5\n---\n\nHold USDC; live on the runway.\n'

const output: string[] = []
const waitFor = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000) =>
  waitUntil(what, probe, { timeoutMs, everyMs: 500, output: () => output.slice(-40).join('\n') })

type FleetGolem = { id: string; status: string; phase: string; key: string | null }
type DraftBody = { status: string; account: Address; delegations: { role: string; delegation: Delegation }[] }

describe('new Golems from the dashboard and the CLI on the local stack', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'bardo-onboard-'))
  const ownerKey = generatePrivateKey()
  const owner = privateKeyToAccount(ownerKey)
  let stop: () => void
  let stopped: Promise<void>
  let dashboard: string
  let stack: StackInfo
  let browser: Browser
  let page: Page
  let consoleErrors: string[] = []
  let snapWallet: GatorWallet | undefined
  const json = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${dashboard}${path}`)
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`)
    return (await res.json()) as T
  }
  const statusText = () => page.$eval('#new-golem-status', (e) => e.textContent ?? '')
  const fleetOf = async (account: Address) => (await json<{ golems: FleetGolem[] }>(`/api/v1/fleet?owner=${account}`)).golems

  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true })
    const until = new Promise<void>((resolve) => (stop = resolve))
    stopped = runLocalStack({
      log: (line) => output.push(line),
      until,
      env: {
        ...process.env,
        BARDO_STATE_DIR: stateDir,
        BARDO_OWNER_KEY: ownerKey,
        // Lives long enough to outlast the test (the second Golem dies of its revocation) with 5 s periods.
        BARDO_LIFE_SECONDS: '600',
        BARDO_PERIOD_SECONDS: '5',
        BARDO_TICK_SECONDS: '1',
        BARDO_BEAT_MS: '500',
        DO_NOT_TRACK: '1',
        PONDER_TELEMETRY_DISABLED: 'true',
      },
    })
    await waitFor('ready', async () => (output.some((l) => l.includes('ready in')) ? true : undefined), 240_000)
    stack = readStackInfo(stateDir)
    dashboard = stack.dashboardUrl!
    browser = await launchChromium()
    ;({ page, consoleErrors } = await openWalletPage(browser, owner, stack.chainId, { height: 1200 }))
  }, 300_000)

  afterAll(async () => {
    await snapWallet?.close()
    await browser?.close()
    stop?.()
    await stopped
    rmSync(stateDir, { recursive: true, force: true })
  }, 120_000)

  it('drafts from a pasted STRATEGY.md, shows the plan, and the wallet signs every drafted delegation; the API registers the Golem', async () => {
    await page.goto(`${dashboard}/`, { waitUntil: 'networkidle0' })
    // Without a wallet nothing can be drafted, and the page says why.
    expect(await page.$eval('#draft-golem', (e) => (e as unknown as { disabled: boolean }).disabled)).toBe(true)
    expect(await page.$eval('#new-golem .reason', (e) => e.textContent ?? '')).toMatch(/connect the owner's wallet/)
    await page.click('button.connect')
    await page.waitForSelector('#wallet-address')
    await page.type('#new-golem-id', 'second')
    await page.select('#new-golem-shape', 'delegations')
    await page.type('#new-golem-strategy', STRATEGY)
    await page.click('#draft-golem')
    await page.waitForSelector('#draft')
    const lines = await page.$$eval('#plan-lines li', (ls) => ls.map((l) => l.textContent ?? ''))
    expect(lines.length).toBeGreaterThan(0)
    const roles = await page.$$eval('#draft-delegations li', (ls) => ls.map((l) => l.getAttribute('data-role')))
    expect(roles).toEqual(['runway', 'gas'])
    await page.screenshot({ path: join(artifacts, '1-draft.png'), fullPage: true })

    await page.click('#grant-golem')
    const status = await waitFor('the grant', async () => {
      const s = await statusText()
      return /registered|failed/.test(s) ? s : undefined
    })
    expect(status).toMatch(/^registered Golem second \(key 0x[0-9a-fA-F]{40}\): the next heartbeat ticks it$/)
    const draft = await json<DraftBody>('/api/v1/onboarding/second')
    expect(draft.status).toBe('registered')
    // The demo owner's smart account is the same account: the second Golem joins the demo's fleet.
    const fleet = await fleetOf(draft.account)
    expect(fleet.map((g) => g.id).sort()).toEqual(['demo', 'second'])
    await page.waitForSelector('#fleet li[data-golem="second"].selected')
    await page.screenshot({ path: join(artifacts, '2-registered.png'), fullPage: true })
    expect(consoleErrors, output.slice(-40).join('\n')).toEqual([])
  }, 180_000)

  it('the heartbeat ticks the new Golem and redeems its runway from the owner’s smart account', async () => {
    const redemptions = await waitFor('a redemption by the second Golem', async () => {
      const r = await json<{ redemptions: unknown[] }>('/api/v1/golems/second/redemptions')
      return r.redemptions.length > 0 ? r.redemptions : undefined
    })
    expect(redemptions.length).toBeGreaterThan(0)
    const health = await json<{ health: string }>('/api/v1/golems/second/permission-health')
    expect(['healthy', 'low', 'critical']).toContain(health.health)
  }, 180_000)

  it('a revocation made from the wallet side (not through Bardo) is noticed at a heartbeat: the Golem dies, the demo lives on', async () => {
    const draft = await json<DraftBody>('/api/v1/onboarding/second')
    const runway = draft.delegations.find((d) => d.role === 'runway')!.delegation
    const deployment = readDeploymentFile(stack.deploymentFile!, stack.chainId)
    const chain = localChain(stack.rpcUrl, stack.chainId)
    const publicClient = createPublicClient({ chain, transport: http(stack.rpcUrl) })
    // The owner's own smart account sends it, paid by a key of the owner's: no Bardo route takes part.
    const payer = privateKeyToAccount(generatePrivateKey())
    await fund(stack, { to: payer.address, usdc: 0n, eth: parseEther('1') })
    const smartAccount = await toMetaMaskSmartAccount({
      client: publicClient as never,
      implementation: Implementation.Hybrid,
      deployParams: [owner.address, [], [], []],
      deploySalt: '0x',
      signer: { account: owner },
      environment: deployment.environment,
    })
    expect(smartAccount.address).toBe(draft.account)
    await sendOwnerCalls({
      publicClient: publicClient as never,
      submitter: createWalletClient({ account: payer, chain, transport: http(stack.rpcUrl) }),
      smartAccount,
      calls: [disableDelegationCall(deployment.environment.DelegationManager as Hex, { ...runway, signature: '0x' })],
    })
    const dead = await waitFor('the second Golem dead', async () => {
      const second = (await fleetOf(draft.account)).find((g) => g.id === 'second')
      return second?.status === 'dead' ? second : undefined
    })
    expect(dead.status).toBe('dead')
    const phases = await json<{ current: { registered: boolean } }>('/api/v1/golems/second/phases')
    expect(phases.current.registered).toBe(false)
    const demo = (await fleetOf(draft.account)).find((g) => g.id === 'demo')
    expect(demo?.status).not.toBe('dead')
    await page.screenshot({ path: join(artifacts, '3-revoked-from-wallet.png'), fullPage: true })
  }, 180_000)

  it("an owner whose MetaMask account is itself the smart account (EIP-7702) grants Advanced Permissions from the dashboard; the Golem redeems; the owner's disableDelegation from the wallet ends it", async () => {
    const deployment = readDeploymentFile(stack.deploymentFile!, stack.chainId)
    const chain = localChain(stack.rpcUrl, stack.chainId)
    const publicClient = createPublicClient({ chain, transport: http(stack.rpcUrl) })
    // A MetaMask owner as MetaMask makes one: an EOA upgraded to the framework's EIP7702StatelessDeleGator.
    const walletOwner = privateKeyToAccount(generatePrivateKey())
    await fund(stack, { to: walletOwner.address, usdc: 100_000_000n, eth: parseEther('1') })
    const ownerClient = createWalletClient({ account: walletOwner, chain, transport: http(stack.rpcUrl) })
    const implementation = deployment.environment.implementations.EIP7702StatelessDeleGatorImpl as Address
    const authorization = await ownerClient.signAuthorization({ contractAddress: implementation, executor: 'self' })
    await publicClient.waitForTransactionReceipt({
      hash: await ownerClient.sendTransaction({ to: walletOwner.address, authorizationList: [authorization] }),
    })
    // The wallet's grant is MetaMask's own permissions Snap, in the Snaps simulator: the owner lowers the
    // runway from 20 to 12 USDC a day in its dialog and grants both.
    snapWallet = await startGatorWallet({
      publicClient: publicClient as never,
      chainId: stack.chainId,
      owner: { address: walletOwner.address, signer: walletOwner },
    })
    let answered: { context: Hex }[] = []
    const { page: walletPage, consoleErrors: walletPageErrors } = await openWalletPage(browser, walletOwner, stack.chainId, {
      permissions: async (requests) => {
        answered = (await snapWallet!.grant(requests, { runwayAmount: '12', siteOrigin: new URL(dashboard).origin })) as { context: Hex }[]
        return answered
      },
    })
    await walletPage.goto(`${dashboard}/`, { waitUntil: 'networkidle0' })
    await walletPage.click('button.connect')
    await walletPage.waitForSelector('#wallet-address')
    await walletPage.type('#new-golem-id', 'wallet-golem')
    await walletPage.select('#new-golem-shape', 'permissions')
    await walletPage.type('#new-golem-strategy', STRATEGY)
    await walletPage.click('#draft-golem')
    await walletPage.waitForSelector('#draft')
    // MetaMask would refuse to sign a Delegation from this account: the page asks for permissions instead.
    expect(await walletPage.$$('#draft-delegations li')).toHaveLength(0)
    await walletPage.click('#grant-golem')
    const status = await waitFor('the grant', async () => {
      const s = await walletPage.$eval('#new-golem-status', (e) => e.textContent ?? '')
      return /registered|failed/.test(s) ? s : undefined
    })
    expect(status, status).toMatch(/^registered Golem wallet-golem \(key 0x[0-9a-fA-F]{40}\)/)
    await walletPage.waitForSelector('#fleet li[data-golem="wallet-golem"].selected')
    // The panel shows what the wallet granted to the Session Account, and the key's re-delegation under it.
    await walletPage.waitForSelector('#permissions li[data-layer="session-account"]')
    const granted = await walletPage.$$eval('#permissions li[data-layer="session-account"] > ul.caveats .caveat', (els) =>
      els.map((e) => e.textContent ?? ''),
    )
    expect(granted.join(' | ')).toMatch(/12 USDC/)
    expect(await walletPage.$$('#permissions li[data-layer="key"] .caveat[data-type="golemPhase"]')).toHaveLength(1)
    // Revoking and renewing an Advanced Permission is the wallet's: the buttons say so.
    expect(await walletPage.$eval('#revoke', (e) => (e as unknown as { disabled: boolean }).disabled)).toBe(true)
    expect(await walletPage.$eval('#in-wallet', (e) => e.textContent ?? '')).toMatch(/revoke or change it in MetaMask/)
    await walletPage.screenshot({ path: join(artifacts, '4-permissions-registered.png'), fullPage: true })
    await waitFor('a redemption by the wallet Golem', async () => {
      const r = await json<{ redemptions: unknown[] }>('/api/v1/golems/wallet-golem/redemptions')
      return r.redemptions.length > 0 ? true : undefined
    })
    // What the Snap granted is what Bardo holds: the lowered amount.
    const fleetGolem = (
      await json<{ golems: { id: string; runway: { periodAmount: string } }[] }>(`/api/v1/fleet?owner=${walletOwner.address}`)
    ).golems.find((g) => g.id === 'wallet-golem')
    expect(fleetGolem?.runway.periodAmount).toBe('12000000')
    // From the wallet (MetaMask's "All permissions" page sends the same): the owner disables the runway grant.
    const [root] = decodeDelegations(answered[0]!.context)
    await publicClient.waitForTransactionReceipt({
      hash: await ownerClient.sendTransaction(disableDelegationCall(deployment.environment.DelegationManager as Hex, root!) as never),
    })
    await waitFor('the wallet Golem dead', async () => {
      const g = (await fleetOf(walletOwner.address)).find((x) => x.id === 'wallet-golem')
      return g?.status === 'dead' ? g : undefined
    })
    await walletPage.screenshot({ path: join(artifacts, '5-permissions-revoked-from-wallet.png'), fullPage: true })
    expect(walletPageErrors, output.slice(-40).join('\n')).toEqual([])
    await walletPage.close()
  }, 180_000)

  it('`bardo onboard --owner` hands off to the dashboard: the owner grants on the page it prints, and the CLI sees the Golem registered', async () => {
    const strategyFile = join(stateDir, 'third.md')
    writeFileSync(strategyFile, STRATEGY.replace('name: second', 'name: third'))
    let stdout = ''
    let stderr = ''
    // Nothing but the state directory: the CLI finds the API and the dashboard from the running stack.
    const cli = runCli(['onboard', '--golem', 'third', '--strategy', strategyFile, '--owner', owner.address], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, BARDO_STATE_DIR: stateDir },
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: (t: string) => (stderr += t) },
    })
    const grantPage = await waitFor('the grant page', async () => /open (http\S+\?onboard=third) /.exec(stderr + stdout)?.[1])
    expect(new URL(grantPage).origin).toBe(new URL(dashboard).origin)
    await page.goto(grantPage, { waitUntil: 'networkidle0' })
    await page.click('button.connect')
    await page.waitForSelector('#wallet-address')
    await page.waitForSelector('#grant-golem')
    expect(await page.$eval('#draft', (e) => e.getAttribute('data-golem'))).toBe('third')
    await page.click('#grant-golem')
    expect(await cli).toBe(0)
    expect(stdout).toMatch(/^onboarded Golem third: key 0x[0-9a-fA-F]{40}, granted from 0x[0-9a-fA-F]{40} in the browser/m)
    // The CLI held no key of the owner's on this path, and printed none.
    expect(stdout + stderr).not.toContain(ownerKey.slice(2))
    const draft = await json<DraftBody>('/api/v1/onboarding/third')
    expect(draft.status).toBe('registered')
    expect((await fleetOf(draft.account)).map((g) => g.id)).toContain('third')
  }, 180_000)

  it('`bardo onboard` with nothing but the state directory: the demo owner key signs the API draft, and the stack ticks the Golem', async () => {
    let stdout = ''
    let stderr = ''
    const code = await runCli(
      ['onboard', '--golem', 'swapper', '--strategy', join(import.meta.dirname, '..', '..', 'examples', 'STRATEGY.md')],
      {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, BARDO_STATE_DIR: stateDir },
        stdout: { write: (t: string) => (stdout += t) },
        stderr: { write: (t: string) => (stderr += t) },
      },
    )
    expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' })
    expect(stderr).toMatch(/plan: /)
    expect(stderr).toMatch(/signed the runway delegation 0x[0-9a-f]{64}/)
    expect(stdout).toMatch(/^onboarded Golem swapper: key 0x[0-9a-fA-F]{40}, granted from 0x[0-9a-fA-F]{40} with the owner key/m)
    expect(stdout + stderr).not.toContain(ownerKey.slice(2))
    const draft = await json<DraftBody>('/api/v1/onboarding/swapper')
    // Runway, gas and the strategy's action grants, each signed by the key as the wallet would.
    expect(new Set(draft.delegations.map((d) => d.role))).toEqual(new Set(['runway', 'gas', 'actions']))
    await waitFor('a redemption by the swapper', async () => {
      const r = await json<{ redemptions: unknown[] }>('/api/v1/golems/swapper/redemptions')
      return r.redemptions.length > 0 ? true : undefined
    })
  }, 180_000)

  it('a bad owner in the URL answers with the error naming the field, not a spinner; owner actions say why they wait', async () => {
    const bad = await browser.newPage()
    await bad.goto(`${dashboard}/?owner=0x123`, { waitUntil: 'networkidle0' })
    await bad.waitForSelector('#error')
    expect(await bad.$eval('#error', (e) => e.textContent ?? '')).toMatch(/owner: must be the owner smart account address/)
    expect(await bad.$eval('body', (e) => e.textContent ?? '')).not.toContain('Loading…')
    await bad.goto(`${dashboard}/`, { waitUntil: 'networkidle0' })
    await bad.waitForSelector('#actions .reason')
    expect(await bad.$eval('#actions .reason', (e) => e.textContent ?? '')).toBe("connect the owner's wallet first")
    expect(await bad.$eval('#grant-left', (e) => e.textContent ?? '')).toMatch(/^\d+m\d{2}s$/)
    await bad.close()
  }, 60_000)

  it('`bardo onboard` without an owner key and without --owner is a usage error naming --owner, and drafts nothing', async () => {
    let stderr = ''
    const code = await runCli(['onboard', '--golem', 'fourth', '--strategy', join(stateDir, 'third.md')], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, BARDO_STATE_DIR: join(stateDir, 'elsewhere') },
      stdout: { write: () => undefined },
      stderr: { write: (t: string) => (stderr += t) },
    })
    expect(code).not.toBe(0)
    expect(stderr).toMatch(/--owner: is required without BARDO_OWNER_KEY/)
    const res = await fetch(`${dashboard}/api/v1/onboarding/fourth`)
    expect(res.status).toBe(404)
  }, 60_000)
})
