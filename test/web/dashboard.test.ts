// The owner's dashboard in a real browser: the local stack as `npm start` runs it (in this process, with
// its own anvil, dynalite, indexer, API and dashboard, stopped at the end), headless Chromium from
// @sparticuz/chromium, and a wallet announced over EIP-6963 whose key is the demo owner's
// (BARDO_OWNER_KEY). The page loads cleanly and draws the demo Golem's phases; a browser x402 payment is
// credited; a renewal signed in the wallet waits behind the grant and takes over when it ends; the
// Snap's hand-off (?revoke=) offers the one act; a read-only observer is granted on the Observers card
// and revoked through the owner's user operation; a revocation from the owner's smart account disables
// every grant of the Golem in one user operation and it dies within two beats. A screenshot of each
// state is kept in test-artifacts/dashboard/.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPublicClient, http, parseUnits, type Hex } from 'viem'
import { entryPoint07Abi, toPackedUserOperation } from 'viem/account-abstraction'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { fund, readStackInfo, type StackInfo } from '../../local/faucet.ts'
import { LOCAL_READ_LIMIT } from '../../local/readKey.ts'
import { runLocalStack } from '../../local/runner.ts'
import { defaultFleetPath, launchChromium, openWalletPage, walletRequest } from './browser.ts'
import { walletJson } from './testWallet.ts'
import { signedUserOperation } from '../../web/src/userOperation.ts'

const artifacts = join(import.meta.dirname, '..', '..', 'test-artifacts', 'dashboard')

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  while (Date.now() < deadline) {
    try {
      const v = await probe()
      if (v !== undefined) return v
    } catch (e) {
      last = e
    }
    await new Promise((r) => setTimeout(r, 500))
  }
  throw new Error(`${what} not seen in time (last error: ${String(last)})\n--- stack output ---\n${output.slice(-40).join('\n')}`)
}

const output: string[] = []

type Health = { health: string; reason: string; grant_ends_at: number; runway_ends_at: number }
type Fleet = {
  golems: {
    id: string
    runway: { delegationHash: string; periodAmount: string } | null
    renewals: { delegationHash: string; periodStart: number; expiresAt: number }[]
    adjustment: { delegationHash: string } | null
  }[]
}

