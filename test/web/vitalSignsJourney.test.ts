// One life of the demo Golem, run as `npm start` configures it (in this process: its own anvil, dynalite,
// indexer, API and dashboard, stopped at the end) with a short life, and at birth, mid-life and after
// death the console's last line, the API, GraphQL, the dashboard in headless Chromium and the Snap's home
// page (its lines built by the Snap's own code from the status it fetches once paired) state the same
// vital signs. While it lives the tick moves vitality every second, so the living readings agree on the
// phase and on vitality and life left within a few ticks; once dead they agree exactly: Terminal, dead,
// vitality 0, no life left, and the chart ends in a Terminal band. Screenshots go to
// test-artifacts/vital-signs/.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { runLocalStack } from '../../local/runner.ts'
import { golemLines } from '../../snap/src/format.ts'
import type { GolemStatus } from '../../snap/src/types.ts'
import { defaultFleetPath, launchChromium, openWalletPage } from './browser.ts'

const artifacts = join(import.meta.dirname, '..', '..', 'test-artifacts', 'vital-signs')
const output: string[] = []

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
  throw new Error(`${what} not seen in time (last error: ${String(last)})\n--- stack output ---\n${output.slice(-30).join('\n')}`)
}

type Vitals = { lifecycle: string; phase: string; vitality: number; livesSeconds: number }
type Reading = { phase: string; vitality: number; lives: number | 'dead' }

/** The console's last tick line, in its own words: the phase it ends in, the vitality, the life left. */
function consoleReading(): Reading | undefined {
  const line = output.filter((l) => /^age\s/.test(l.trim())).at(-1)
  if (!line) return undefined
  const phase = /(?:phase|reprieve) (?:\w+ -> )?(\w+)/.exec(line)?.[1]
  const vitality = /vitality (\d\.\d{3})/.exec(line)?.[1]
  if (!phase || !vitality) return undefined
  const lives = /lives (\d+)m(\d{2})s more/.exec(line)
  return {
    phase,
    vitality: Number(vitality),
    lives: / \| dead( \||$)/.test(line) ? 'dead' : lives ? Number(lives[1]) * 60 + Number(lives[2]) : Number.NaN,
  }
}

const seconds = (text: string) => {
  const m = /(\d+)m(\d{2})s/.exec(text)
  return m ? Number(m[1]) * 60 + Number(m[2]) : Number.NaN
}

