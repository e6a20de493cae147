// The docs page in a browser that can reach nothing but the API on 127.0.0.1: Swagger UI loads its
// script and stylesheet from the API and shows every operation of the API's document.
import type { Browser } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../functions/api/app.ts'
import { type RunningApi, serveApi } from '../../functions/api/server.ts'
import { sampleGolem, testApiDeps } from '../../functions/api/testing.ts'
import { launchChromium } from '../web/browser.ts'

let api: RunningApi
let browser: Browser

beforeAll(async () => {
  api = await serveApi(createApp(testApiDeps({ golems: [sampleGolem()], config: { rateLimits: { public: 1000 } } })))
  browser = await launchChromium()
})

afterAll(async () => {
  await browser?.close()
  await api?.close()
})

describe('GET /docs', () => {
  it('renders every documented operation offline: no request leaves the API', async () => {
    const page = await browser.newPage()
    const origin = new URL(api.url).origin
    const elsewhere: string[] = []
    const failed: string[] = []
    await page.setRequestInterception(true)
    page.on('request', (request) => {
      const url = request.url()
      if (url.startsWith('data:') || new URL(url).origin === origin) return void request.continue()
      elsewhere.push(url)
      void request.abort()
    })
    page.on('requestfailed', (request) => failed.push(request.url()))
    page.on('pageerror', (error) => failed.push(String(error)))
    await page.goto(`${api.url}/docs`, { waitUntil: 'networkidle0' })
    await page.waitForSelector('.opblock', { timeout: 30_000 })

    const doc = (await (await fetch(`${api.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> }
    const operations = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0)
    const shown = await page.$$eval('.opblock-summary-path', (els) => els.map((e) => e.getAttribute('data-path') ?? e.textContent))
    expect(shown).toHaveLength(operations)
    expect(shown).toEqual(expect.arrayContaining(['/api/v1/golems/{id}/permission-health', '/docs']))
    expect(elsewhere).toEqual([])
    expect(failed).toEqual([])
    await page.close()
  })
})
