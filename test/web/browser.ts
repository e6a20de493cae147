// Headless Chromium for the dashboard's browser tests: the binary @sparticuz/chromium ships inside its
// npm package (nothing is downloaded at run time), driven by puppeteer-core, with an EIP-1193 wallet
// backed by a local key (test/web/testWallet.ts: MetaMask's rules) and announced over EIP-6963 the way
// MetaMask announces itself.
import chromium from '@sparticuz/chromium'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import type { PrivateKeyAccount } from 'viem/accounts'
import { testWallet, type TestWalletOptions } from './testWallet.ts'

export async function launchChromium(): Promise<Browser> {
  // An explicit language: under a POSIX locale Chromium reports `en-US@posix`, which Intl (uPlot's
  // number format) refuses.
  return puppeteer.launch({
    executablePath: await chromium.executablePath(),
    args: [...chromium.args, '--lang=en-US'],
    headless: true,
    env: { ...process.env, LANG: 'en_US.UTF-8' },
  })
}

export { walletRequest } from './testWallet.ts'

/** Injects the wallet into every document of the page before its scripts run. */
export async function injectWallet(
  page: Page,
  account: PrivateKeyAccount,
  chainId: number,
  options: Pick<TestWalletOptions, 'permissions' | 'rpcUrl'> = {},
): Promise<void> {
  const wallet = testWallet({ account, chainId, ...options })
  // An error crosses to the page as its message, as MetaMask's provider rejects with one.
  await page.exposeFunction('__bardoTestWallet', async (method: string, params: string) => {
    try {
      return JSON.stringify({ result: await wallet(method, JSON.parse(params) as unknown[]) })
    } catch (error) {
      return JSON.stringify({ error: { code: 4001, message: (error as Error).message } })
    }
  })
  // A string, because this file compiles without the DOM library; it runs in the page before any script.
  await page.evaluateOnNewDocument(`(() => {
    const provider = {
      request: async ({ method, params }) => {
        const answer = JSON.parse(await window.__bardoTestWallet(method, JSON.stringify(params ?? [])))
        if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code })
        return answer.result
      },
    }
    const detail = Object.freeze({
      info: { uuid: '5b0e7d3c-0d3b-4c8e-9a59-0b1c2d3e4f50', name: 'Bardo test wallet', icon: 'data:,', rdns: 'test.bardo.wallet' },
      provider,
    })
    const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail }))
    window.addEventListener('eip6963:requestProvider', announce)
    announce()
  })()`)
}

/** A page of the dashboard with the wallet injected, collecting the page's console errors. */
export async function openWalletPage(
  browser: Browser,
  account: PrivateKeyAccount,
  chainId: number,
  options: Pick<TestWalletOptions, 'permissions' | 'rpcUrl'> & { height?: number } = {},
): Promise<{ page: Page; consoleErrors: string[] }> {
  const page = await browser.newPage()
  await page.setViewport({ width: 1200, height: options.height ?? 900 })
  const consoleErrors: string[] = []
  page.on('console', (m) => {
    // A failed load's message does not name the resource; its location does.
    const url = m.location().url
    if (m.type() === 'error') consoleErrors.push(url ? `${m.text()} (${url})` : m.text())
  })
  page.on('pageerror', (e) => consoleErrors.push(String(e)))
  const { height: _height, ...wallet } = options
  await injectWallet(page, account, chainId, wallet)
  return { page, consoleErrors }
}

/** The API's fleet path for the owner the dashboard at `origin` shows by default (its page settings). */
export async function defaultFleetPath(origin: string): Promise<string> {
  const html = await (await fetch(`${origin}/`)).text()
  const json = /<script type="application\/json" id="bardo-settings">(.*?)<\/script>/s.exec(html)?.[1]
  if (!json) throw new Error('the page carries no settings')
  const { owner } = JSON.parse(json) as { owner: string | null }
  if (!owner) throw new Error('the page names no default owner')
  return `/api/v1/fleet?owner=${owner}`
}
