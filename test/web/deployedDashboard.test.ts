// The dashboard as the stack deploys it, in headless Chromium: the files `npm run build:dashboard` writes
// (web/dist), served behind a stand-in for the SST Router (the page at `/`, `/api` and `/council` passed
// to the API untouched, as CloudFront forwards them), and the API as the deployment runs it, holding the
// hash of one read key. The page asks its owner for the key the operator gave them: a malformed key is
// refused naming the field and nothing is kept; the real one is kept in the browser only, its API reads
// carry it and are answered under the read tier, and the page shows the owner's fleet and Golem. A key
// rotation that waits for the owner is answered from the wallet through the page.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Hono } from 'hono'
import type { Browser, Page } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { rotationClaimant } from '../../core/custody/rotationClaim.ts'
import { serializeGolemProfile } from '../../core/lifecycle/profile.ts'
import { hashApiKey, readKeyFromBytes } from '../../core/ratelimit/tiers.ts'
import { serveApi, type RunningApi } from '../../functions/api/server.ts'
import { buildDashboard } from '../../scripts/buildDashboard.ts'
import { startApiStack, type ApiStack } from '../api/harness.ts'
import { launchChromium, openWalletPage } from './browser.ts'

const dir = mkdtempSync(join(tmpdir(), 'bardo-deployed-page-'))
const readKey = readKeyFromBytes(randomBytes(24))
let stack: ApiStack
let api: RunningApi
let router: RunningApi
let browser: Browser
let page: Page
/** What reached the API through the router: each read's path, whether it carried a key, the tier's limit. */
const forwarded: { path: string; keyed: boolean; limit: string | null }[] = []

