// Headless Chromium for the dashboard's browser tests: the binary @sparticuz/chromium ships inside its
// npm package (nothing is downloaded at run time), driven by puppeteer-core, with an EIP-1193 wallet
// backed by a local key and announced over EIP-6963 the way MetaMask announces itself.
import chromium from '@sparticuz/chromium'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import type { Hex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'

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

type Field = { name: string; type: string }

/** eth_signTypedData_v4 carries numbers as decimal strings; viem signs bigints. */
function typedValues(types: Record<string, Field[]>, type: string, value: unknown): unknown {
  if (type.endsWith(']')) return (value as unknown[]).map((v) => typedValues(types, type.slice(0, type.lastIndexOf('[')), v))
  const struct = types[type]
  if (struct) return Object.fromEntries(struct.map((f) => [f.name, typedValues(types, f.type, (value as Record<string, unknown>)[f.name])]))
  if (/^u?int\d*$/.test(type)) return BigInt(value as string | number)
  return value
}

/** What the wallet does for the page: share its account, and sign typed data with the owner's key. */
export async function walletRequest(account: PrivateKeyAccount, chainId: number, method: string, params: unknown[]): Promise<unknown> {
  switch (method) {
    case 'eth_requestAccounts':
    case 'eth_accounts':
      return [account.address]
    case 'eth_chainId':
      return `0x${chainId.toString(16)}`
    case 'eth_signTypedData_v4': {
      const [address, json] = params as [string, string]
      if (address.toLowerCase() !== account.address.toLowerCase()) throw new Error(`eth_signTypedData_v4: unknown account ${address}`)
      const data = JSON.parse(json) as {
        domain: Record<string, unknown>
        types: Record<string, Field[]>
        primaryType: string
        message: unknown
      }
      const { EIP712Domain: _domain, ...types } = data.types
      const domain = typedValues({ EIP712Domain: _domain ?? [] }, 'EIP712Domain', data.domain) as Record<string, unknown>
      return account.signTypedData({
        domain,
        types,
        primaryType: data.primaryType,
        message: typedValues(types, data.primaryType, data.message) as Record<string, unknown>,
      } as never) as Promise<Hex>
    }
    default:
      throw new Error(`${method}: not supported by the test wallet`)
  }
}

/** Injects the wallet into every document of the page before its scripts run. */
export async function injectWallet(page: Page, account: PrivateKeyAccount, chainId: number): Promise<void> {
  await page.exposeFunction('__bardoTestWallet', async (method: string, params: string) => {
    const result = await walletRequest(account, chainId, method, JSON.parse(params) as unknown[])
    return JSON.stringify(result)
  })
  // A string, because this file compiles without the DOM library; it runs in the page before any script.
  await page.evaluateOnNewDocument(`(() => {
    const provider = {
      request: async ({ method, params }) => JSON.parse(await window.__bardoTestWallet(method, JSON.stringify(params ?? []))),
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