describe("the owner's dashboard in headless Chromium", () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'bardo-dash-'))
  const ownerKey = generatePrivateKey()
  const owner = privateKeyToAccount(ownerKey)
  let stop: () => void
  let stopped: Promise<void>
  let dashboard: string
  let stack: StackInfo
  let browser: Browser
  let page: Page
  let consoleErrors: string[] = []
  /** Every POST the page makes: the owner's acts go to the API and the wallet, never to a local route. */
  const posts: string[] = []
  const json = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${dashboard}${path}`)
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`)
    return (await res.json()) as T
  }
  const health = () => json<Health>('/api/v1/golems/demo/permission-health')
  type Payment = { kind: string; payer: string; seconds: string; nonce: string }
  /** The TTL with the journal's credits that moved it: read until no credit lands between the two reads. */
  const ledgerSnapshot = () =>
    waitFor('a TTL and journal read together', async () => {
      const first = (await health()).runway_ends_at
      const { payments } = await json<{ payments: Payment[] }>('/api/v1/golems/demo/payments?limit=100')
      return (await health()).runway_ends_at === first ? { runwayEndsAt: first, payments } : undefined
    })
  const shot = (name: string) => page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true })
  const statusText = () => page.$eval('#action-status', (e) => e.textContent ?? '')

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
        // A short life with 5 s periods: redemptions and the first phase change come within a minute.
        BARDO_LIFE_SECONDS: '90',
        BARDO_PERIOD_SECONDS: '5',
        BARDO_TICK_SECONDS: '1',
        BARDO_BEAT_MS: '250',
        DO_NOT_TRACK: '1',
        PONDER_TELEMETRY_DISABLED: 'true',
      },
    })
    dashboard = await waitFor('the dashboard URL', async () => {
      const line = output.find((l) => /dashboard\s+http/.test(l))
      return line ? /(http:\/\/127\.0\.0\.1:\d+)/.exec(line)![1] : undefined
    })
    await waitFor('ready', async () => (output.some((l) => l.includes('ready in')) ? true : undefined))
    stack = readStackInfo(stateDir)
    browser = await launchChromium()
    ;({ page, consoleErrors } = await openWalletPage(browser, owner, stack.chainId, { rpcUrl: stack.rpcUrl }))
    page.on('request', (req) => {
      if (req.method() === 'POST') posts.push(new URL(req.url()).pathname)
    })
  }, 240_000)

  afterAll(async () => {
    await browser?.close()
    stop?.()
    await stopped
    rmSync(stateDir, { recursive: true, force: true })
  }, 120_000)

  it('loads without console errors and charts at least two phases of the demo Golem', async () => {
    // The page is opened once the demo has moved phase, so its first render already has history to draw.
    await waitFor('the first phase change', async () => {
      const body = await json<{ transitions: unknown[] }>('/api/v1/golems/demo/phases')
      return body.transitions.length > 0 ? true : undefined
    })
    await page.goto(`${dashboard}/`, { waitUntil: 'networkidle0' })
    const phases = await waitFor('two phase bands', async () => {
      const list = await page.$eval('.bands', (e) => e.getAttribute('data-phases') ?? '').catch(() => '')
      return list.split(',').length >= 2 ? list.split(',') : undefined
    })
    expect(phases.slice(0, 2)).toEqual(['Thriving', 'Stable'])
    expect(await page.$eval('#phase-history canvas', (c) => (c as unknown as { width: number }).width)).toBeGreaterThan(0)
    expect(await page.$$eval('#permissions .caveat', (els) => els.map((e) => e.textContent ?? ''))).toContainEqual(
      expect.stringMatching(/USDC/),
    )
    expect(await page.$eval('#runway [data-health]', (e) => e.getAttribute('data-health'))).toBe('healthy')
    // The demo swaps every beat: the permissions panel lists the swap beside the redemptions, with its USD and caveats.
    const swap = await page.waitForSelector('#permissions tr.action[data-kind="swap"]', { timeout: 60_000 })
    const row = await swap!.evaluate((e) => e.textContent ?? '')
    // Both sides in the token's units with its symbol: WETH in ether units, not base units beside an address.
    expect(row).toMatch(/swap \d+(\.\d+)? USDC for at least \d+(\.\d+)? WETH/)
    expect(row).toMatch(/\$\d/)
    expect(row).toMatch(/bound by .*maxSlippage/)
    // Every grant the Golem holds, in words: the runway above, the gas grant and each action grant.
    expect(await page.$eval('#permissions [data-grant="gas"]', (e) => e.textContent ?? '')).toMatch(
      /^[\d.]+ ETH per .+ to the Golem's key$/,
    )
    expect(await page.$eval('#permissions [data-left="gas"]', (e) => e.textContent ?? '')).toMatch(/^[\d.]+ ETH left this period$/)
    const actionGrants = await page.$$eval('#permissions [data-grant="action"]', (els) =>
      els.map((e) => e.getAttribute('data-label') ?? ''),
    )
    expect(actionGrants.length).toBeGreaterThanOrEqual(2)
    expect(await page.$$eval('#permissions [data-grant="action"] .caveat', (els) => els.length)).toBeGreaterThan(0)
    // Under its daily USD limit, what is left today as the enforcer counts it: below the cap once the demo has swapped.
    const leftToday = await page.$$eval('#permissions [data-left="action"]', (els) => els.map((e) => e.textContent ?? ''))
    expect(leftToday.length).toBeGreaterThan(0)
    expect(leftToday[0]).toMatch(/^ ?\$[\d.]+ left today \(until .+\)$/)
    expect(Math.min(...leftToday.map((t) => Number(/\$([\d.]+)/.exec(t)![1])))).toBeLessThan(25)
    // Metabolism: the runway the demo redeemed, from the journal.
    const redeemed = await page.waitForSelector('#metabolism .totals .runway')
    // Just in time: the demo redeems its coming period's runtime (half a USDC), not its whole allowance.
    const redeemedText = await redeemed!.evaluate((e) => e.textContent ?? '')
    expect(redeemedText).toMatch(/^\d+(\.\d+)? USDC$/)
    expect(Number.parseFloat(redeemedText)).toBeGreaterThan(0)
    expect(await page.$eval('#metabolism .lifespan', (e) => e.textContent ?? '')).not.toBe('')
    await shot('1-loaded')
    expect(consoleErrors).toEqual([])
    // Reads go out under the read tier, with the key added by the server: the page never holds it.
    const readKey = /read key\s+(bardo_read_[A-Za-z0-9_-]+)/.exec(output.join('\n'))![1]!
    const proxied = await fetch(`${dashboard}/api/v1/golems/demo/permission-health`)
    expect(proxied.headers.get('x-ratelimit-limit')).toBe(String(LOCAL_READ_LIMIT))
    for (const path of ['/', '/app.js', '/api/v1/dashboard/config', await defaultFleetPath(dashboard)])
      expect(await (await fetch(`${dashboard}${path}`)).text()).not.toContain(readKey)
  }, 180_000)

  it('connects the wallet announced over EIP-6963 and pays extend with x402 from it, credited once', async () => {
    await fund(stack, { to: owner.address, usdc: parseUnits('30', 6), eth: 0n })
    const before = await ledgerSnapshot()
    await page.click('button.connect')
    await page.waitForSelector('#wallet-address')
    expect(await page.$eval('#wallet-address', (e) => e.textContent)).toBe(owner.address)
    await page.click('#extend')
    const status = await waitFor('the credit', async () => {
      const s = await statusText()
      return /credited|failed/.test(s) ? s : undefined
    })
    expect(status).toBe('extend: credited 0.5 USDC')
    // The demo Golem also buys its own runtime over x402 while it lives: the TTL moves by exactly the
    // credits journaled in between, of which the owner's payment is one, credited once.
    const after = await ledgerSnapshot()
    const added = after.payments.filter((p) => !before.payments.some((q) => q.nonce === p.nonce))
    expect(added.filter((p) => p.payer.toLowerCase() === owner.address.toLowerCase())).toMatchObject([{ kind: 'extend', seconds: '3600' }])
    expect(after.runwayEndsAt).toBe(before.runwayEndsAt + added.reduce((sum, p) => sum + Number(p.seconds), 0))
    await page.waitForSelector('#payments .payment[data-kind="extend"]')
    await shot('2-paid')
  }, 120_000)

  it('renews the grant with a delegation signed in the wallet: queued behind the grant, in force once the old one ends', async () => {
    const before = await health()
    const oldHash = (await json<Fleet>(await defaultFleetPath(dashboard))).golems[0]!.runway!.delegationHash
    await page.click('#renew')
    const status = await waitFor('the renewal', async () => {
      const s = await statusText()
      return /grant 0x|failed/.test(s) ? s : undefined
    })
    const newHash = /grant (0x[0-9a-f]{64}) follows the current one/.exec(status)?.[1]
    expect(newHash, status).toBeDefined()
    expect(newHash).not.toBe(oldHash)
    // Queued: the old grant still pays; the page shows the renewal waiting behind it.
    const fleet = (await json<Fleet>(await defaultFleetPath(dashboard))).golems[0]!
    expect(fleet.runway!.delegationHash).toBe(oldHash)
    expect(fleet.renewals.map((r) => r.delegationHash)).toEqual([newHash])
    await page.waitForSelector(`#runway .renewal-queued[data-hash="${newHash}"]`)
    expect((await health()).grant_ends_at).toBeGreaterThan(before.grant_ends_at)
    // The card states the renewals' end as the vital signs do, the grant paying now beside it.
    const vitals = await json<{ current: { vitals: { grantEndsAt: number } } }>('/api/v1/golems/demo/phases')
    const grantsEnd = await waitFor('the renewals end on the card', async () => {
      const at = await page.$eval('#runway #grants-end', (e) => e.getAttribute('data-at')).catch(() => null)
      return at === null ? undefined : Number(at)
    })
    expect(grantsEnd).toBe(vitals.current.vitals.grantEndsAt)
    expect(grantsEnd).toBe(Math.max(...fleet.renewals.map((r) => Number(r.expiresAt))))
    // In force once the old grant's end has passed: the next tick puts it in place of the old one.
    await waitFor(
      'the renewal in force',
      async () => ((await json<Fleet>(await defaultFleetPath(dashboard))).golems[0]!.runway!.delegationHash === newHash ? true : undefined),
      240_000,
    )
    expect((await json<Fleet>(await defaultFleetPath(dashboard))).golems[0]!.renewals).toEqual([])
    expect(posts).toContain('/api/v1/golems/demo/renewal-draft')
    expect(posts.filter((p) => p.startsWith('/local/'))).toEqual([])
    await shot('3-renewed')
  }, 300_000)

  it('adjusts the grant from the wallet: half the amount from the next period, never read as a revocation', async () => {
    const before = (await json<Fleet>(await defaultFleetPath(dashboard))).golems[0]!
    const half = BigInt(before.runway!.periodAmount) / 2n
    // A bad amount is refused before anything is signed, naming the field.
    const bad = await fetch(`${dashboard}/api/v1/golems/demo/adjustment-draft`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ periodAmount: (BigInt(before.runway!.periodAmount) * 2n).toString() }),
    })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/^periodAmount: /) })
    await page.type('#adjust-amount', (Number(half) / 1e6).toString())
    await page.click('#adjust')
    const status = await waitFor('the adjustment', async () => {
      const s = await statusText()
      return /old grant was disabled in 0x|failed/.test(s) ? s : undefined
    })
    expect(status).toMatch(/^adjust: [\d.]+ USDC per period from .* the old grant was disabled in 0x[0-9a-f]{64}$/)
    // The Golem switches at its next tick; health never says revoked on the way.
    const seen = new Set<string>()
    const adjusted = await waitFor('the adjustment in force', async () => {
      seen.add((await health()).health)
      const g = (await json<Fleet>(await defaultFleetPath(dashboard))).golems[0]!
      return g.runway!.delegationHash !== before.runway!.delegationHash && g.adjustment === null ? g : undefined
    })
    expect(BigInt(adjusted.runway!.periodAmount)).toBe(half)
    expect([...seen]).not.toContain('revoked')
    // The custody events say what happened, newest first: the adjustment signed, then put in force.
    await page.waitForSelector('#timeline tr.event[data-type="DelegationAdjusted"]')
    await page.waitForSelector('#timeline tr.event[data-type="DelegationAdjustmentSigned"]')
    expect(output.some((l) => /died/.test(l))).toBe(false)
    await shot('3b-adjusted')
  }, 120_000)

  it("grants a read-only observer from the wallet and revokes it through the owner's user operation, on the Observers card", async () => {
    const observer = privateKeyToAccount(generatePrivateKey()).address
    await page.waitForSelector('#observers #no-observers')
    // A bad address is refused by the API naming the field, and nothing is granted.
    await page.type('#observer-address', '0x1234')
    await page.click('#grant-observer-button')
    const refused = await waitFor('the refusal', async () => {
      const s = await page.$eval('#observers-status', (e) => e.textContent ?? '')
      return /failed|may publish/.test(s) ? s : undefined
    })
    expect(refused).toMatch(/^grant failed: .*400 VALIDATION_FAILED observer: must be a 20-byte/)
    // The address typed over the refused one (selected whole, as an owner corrects a field).
    await page.click('#observer-address', { clickCount: 3 })
    await page.type('#observer-address', observer)
    await page.click('#grant-observer-button')
    const granted = await waitFor('the grant', async () => {
      const s = await page.$eval('#observers-status', (e) => e.textContent ?? '')
      return s !== refused && /failed|may publish/.test(s) ? s : undefined
    })
    expect(granted).toBe(`grant: ${observer} may publish startDream, endDream, setPAD from your account`)
    const row = `#observers tr.observer[data-observer="${observer}"]`
    await page.waitForSelector(`${row}[data-status="active"]`)
    await shot('3c-observer')
    await page.click(`${row} .revoke-observer`)
    const revoked = await waitFor('the revocation', async () => {
      const s = await page.$eval('#observers-status', (e) => e.textContent ?? '')
      return /failed|revoked in/.test(s) ? s : undefined
    })
    expect(revoked).toMatch(/^revoke: 0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4} revoked in 0x[0-9a-f]{64}$/)
    // The list reads the chain's head: revoked as soon as the owner's transaction is mined.
    await page.waitForSelector(`${row}[data-status="revoked"]`, { timeout: 30_000 })
    const txHash = /revoked in (0x[0-9a-f]{64})$/.exec(revoked)![1] as Hex
    const tx = await createPublicClient({ transport: http(stack.rpcUrl) }).getTransaction({ hash: txHash })
    expect(tx.from.toLowerCase()).toBe(owner.address.toLowerCase())
    expect(posts).toEqual(
      expect.arrayContaining([
        '/api/v1/golems/demo/observer-draft',
        '/api/v1/golems/demo/observers',
        '/api/v1/golems/demo/observers/revocation-draft',
      ]),
    )
    expect(posts.filter((p) => p.startsWith('/local/'))).toEqual([])
  }, 120_000)

  it("refuses a draft for no Golem, naming the field, and the chain refuses a stranger's signature on the owner's operation; nothing changes", async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${dashboard}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    // The owner's own revocation draft, signed by a stranger's key: the owner's smart account refuses it,
    // so the EntryPoint does not run it, whoever submits it.
    const draft = (await (await post('/api/v1/revocation-draft', { golems: ['demo'] })).json()) as {
      userOperation: Record<string, string>
      typedData: never
      entryPoint: Hex
    }
    const stranger = privateKeyToAccount(generatePrivateKey())
    const forged = (await walletRequest(stranger, stack.chainId, 'eth_signTypedData_v4', [
      stranger.address,
      walletJson(draft.typedData),
    ])) as Hex
    const packed = toPackedUserOperation(signedUserOperation(draft, forged))
    const chain = createPublicClient({ transport: http(stack.rpcUrl) })
    await expect(
      chain.simulateContract({
        address: draft.entryPoint,
        abi: entryPoint07Abi,
        functionName: 'handleOps',
        args: [[packed], owner.address],
        account: owner.address,
      }),
    ).rejects.toThrow(/AA24 signature error/)
    expect(await health()).toMatchObject({ health: expect.not.stringMatching(/revoked/) })
    const unknownOwner = await fetch(`${dashboard}/api/v1/fleet?owner=nobody`)
    expect(unknownOwner.status).toBe(400)
    expect(await unknownOwner.json()).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'owner' } })
    // A draft for no Golem, or for ids that are not ids, names the field.
    for (const golems of [[], 'demo', ['../etc']]) {
      const bad = await post('/api/v1/revocation-draft', { golems })
      expect(bad.status).toBe(400)
      expect(await bad.json()).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/^golems: /) })
    }
  }, 120_000)

  it("shows the Snap's hand-off: the Portal opened with ?revoke= offers the one act for the Golems it names", async () => {
    await page.goto(`${dashboard}/?revoke=demo`, { waitUntil: 'networkidle0' })
    await page.waitForSelector('#revoke-request')
    expect(await page.$eval('#revoke-request h3', (e) => e.textContent ?? '')).toBe('Revoke 1 Golem(s): demo')
    // Before a wallet is connected the button is disabled, and says why.
    expect(await page.$eval('#revoke-all', (e) => (e as unknown as { disabled: boolean }).disabled)).toBe(true)
    expect(await page.$eval('#revoke-request .reason', (e) => e.textContent ?? '')).toMatch(/connect the owner's wallet/)
    await page.click('button.connect')
    await page.waitForSelector('#wallet-address')
    expect(await page.$eval('#revoke-all', (e) => (e as unknown as { disabled: boolean }).disabled)).toBe(false)
    await page.goto(`${dashboard}/`, { waitUntil: 'networkidle0' })
    await page.click('button.connect')
    await page.waitForSelector('#wallet-address')
  }, 120_000)

  it('revokes from the wallet: every grant in one user operation; the Golem dies within two beats and its funds go home', async () => {
    // The grants the adjustment superseded are disabled already; the revocation disables the rest.
    const { calls, alreadyDisabled: earlier } = await json<{ calls: { kind: string }[]; alreadyDisabled: string[] }>(
      '/api/v1/golems/demo/revocation',
    )
    expect(new Set(calls.map((c) => c.kind))).toEqual(new Set(['runway', 'gas', 'action']))
    const mark = output.length
    await page.click('#revoke')
    const status = await waitFor('the revocation', async () => {
      const s = await statusText()
      return /disabled in|failed/.test(s) ? s : undefined
    })
    expect(status).toMatch(new RegExp(`^revoke: ${calls.length} grant\\(s\\) disabled in 0x[0-9a-f]{64}$`))
    // Revoked at once, dead at the next beat: the page told the API, which woke the Golem.
    expect(['revoked', 'dead']).toContain((await health()).health)
    await waitFor('the death', async () => (output.slice(mark).some((l) => l.startsWith('the demo Golem died')) ? true : undefined))
    const after = output.slice(mark)
    const died = after.findIndex((l) => l.startsWith('the demo Golem died'))
    expect(after.slice(0, died).filter((l) => /^age\s/.test(l.trim())).length).toBeLessThanOrEqual(2)
    expect(after[died]).toMatch(/OwnerRevocation/)
    expect(after.slice(died).join('\n')).toMatch(/returned [\d.]+ (USDC|ETH) to the owner/)
    const plan = await json<{ calls: unknown[]; alreadyDisabled: string[] }>('/api/v1/golems/demo/revocation')
    expect(plan).toMatchObject({ calls: [] })
    expect(plan.alreadyDisabled).toHaveLength(earlier.length + calls.length)
    // The owner's transaction, from the owner's own wallet account: no relay submitted it.
    const txHash = /disabled in (0x[0-9a-f]{64})$/.exec(status)![1] as Hex
    const tx = await createPublicClient({ transport: http(stack.rpcUrl) }).getTransaction({ hash: txHash })
    expect(tx.from.toLowerCase()).toBe(owner.address.toLowerCase())
    expect(posts).toContain('/api/v1/revocation-draft')
    expect(posts.filter((p) => p.startsWith('/local/'))).toEqual([])
    // The runway card shows the grant revoked, dated by that transaction, in place of the time it had left.
    await page.waitForFunction(`document.querySelector('#grant-revoked')?.dataset.tx === '${txHash}'`, { timeout: 30_000 })
    expect(await page.$eval('#grant-revoked', (e) => e.textContent ?? '')).toMatch(
      new RegExp(`^revoked by the owner at \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} in ${txHash.slice(0, 6)}…${txHash.slice(-4)}$`),
    )
    expect(await page.$('#grant-left')).toBeNull()
    expect(await page.$eval('#permissions-revoked', (e) => e.textContent ?? '')).toMatch(/owner revoked these grants/)
    await shot('4-revoked')
  }, 120_000)

  it('shows the death and the succession call to action', async () => {
    // The overlay counts down through Terminal first; the page says the Golem died once its poll reads the death.
    await page.waitForFunction("document.querySelector('#death-overlay h3')?.textContent === 'This Golem has died'", { timeout: 60_000 })
    const overlay = await page.$('#death-overlay h3')
    expect(await overlay!.evaluate((e) => e.textContent ?? '')).toBe('This Golem has died')
    expect(await page.$eval('#death-overlay', (e) => e.textContent ?? '')).toMatch(/successor/)
    // Where the money went: what the death protocol sent home, per asset, in the token's units. It comes
    // from the fleet list, which each poll reads before the Golem's own view: the view can say dead a
    // poll before the list holds the death's settlement, and the next poll (3 s) shows both.
    await page.waitForFunction(
      String.raw`[...document.querySelectorAll('#money-home li')].some((e) => /^[\d.]+ (USDC|ETH) returned to the owner/.test(e.textContent ?? ''))`,
      { timeout: 30_000 },
    )
    const home = await page.$$eval('#money-home li', (els) => els.map((e) => e.textContent ?? ''))
    expect(home.some((l) => /^[\d.]+ (USDC|ETH) returned to the owner/.test(l))).toBe(true)
    expect(await page.$eval('#death-cause', (e) => e.textContent ?? '')).toMatch(
      /^Cause: the owner revoked the grant \(DelegationExpiry\)\./,
    )
    expect(await page.$eval('#metabolism', (e) => e.textContent ?? '')).toMatch(/went home to the owner/)
    expect((await health()).health).toBe('dead')
    await shot('5-dead')
  }, 120_000)
})
