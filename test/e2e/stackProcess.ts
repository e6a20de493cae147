// `npm start` as a child process, the way a new user runs it, for the end-to-end suites: the processes it
// started, its ports, polling with a polite client (the API's public tier allows 30 requests a minute).
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { connect } from 'node:net'
import { join } from 'node:path'
import { processAlive as alive } from '../../local/processAlive.ts'

export const root = join(import.meta.dirname, '..', '..')

/** Every process that descends from `pid`. */
export function descendants(pid: number): number[] {
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

export { alive }

export function portOpen(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

/** Polls `probe` until it answers; the error names what was awaited and ends with the stack's last output. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  o: { timeoutMs?: number; everyMs?: number; output?: () => string } = {},
): Promise<T> {
  const deadline = Date.now() + (o.timeoutMs ?? 90_000)
  let last: unknown
  while (Date.now() < deadline) {
    try {
      const v = await probe()
      if (v !== undefined) return v
    } catch (e) {
      last = e
    }
    await new Promise((r) => setTimeout(r, o.everyMs ?? 2_500))
  }
  throw new Error(`${what} not seen in time (last error: ${String(last)})\n--- output ---\n${(o.output?.() ?? '').slice(-3000)}`)
}

/**
 * A request as a polite client makes it: the API's public tier allows 30 requests a minute per IP, so
 * on 429 it waits the Retry-After the API sends, then asks again.
 */
export async function polite(request: () => Promise<Response>): Promise<Response> {
  for (;;) {
    const res = await request()
    if (res.status !== 429) return res
    const seconds = Number(res.headers.get('retry-after') ?? '1')
    await new Promise((r) => setTimeout(r, Math.max(1, seconds) * 1000))
  }
}

export type StartedStack = { child: ChildProcess; output: () => string; stop(): void }

/** `npm start` in its own process group (as under a process manager), its output collected. */
export function startStack(env: NodeJS.ProcessEnv): StartedStack {
  let output = ''
  const child = spawn('npm', ['start'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()))
  return {
    child,
    output: () => output,
    // Never leave a stack running: the npm process and everything it started.
    stop() {
      if (child.exitCode === null && child.pid)
        for (const p of [child.pid, ...descendants(child.pid)]) if (alive(p)) process.kill(p, 'SIGKILL')
    },
  }
}
