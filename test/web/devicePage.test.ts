// The device-code confirmation page on the API's own origin, in headless Chromium with the owner's wallet:
// `bardo login`'s code approved (the CLI's poll then gets a token for the owner) and refused (the poll
// then gets access_denied), and a code that is not one shown named by the API, with nothing spent.
import type { Browser, Page } from 'puppeteer-core'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveApi, type RunningApi } from '../../functions/api/server.ts'
import { startApiStack, type ApiStack } from '../api/harness.ts'
import { launchChromium, openWalletPage } from './browser.ts'

const owner = privateKeyToAccount(generatePrivateKey())
let stack: ApiStack
let api: RunningApi
let browser: Browser
let page: Page
let consoleErrors: string[]

const post = async (path: string, body: unknown = {}) => {
  const res = await fetch(`${api.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}
const startSignIn = async () =>
  (await post('/api/v1/auth/device')).body as { device_code: string; user_code: string; verification_uri_complete: string }
const poll = (deviceCode: string) =>
  post('/api/v1/auth/token', { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: deviceCode })

async function decide(uri: string, button: '#approve' | '#deny'): Promise<string> {
  await page.goto(uri, { waitUntil: 'networkidle0' })
  await page.click('#connect')
  await page.waitForSelector('#wallet[data-account]')
  await page.click(button)
  await page.waitForFunction("['done', 'error'].includes(document.getElementById('status')?.dataset.kind ?? '')")
  return page.$eval('#status', (e) => e.textContent ?? '')
}

beforeAll(async () => {
  stack = await startApiStack()
  api = await serveApi(stack.app())
  browser = await launchChromium()
  ;({ page, consoleErrors } = await openWalletPage(browser, owner, stack.devnet.deployment.chainId))
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await api?.close()
  await stack?.stop()
})

describe('the device-code confirmation page (GET /device)', () => {
  it("approves the CLI's code with the owner's signature: the next poll gets a token for that owner", async () => {
    const signIn = await startSignIn()
    expect(signIn.verification_uri_complete).toBe(`${api.url}/device?user_code=${signIn.user_code}`)
    const status = await decide(signIn.verification_uri_complete, '#approve')
    expect(status).toBe(`Approved: the CLI signs in as ${owner.address} at its next poll. You can close this page.`)
    const token = await poll(signIn.device_code)
    expect(token.status).toBe(200)
    expect(token.body).toMatchObject({ token_type: 'Bearer', owner: owner.address })
    expect(consoleErrors).toEqual([])
  }, 60_000)

  it('refuses: the next poll is told access_denied', async () => {
    const signIn = await startSignIn()
    expect(await decide(signIn.verification_uri_complete, '#deny')).toBe('Refused: the CLI is told at its next poll.')
    expect((await poll(signIn.device_code)).body).toMatchObject({ error: 'access_denied' })
  }, 60_000)

  it('names a code that is not one the CLI was shown, and a malformed one, and spends nothing', async () => {
    const unknown = await decide(`${api.url}/device?user_code=BCDF-GHJK`, '#approve')
    expect(unknown).toMatch(/^userCode: /)
    const malformed = await decide(`${api.url}/device?user_code=hello`, '#approve')
    expect(malformed).toMatch(/^userCode: must be 8 letters of BCDFGHJKLMNPQRSTVWXZ/)
    const signIn = await startSignIn()
    expect((await poll(signIn.device_code)).body).toMatchObject({ error: 'authorization_pending' })
  }, 60_000)
})
