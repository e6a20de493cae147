// A Coordination Council formed from the dashboard, as the owner does it on the local stack: `npm start`
// (in this process, with its own anvil, dynalite, indexer, API and dashboard), two more Golems
// onboarded with `bardo onboard` and nothing but the state directory, then in headless Chromium with a
// wallet announced over EIP-6963 holding the demo owner's key: the owner ticks three living Golems in the
// council panel, names the receiver, and forms the council; the API drafts it, the wallet signs the
// owner's delegation, the API deploys and keeps it, and the panel shows it. `bardo council list` then
// shows the same council.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'puppeteer-core'
import { createPublicClient, http, type Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../../cli/bardo.ts'
import { readStackInfo, type StackInfo } from '../../local/faucet.ts'
import { runLocalStack } from '../../local/runner.ts'
import { waitFor as waitUntil } from '../e2e/stackProcess.ts'
import { launchChromium, openWalletPage } from './browser.ts'

const artifacts = join(import.meta.dirname, '..', '..', 'test-artifacts', 'council')
const output: string[] = []
const waitFor = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000) =>
  waitUntil(what, probe, { timeoutMs, everyMs: 500, output: () => output.slice(-40).join('\n') })

type Council = { council: Address; threshold: number; members: { golemId: string }[]; scope: { dailyLimitUsd: string } }

describe('a council formed from the dashboard on the local stack', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'bardo-council-'))
  const ownerKey = generatePrivateKey()
  const owner = privateKeyToAccount(ownerKey)
  const treasury = privateKeyToAccount(generatePrivateKey()).address
  let stop: () => void
  let stopped: Promise<void>
  let stack: StackInfo
  let dashboard: string
  let browser: Browser
  let page: Page
  let consoleErrors: string[] = []
  const json = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${dashboard}${path}`)
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`)
    return (await res.json()) as T
  }
  const bardo = async (...argv: string[]) => {
    let stdout = ''
    let stderr = ''
    const code = await runCli(argv, {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, BARDO_STATE_DIR: stateDir },
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: (t: string) => (stderr += t) },
    })
    return { code, stdout, stderr }
  }

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
        BARDO_LIFE_SECONDS: '900',
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
    ;({ page, consoleErrors } = await openWalletPage(browser, owner, stack.chainId, { height: 1600 }))
  }, 300_000)

  afterAll(async () => {
    await browser?.close()
    stop?.()
    await stopped
    rmSync(stateDir, { recursive: true, force: true })
  }, 120_000)

  it('onboards two more Golems with `bardo onboard`, the owner key from the state directory', async () => {
    for (const id of ['atlas', 'boreas']) {
      const strategy = join(stateDir, `${id}.md`)
      writeFileSync(strategy, `---\nname: ${id}\nbudget: $20/day\nrunway_days: 5\n---\n\nHold USDC; live on the runway.\n`)
      const r = await bardo('onboard', '--golem', id, '--strategy', strategy)
      expect({ code: r.code, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ code: 0, stderr: '' })
    }
  }, 180_000)

  it('forms a council of three living Golems from the panel: drafted, signed in the wallet, deployed and shown', async () => {
    await page.goto(`${dashboard}/`, { waitUntil: 'networkidle0' })
    await page.waitForSelector('#council #no-council')
    expect(await page.$eval('#form-council-button', (e) => (e as unknown as { disabled: boolean }).disabled)).toBe(true)
    await page.click('button.connect')
    await page.waitForSelector('#wallet-address')
    for (const id of ['demo', 'atlas', 'boreas']) {
      const box = `input[name="council-golem"][value="${id}"]`
      await page.waitForSelector(box)
      await page.click(box)
      await page.waitForFunction(`document.querySelector('${box}')?.checked === true`)
    }
    await page.type('#council-receiver', treasury)
    await page.click('#council-daily-usd', { clickCount: 3 })
    await page.type('#council-daily-usd', '250')
    await page.click('#form-council-button')
    const status = await waitFor('the formation', async () => {
      const s = await page.$eval('#council-status', (e) => e.textContent ?? '')
      return /formed council|failed/.test(s) ? s : undefined
    })
    expect(status).toMatch(/^formed council 0x[0-9a-fA-F]{40}$/)
    const address = status.split(' ').at(-1) as Address
    const card = await page.waitForSelector(`#council .council[data-council="${address}"]`)
    expect(await card!.evaluate((e) => [e.getAttribute('data-threshold'), e.getAttribute('data-seats')])).toEqual(['2', '3'])
    expect(await card!.evaluate((e) => e.textContent ?? '')).toContain(`2 of 3: demo, atlas, boreas; $250 a day to ${treasury}`)
    expect(await page.$eval(`.council[data-council="${address}"] .no-proposals`, (e) => e.textContent)).toBe('No proposals yet.')
    await page.screenshot({ path: join(artifacts, '1-formed.png'), fullPage: true })

    // The API keeps it, and the chain has it: the owner's smart account delegates to a deployed MultiSig DeleGator.
    // The demo owner's smart account, as the stack's console names it.
    const account = /owner smart account (0x[0-9a-fA-F]{40})/.exec(output.join('\n'))![1]
    const { councils } = await json<{ councils: Council[] }>(`/api/v1/councils?owner=${account}`)
    expect(councils.map((c) => [c.council, c.threshold, c.members.map((m) => m.golemId), c.scope.dailyLimitUsd])).toEqual([
      [address, 2, ['demo', 'atlas', 'boreas'], '250'],
    ])
    const client = createPublicClient({ transport: http(stack.rpcUrl) })
    expect(await client.getCode({ address })).not.toBe('0x')
    expect(consoleErrors, consoleErrors.join('\n')).toEqual([])

    const listed = await bardo('council', 'list')
    expect(listed.code).toBe(0)
    expect(listed.stdout).toContain(`council ${address}: 2 of 3 (demo, atlas, boreas), $250/day to ${treasury}`)
  }, 180_000)
})