beforeAll(async () => {
  stack = await startApiStack()
  await stack.provision('atlas')
  // The deployed API's rate limits (30 a minute anonymous, 300 with a read key), one read key's hash.
  api = await serveApi(stack.app({ config: { allowedOrigins: [], readApiKeyHashes: [hashApiKey(readKey)] } }))
  const dist = join(dir, 'dist')
  await buildDashboard(dist, {})
  const files = { '/': ['index.html', 'text/html; charset=utf-8'], '/app.js': ['app.js', 'text/javascript; charset=utf-8'] } as const
  const app = new Hono()
  for (const [path, [file, type]] of Object.entries(files))
    app.get(path, (c) => c.body(readFileSync(join(dist, file), 'utf8'), 200, { 'content-type': type }))
  const pass = async (c: { req: { raw: Request; url: string } }) => {
    const url = new URL(c.req.url)
    const headers = new Headers(c.req.raw.headers)
    headers.delete('host')
    const method = c.req.raw.method
    const res = await fetch(`${api.url}${url.pathname}${url.search}`, {
      method,
      headers,
      ...(method === 'GET' || method === 'HEAD' ? {} : { body: await c.req.raw.arrayBuffer() }),
    })
    forwarded.push({ path: url.pathname, keyed: headers.has('x-api-key'), limit: res.headers.get('x-ratelimit-limit') })
    const out = new Headers(res.headers)
    out.delete('content-encoding')
    out.delete('content-length')
    return new Response(await res.arrayBuffer(), { status: res.status, headers: out })
  }
  app.all('/api/*', pass)
  app.all('/council/*', pass)
  router = await serveApi(app)
  browser = await launchChromium()
  page = await browser.newPage()
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await router?.close()
  await api?.close()
  await stack?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const text = (selector: string) => page.$eval(selector, (e) => e.textContent ?? '')

describe('the deployed dashboard', () => {
  it("asks for the owner's read key, refuses a malformed one by name, and reads under the read tier with the real one", async () => {
    await page.goto(`${router.url}/?owner=${stack.owner.address}`)
    await page.waitForSelector('#fleet li[data-golem="atlas"]', { timeout: 30_000 })
    expect(await text('#read-key')).toContain('enter the read key your operator gave you')
    // Without a key the page reads as anyone does: under the anonymous tier.
    expect(forwarded.filter((f) => f.path.startsWith('/api/')).every((f) => !f.keyed)).toBe(true)
    expect(forwarded.find((f) => f.path === '/api/v1/fleet')?.limit).toBe('30')

    await page.type('#read-key input', 'bardo_read_short')
    await page.click('#read-key button.save')
    await page.waitForFunction("(document.querySelector('#read-key-status')?.textContent ?? '') !== ''")
    expect(await text('#read-key-status')).toBe("readKey: must be 'bardo_read_' followed by 16-128 letters, digits, '-' or '_'")
    expect(await page.evaluate("localStorage.getItem('bardo.readKey')")).toBeNull()

    await page.evaluate("document.querySelector('#read-key input').value = ''")
    await page.type('#read-key input', readKey)
    await page.click('#read-key button.save')
    await page.waitForFunction("(document.querySelector('#read-key')?.textContent ?? '').includes('reading with the read key')")
    expect(await text('#read-key code')).toBe(`bardo_read_…${readKey.slice(-4)}`)
    const from = forwarded.length
    expect(await page.evaluate("localStorage.getItem('bardo.readKey')")).toBe(readKey)
    // The next reads carry the key and are answered under the read tier; the page shows the Golem.
    await page.waitForSelector('main[data-golem="atlas"] #vital-signs', { timeout: 30_000 })
    const deadline = Date.now() + 20_000
    while (forwarded.slice(from).filter((f) => f.path === '/api/v1/fleet').length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 250))
    const keyed = forwarded.slice(from).filter((f) => f.path.startsWith('/api/'))
    expect(keyed.length).toBeGreaterThan(0)
    expect(keyed.every((f) => f.keyed && f.limit === '300')).toBe(true)
    // The key is the browser's alone: the files the stack serves never carry one.
    for (const path of ['/', '/app.js']) expect(await (await fetch(`${router.url}${path}`)).text()).not.toContain(readKey)
  }, 120_000)

  it('answers a key rotation that waits for the owner: the grant to the new key signed in the wallet, kept by the API, the card then says the next heartbeat switches', async () => {
    // A rotation only the owner can complete, as the deployed tick leaves it: the new key created and
    // claimed for the Golem's current key, the wait written into its profile.
    const record = (await stack.store.getGolem('atlas'))!
    const profile = await stack.profile('atlas')
    const newKey = privateKeyToAccount(generatePrivateKey()).address
    const now = Date.now()
    await stack.store.claimPoolKey({
      keyId: 'arn:aws:kms:us-east-1:1:key/rotated',
      address: newKey,
      claimant: rotationClaimant(profile.golemKey),
      now,
    })
    const written = await stack.store.updateGolem({
      golemId: 'atlas',
      expectedVersion: record.version,
      patch: {
        profile: serializeGolemProfile({ ...profile, rotationAwaits: { to: newKey, requestedAt: BigInt(Math.floor(now / 1000)) } }),
      },
      now,
    })
    expect(written.updated).toBe(true)

    const { page: owner } = await openWalletPage(browser, stack.owner.signer, stack.devnet.chain.id)
    await owner.goto(`${router.url}/?owner=${stack.owner.address}`)
    await owner.waitForSelector('#rotation[data-status="awaiting-owner"]', { timeout: 30_000 })
    expect(await owner.$eval('#rotation', (e) => e.textContent ?? '')).toContain('it keeps its old key')
    await owner.click('button.connect')
    await owner.waitForSelector('#wallet-address')
    await owner.click('#grant-rotation')
    await owner.waitForSelector('#rotation[data-status="answered"]', { timeout: 30_000 })
    expect(await owner.$eval('#rotation-status', (e) => e.textContent ?? '')).toContain(`granted to ${newKey}`)
    // The API kept the owner's grants to the new key for the next heartbeat to install, the runway's and,
    // signed beside it in the wallet, the gas grant's; the old key still redeems.
    const after = await stack.profile('atlas')
    expect(profile.gas?.chain).toHaveLength(1)
    expect(after.rotationGrant).toMatchObject({ to: newKey })
    expect(after.rotationGrant?.gas?.chain[0]?.delegate).toBe(newKey)
    expect(after.golemKey).toBe(profile.golemKey)
    await owner.close()
  }, 120_000)
})
