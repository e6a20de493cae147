// Starts the Ponder app (`ponder start`) as a child process in its own process group, on a free port
// and, by default, a fresh PGlite directory and schema. Used by the tests, the benchmark and the local
// runner; stop() ends the whole group so no Ponder worker outlives it.
import { createServer } from 'node:net'
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { BardoError } from '../core/errors.ts'
import { indexerEnv } from './lib/settings.ts'
import { seedPgliteDir } from './pgliteTemplate.ts'
import type { DeploymentJson } from '../core/deploymentSchema.ts'

/** Asks the OS for a free port on 127.0.0.1: the port Ponder is asked to serve on. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      if (address === null || typeof address === 'string') return reject(new Error('no port'))
      server.close(() => resolve(address.port))
    })
  })
}

export const INDEXER_ROOT = dirname(fileURLToPath(import.meta.url))
const PONDER_BIN = join(INDEXER_ROOT, '..', 'node_modules', '.bin', 'ponder')

export type StartIndexerOptions = {
  chainId?: number
  rpcUrl: string
  deployment: DeploymentJson
  startBlock?: number | bigint
  /** Database schema; default a fresh `bardo_<random>`. */
  schema?: string
  /** PGlite directory; default a fresh one under os.tmpdir(), removed on stop(). */
  pgliteDir?: string
  /** Postgres instead of PGlite. */
  databaseUrl?: string
  /** The port to ask for; Ponder moves to the next free one if it is taken, and `RunningIndexer.port` is where it serves. */
  port?: number
  pollingInterval?: number
  indexAllDelegations?: boolean
  /** Another Ponder root with the same config (the benchmark's empty-handler app). */
  root?: string
  /** Called with every parsed JSON log line. */
  onLog?: (line: PonderLogLine) => void
  extraEnv?: Record<string, string>
}

export type PonderLogLine = { level: number; time: number; msg: string; [key: string]: unknown }

export type RunningIndexer = {
  url: string
  port: number
  schema: string
  pgliteDir: string | undefined
  process: ChildProcess
  logs: PonderLogLine[]
  /** Resolves with the first log line that matches (already seen lines count). */
  waitForLog(predicate: (line: PonderLogLine) => boolean, timeoutMs?: number): Promise<PonderLogLine>
  stop(): Promise<void>
}

export async function startIndexer(options: StartIndexerOptions): Promise<RunningIndexer> {
  const schema = options.schema ?? `bardo_${randomBytes(6).toString('hex')}`
  const ownDir = options.pgliteDir === undefined && options.databaseUrl === undefined
  const pgliteDir = options.databaseUrl !== undefined ? undefined : (options.pgliteDir ?? mkdtempSync(join(tmpdir(), 'bardo-indexer-')))
  if (pgliteDir !== undefined) await seedPgliteDir(pgliteDir)
  const requestedPort = options.port ?? (await freePort())
  // The child's configuration comes from these options only, never from BARDO_* or DATABASE_* in our env.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k, v]) => v !== undefined && !k.startsWith('BARDO_') && k !== 'DATABASE_URL' && k !== 'DATABASE_PRIVATE_URL',
    ),
  ) as Record<string, string>
  const env: Record<string, string> = {
    ...inherited,
    PONDER_TELEMETRY_DISABLED: 'true',
    DO_NOT_TRACK: '1',
    ...indexerEnv({
      chainId: options.chainId ?? 31337,
      rpcUrl: options.rpcUrl,
      deployment: options.deployment,
      ...(options.startBlock === undefined ? {} : { startBlock: options.startBlock }),
      ...(pgliteDir === undefined ? {} : { pgliteDir }),
      ...(options.pollingInterval === undefined ? {} : { pollingInterval: options.pollingInterval }),
      ...(options.indexAllDelegations === undefined ? {} : { indexAllDelegations: options.indexAllDelegations }),
    }),
    ...options.extraEnv,
  }
  if (options.databaseUrl !== undefined) env.DATABASE_URL = options.databaseUrl

  const args = ['start', '--root', options.root ?? INDEXER_ROOT, '--schema', schema, '--port', String(requestedPort)]
  args.push('--hostname', '127.0.0.1', '--log-format', 'json')
  const child = spawn(PONDER_BIN, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  const logs: PonderLogLine[] = []
  const waiters: { predicate: (l: PonderLogLine) => boolean; resolve: (l: PonderLogLine) => void }[] = []
  let stderr = ''
  let buffer = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString()
    let newline: number
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const text = buffer.slice(0, newline)
      buffer = buffer.slice(newline + 1)
      let line: PonderLogLine
      try {
        line = JSON.parse(text) as PonderLogLine
      } catch {
        continue // not a log line (Ponder prints a banner in some modes)
      }
      logs.push(line)
      options.onLog?.(line)
      for (const w of [...waiters]) {
        if (w.predicate(line)) {
          waiters.splice(waiters.indexOf(w), 1)
          w.resolve(line)
        }
      }
    }
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-8_000)
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGTERM')
      } catch {
        // group already gone
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL')
        } catch {
          // gone
        }
      }, 5_000)
      await exited
      clearTimeout(timer)
    }
    if (ownDir && pgliteDir !== undefined) rmSync(pgliteDir, { recursive: true, force: true })
  }

  const waitForLog = (predicate: (line: PonderLogLine) => boolean, timeoutMs = 120_000) => {
    const seen = logs.find(predicate)
    if (seen !== undefined) return Promise.resolve(seen)
    return new Promise<PonderLogLine>((resolve, reject) => {
      const waiter = { predicate, resolve: (l: PonderLogLine) => (clearTimeout(timer), resolve(l)) }
      const timer = setTimeout(() => {
        waiters.splice(waiters.indexOf(waiter), 1)
        reject(
          new BardoError('INDEXER_TIMEOUT', `indexer log: no matching line within ${timeoutMs} ms`, {
            details: { stderr: stderr.slice(-2_000) },
          }),
        )
      }, timeoutMs)
      waiters.push(waiter)
      void exited.then(() => {
        if (waiters.includes(waiter)) {
          clearTimeout(timer)
          reject(indexerExited(child, stderr, logs))
        }
      })
    })
  }

  let port: number
  try {
    // A probed port can be bound by another suite before Ponder binds it, and Ponder then serves on the
    // next free one: the port is the one its server reports, never the one asked for.
    const created = await waitForLog((l) => l.msg === 'Created HTTP server' && typeof l.port === 'number', 90_000)
    port = created.port as number
    await waitForHealth(`http://127.0.0.1:${port}`, child, () => indexerExited(child, stderr, logs))
  } catch (error) {
    await stop()
    throw error
  }
  return { url: `http://127.0.0.1:${port}`, port, schema, pgliteDir, process: child, logs, waitForLog, stop }
}

function indexerExited(child: ChildProcess, stderr: string, logs: PonderLogLine[]): BardoError {
  const errors = logs.filter((l) => l.level >= 50).map((l) => `${l.msg} ${JSON.stringify(l.error ?? '')}`)
  return new BardoError('INDEXER_EXITED', `indexer process: exited with code ${child.exitCode ?? child.signalCode}`, {
    details: { errors: errors.slice(-5), stderr: stderr.slice(-2_000) },
  })
}

async function waitForHealth(url: string, child: ChildProcess, exitedError: () => Error, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw exitedError()
    try {
      const res = await fetch(`${url}/health`)
      if (res.ok) return
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new BardoError('INDEXER_TIMEOUT', `indexer /health: no answer within ${timeoutMs} ms`)
}
