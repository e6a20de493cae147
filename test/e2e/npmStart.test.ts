// `npm start` as a new user runs it: a child process with fresh state, the demo Golem's first
// redemption and first phase change seen through the API, then SIGINT and no process left behind.
import { spawn, execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '..', '..')

/** Every process whose command line mentions the state dir or descends from the child. */
function descendants(pid: number): number[] {
  const out = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
  const children = new Map<number, number[]>()
  for (const line of out.trim().split('\n')) {
    const [p, pp] = line.trim().split(/\s+/).map(Number)
    if (p === undefined || pp === undefined) continue
    children.set(pp, [...(children.get(pp) ?? []), p])
  }
  const all: number[] = []
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      all.push(c)
      walk(c)
    }
  }
  walk(pid)
  return all
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

let tail: (() => string) | undefined

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  while (Date.now() < deadline) {
    try {
      const v = await probe()
      if (v !== undefined) return v
    } catch (e) {
      last = e
    }
    await new Promise((r) => setTimeout(r, 1000))
  }
  throw new Error(`${what} not seen in time (last error: ${String(last)})${tail ? `\n--- output ---\n${tail()}` : ''}`)
}

/**
 * A GET as a polite client makes it: the API's public tier allows 30 requests a minute per IP, so on
 * 429 it waits the Retry-After the API sends, then asks again.
 */
async function get(url: string): Promise<Response> {
  for (;;) {
    const res = await fetch(url)
    if (res.status !== 429) return res
    const seconds = Number(res.headers.get('retry-after') ?? '1')
    await new Promise((r) => setTimeout(r, Math.max(1, seconds) * 1000))
  }
}

describe('npm start', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'bardo-start-'))
  afterAll(() => rmSync(stateDir, { recursive: true, force: true }))

  it('runs the demo Golem, serves it through the API and stops everything on SIGINT', async () => {
    const child = spawn('npm', ['start'], {
      cwd: root,
      env: { ...process.env, BARDO_STATE_DIR: stateDir, BARDO_SECONDS_PER_BEAT: '86400', BARDO_BEAT_MS: '150', DO_NOT_TRACK: '1', PONDER_TELEMETRY_DISABLED: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: Ctrl-C in a terminal signals the whole foreground group, so do the same.
      detached: true,
    })
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    tail = () => output.slice(-3000)
    try {
      const api = await waitFor('the API URL', async () => /API\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1], 120_000)
      expect(output).toMatch(/OpenAPI\s+http:\/\/127\.0\.0\.1:\d+\/openapi\.json/)
      expect(output).toMatch(/GraphQL\s+http:\/\/127\.0\.0\.1:\d+\/graphql/)
      const openapi = await get(`${api}/openapi.json`)
      expect(openapi.status).toBe(200)

      const redemption = await waitFor('the first redemption', async () => {
        const res = await get(`${api}/api/v1/golems/demo/redemptions`)
        if (res.status !== 200) return undefined
        const body = (await res.json()) as { redemptions: { transactionHash: string }[] }
        return body.redemptions[0]
      })
      expect(redemption.transactionHash).toMatch(/^0x[0-9a-f]{64}$/)

      const phase = await waitFor('the first phase change', async () => {
        const res = await get(`${api}/api/v1/golems/demo/phases`)
        if (res.status !== 200) return undefined
        const body = (await res.json()) as { transitions: { from: string; to: string; kind: string }[] }
        return body.transitions.find((t) => t.kind === 'transition' && t.from === 'Thriving')
      })
      expect(phase).toMatchObject({ from: 'Thriving', to: 'Stable' })

      const health = await get(`${api}/api/v1/golems/demo/permission-health`)
      expect(health.status).toBe(200)
      expect(await health.json()).toHaveProperty('health')

      // The indexer npm start runs records the runway's spend with its USD value (its own configuration,
      // toIndexerDeployment, includes the framework's period enforcers and the devnet's price feeds).
      const graphql = /GraphQL\s+(http:\/\/127\.0\.0\.1:\d+)\/graphql/.exec(output)![1]!
      const spend = await waitFor('a spend row with a USD value', async () => {
        const res = await fetch(`${graphql}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ spendEvents(limit: 1) { items { source amount usd6 golemId } } }' }) })
        const body = (await res.json()) as { data?: { spendEvents: { items: { source: string; amount: string; usd6: string | null; golemId: string }[] } } }
        return body.data?.spendEvents.items[0]
      })
      expect(spend).toMatchObject({ source: 'erc20-period', usd6: spend.amount })

      // The printed read key lifts the dashboard tier; the API answers it with the read limit.
      const readKey = /read key\s+(bardo_read_[A-Za-z0-9_-]+)/.exec(output)?.[1]
      expect(readKey).toBeDefined()
      const keyed = await fetch(`${api}/api/v1/golems/demo/permission-health`, { headers: { 'x-api-key': readKey! } })
      expect(keyed.status).toBe(200)
      expect(keyed.headers.get('x-ratelimit-limit')).toBe('300')
    } finally {
      const started = [child.pid!, ...descendants(child.pid!)]
      // What Ctrl-C does: SIGINT to the foreground process group (npm, its shell and the runner); the
      // runner stops anvil, dynalite, the indexer and the API.
      process.kill(-child.pid!, 'SIGINT')
      await new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
      })
      await waitFor('every started process to exit', async () => (started.every((p) => !alive(p)) ? true : undefined), 20_000).catch((e: unknown) => {
        for (const p of started) if (alive(p)) process.kill(p, 'SIGKILL')
        throw e
      })
      // Processes can be gone while their last lines are still in the pipe: read to the end of the stream.
      if (!child.stdout.readableEnded) await Promise.race([new Promise((r) => child.stdout.once('end', r)), new Promise((r) => setTimeout(r, 10_000))])
      expect(output).toContain('stopped')
    }
  }, 420_000)
})