describe('one vital-signs truth on every surface, over one life', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'bardo-vitals-'))
  const ownerKey = generatePrivateKey()
  let stop: () => void
  let stopped: Promise<void>
  let dashboard: string
  let browser: Browser
  let page: Page
  const json = async <T>(path: string, init?: RequestInit): Promise<T> => {
    const res = await fetch(`${dashboard}${path}`, init)
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`)
    return (await res.json()) as T
  }
  const api = async () =>
    (await json<{ current: { registered: boolean; phase: string; vitals: Vitals } }>('/api/v1/golems/demo/phases')).current
  const graphql = <T>(query: string, variables: Record<string, unknown> = {}) =>
    json<{ data: T }>('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    })
  const fleetKey = async () =>
    (await json<{ golems: { id: string; key: string | null }[] }>(await defaultFleetPath(dashboard))).golems.find((g) => g.id === 'demo')
      ?.key
  const page_ = async (): Promise<{ phase: string; vitality: number; lives: number; lifecycle: string; text: string }> =>
    page.$eval('#vital-signs', (e) => ({
      phase: e.getAttribute('data-phase') ?? '',
      vitality: Number(e.getAttribute('data-vitality')),
      lifecycle: e.getAttribute('data-lifecycle') ?? '',
      lives: Number(e.getAttribute('data-lives')),
      text: e.textContent ?? '',
    }))
  const shot = (name: string) => page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true })
  /** The Snap's token, from pairing as the Snap does it: the owner's wallet key signs the API's pairing text. */
  let snapToken: string | undefined
  let apiUrl = ''
  const snapPost = async <T>(path: string, body: unknown): Promise<T> => {
    const res = await fetch(`${apiUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'null' },
      body: JSON.stringify(body),
    })
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`)
    return (await res.json()) as T
  }
  /** The Snap's home page lines for the demo Golem, built by the Snap's own code at the chain's clock. */
  const snap = async (): Promise<{ phase: string; vitality: number; dead: boolean; life: string | null }> => {
    if (!snapToken) {
      const owner = (await json<{ golems: { id: string; owner: string }[] }>(await defaultFleetPath(dashboard))).golems.find(
        (g) => g.id === 'demo',
      )!.owner
      const { challenge, message } = await snapPost<{ challenge: unknown; message: string }>('/api/snap/pairing/challenge', { owner })
      const signature = await privateKeyToAccount(ownerKey).signMessage({ message })
      snapToken = (await snapPost<{ token: string }>('/api/snap/pairing', { challenge, signature })).token
    }
    const res = await fetch(`${apiUrl}/api/snap/status`, { headers: { authorization: `Bearer ${snapToken}`, origin: 'null' } })
    if (!res.ok) throw new Error(`snap status: ${res.status} ${await res.text()}`)
    const status = (await res.json()) as { golems: GolemStatus[]; generatedAt: number; nextToken?: string }
    if (status.nextToken) snapToken = status.nextToken
    const lines = golemLines(status.golems.find((g) => g.id === 'demo')!, status.generatedAt)
    const title = /\[(\w+)( · DEAD)?\] (\d+) vitality/.exec(lines.title)!
    return { phase: title[1]!, vitality: Number(title[3]) / 100, dead: title[2] !== undefined, life: lines.life }
  }

  /** The four readings agree on the phase, and on vitality and life left within a few ticks (the tick moves them every second). */
  async function livingAgreement(name: string) {
    return waitFor(`${name}: the surfaces agreeing`, async () => {
      const c = consoleReading()
      const a = await api()
      const p = await page_()
      const key = await fleetKey()
      const g = key
        ? (
            await graphql<{ golem: { phase: number; dead: boolean } | null }>('query($a: String!) { golem(address: $a) { phase dead } }', {
              a: key.toLowerCase(),
            })
          ).data.golem
        : null
      const sn = await snap()
      if (!c || !g || c.lives === 'dead') return undefined
      const phases = [c.phase, a.vitals.phase, p.phase, ['Thriving', 'Stable', 'Conservation', 'Declining', 'Terminal'][g.phase], sn.phase]
      if (new Set(phases.map((x) => x?.toUpperCase())).size !== 1) return undefined
      // The Snap shows vitality in whole percent.
      if (Math.abs(sn.vitality - a.vitals.vitality) > 0.03) return undefined
      if (Math.abs(c.vitality - a.vitals.vitality) > 0.03 || Math.abs(p.vitality - a.vitals.vitality) > 0.03) return undefined
      if (Math.abs(c.lives - a.vitals.livesSeconds) > 5 || Math.abs(p.lives - a.vitals.livesSeconds) > 5) return undefined
      return { console: c, api: a, page: p, graphql: g, snap: sn }
    })
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
        // A short life with 5 s periods: born, a phase change and dead within about a minute.
        BARDO_LIFE_SECONDS: '120',
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
    const { readStackInfo } = await import('../../local/faucet.ts')
    const stack = readStackInfo(stateDir)
    apiUrl = stack.apiUrl
    browser = await launchChromium()
    ;({ page } = await openWalletPage(browser, privateKeyToAccount(ownerKey), stack.chainId))
  }, 240_000)

  afterAll(async () => {
    await browser?.close()
    stop?.()
    await stopped
    rmSync(stateDir, { recursive: true, force: true })
  }, 120_000)

  it('at birth: alive and Thriving on the console, the API, GraphQL, the page and the Snap, with the same life left', async () => {
    await waitFor('the first tick line', async () => consoleReading())
    await page.goto(`${dashboard}/`, { waitUntil: 'networkidle0' })
    await page.waitForSelector('#vital-signs[data-phase]', { timeout: 60_000 })
    const at = await livingAgreement('birth')
    expect(at.api.vitals).toMatchObject({ lifecycle: 'alive', phase: 'Thriving' })
    expect(at.page.text).toMatch(/lives \d+m\d{2}s more/)
    expect(at.snap.life).toMatch(/lives \d+m\d{2}s more/i)
    await shot('1-birth')
  }, 120_000)

  it('mid-life: after the first phase change the surfaces state the new phase together', async () => {
    await waitFor('a phase change on the console', async () => (output.some((l) => /phase Thriving -> \w+ \|/.test(l)) ? true : undefined))
    const at = await livingAgreement('mid-life')
    expect(at.api.vitals.phase).not.toBe('Thriving')
    await shot('2-mid-life')
  }, 120_000)

  it('after death: Terminal, dead, vitality 0 and no life left everywhere, and the chart ends in a Terminal band', async () => {
    await waitFor('the death', async () => (output.some((l) => l.startsWith('the demo Golem died')) ? true : undefined), 180_000)
    const c = consoleReading()!
    expect(c).toEqual({ phase: 'Terminal', vitality: 0, lives: 'dead' })
    const current = await api()
    expect(current).toMatchObject({ registered: false, phase: 'Terminal' })
    expect(current.vitals).toMatchObject({ lifecycle: 'dead', phase: 'Terminal', vitality: 0, livesSeconds: 0 })
    const key = (await fleetKey())!.toLowerCase()
    const indexed = await waitFor('the indexer at the death', async () => {
      const { data } = await graphql<{
        golem: { phase: number; survivalScore: number; dead: boolean; finalPhase: number | null }
        golemDeaths: { items: { finalPhase: number }[] }
      }>('query($a: String!) { golem(address: $a) { phase survivalScore dead finalPhase } golemDeaths { items { finalPhase } } }', {
        a: key,
      })
      return data.golem?.dead && data.golemDeaths.items.length > 0 ? data : undefined
    })
    expect(indexed.golem).toMatchObject({ phase: 4, survivalScore: 0, dead: true, finalPhase: 4 })
    expect(indexed.golemDeaths.items.map((d) => d.finalPhase)).toEqual([4])
    const shown = await waitFor('the page at the death', async () => {
      const p = await page_()
      return p.lifecycle === 'dead' ? p : undefined
    })
    expect(shown).toMatchObject({ phase: 'Terminal', vitality: 0, lives: 0 })
    expect(shown.text).toContain('dead')
    const bands = (await page.$eval('.bands', (e) => e.getAttribute('data-phases') ?? '')).split(',')
    expect(bands.at(-1)).toBe('Terminal')
    expect(seconds(shown.text)).toBeNaN()
    // The Snap's home page, from the status the Snap fetches: Terminal, dead, vitality 0.
    expect(await snap()).toMatchObject({ phase: 'TERMINAL', dead: true, vitality: 0 })
    await shot('3-dead')
  }, 240_000)
})
