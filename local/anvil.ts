// Starts and stops an anvil process from the @foundry-rs/anvil npm binary on a free loopback port.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { foundryBinary } from './foundryBinary.ts'
import { LocalStackError } from './errors.ts'
import { processAlive } from './processAlive.ts'

export type Anvil = {
  rpcUrl: string
  port: number
  chainId: number
  process: ChildProcess
  stop(): Promise<void>
}

export type StartAnvilOptions = {
  chainId?: number
  /** Seconds between blocks; omitted means a block per transaction (automine). */
  blockTime?: number
  /** Start the chain clock here (unix seconds). Defaults to now. */
  timestamp?: bigint
  gasLimit?: bigint
  /**
   * The most runtime code a creation may return. Omitted, anvil holds mainnet's rules, as Base and every
   * public chain do, in an eth_call as in a transaction: 24,576 bytes of runtime code (EIP-170) and
   * 49,152 of creation code (EIP-3860); a read that works locally then works there too.
   */
  codeSizeLimit?: number
}

export function anvilBinary(): string {
  return foundryBinary('anvil')
}

async function waitForRpc(rpcUrl: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new LocalStackError('ANVIL', `anvil exited early with code ${child.exitCode}`)
    try {
      await rpc(rpcUrl, 'eth_chainId', [])
      return
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new LocalStackError('ANVIL', `anvil did not answer on ${rpcUrl} within ${timeoutMs} ms`)
}

/**
 * The port anvil bound, from the line it prints when it listens. Anvil is asked for port 0, so the port is
 * the OS's choice at bind time and can never be another process's: probing for a free port and then
 * binding it races with every other suite starting at the same moment, and the loser of that race could
 * find the winner's anvil answering on "its" port and deploy onto another suite's chain.
 */
function listeningPort(child: ChildProcess, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let seen = ''
    const done = (settle: () => void) => {
      clearTimeout(timer)
      child.stdout?.off('data', onData)
      child.off('exit', onExit)
      // Keep draining what anvil prints (its banner lists the well-known dev keys): never kept or logged.
      child.stdout?.resume()
      settle()
    }
    const onData = (d: Buffer) => {
      seen = (seen + d.toString()).slice(-4096)
      const match = /Listening on 127\.0\.0\.1:(\d+)/.exec(seen)
      if (match) done(() => resolve(Number(match[1])))
    }
    const onExit = (code: number | null) => done(() => reject(new Error(`anvil exited early with code ${code}`)))
    const timer = setTimeout(() => done(() => reject(new Error(`anvil did not listen within ${timeoutMs} ms`))), timeoutMs)
    child.stdout?.on('data', onData)
    child.once('exit', onExit)
  })
}

/** How long one start-up request to anvil may take: without a bound, a connection anvil accepted and never
 * answered would hold the start (and the suite's setup) for undici's 300 s, past every caller's deadline. */
const STARTUP_REQUEST_TIMEOUT_MS = 5_000

async function rpc(rpcUrl: string, method: string, params: unknown[]): Promise<void> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(STARTUP_REQUEST_TIMEOUT_MS),
  })
  if (!res.ok) throw new LocalStackError('ANVIL', `anvil: ${method} answered HTTP ${res.status}`)
}

const CACHE_PREFIX = 'bardo-anvil-'
/** The file in each cache directory naming the anvil process that writes there. */
export const CACHE_OWNER_FILE = 'anvil.pid'
/** A cache directory with no owner file this old was left by a start that never wrote one. */
const UNOWNED_CACHE_MS = 60 * 60 * 1000

/**
 * Removes the state caches of anvils that are gone. Each anvil's directory is removed when it exits, but
 * only by the process that started it: when that process is killed outright (SIGKILL of `npm start`, of a
 * suite's stack), the directory stays behind, hundreds of MB each. Whichever anvil starts next removes it:
 * a directory whose owner file names a process that no longer runs, or one without an owner file an hour
 * old. A directory whose anvil still runs is never touched.
 */
export function sweepAbandonedCaches(dir = tmpdir(), now = Date.now()): string[] {
  const removed: string[] = []
  let entries: string[]
  try {
    entries = readdirSync(dir).filter((name) => name.startsWith(CACHE_PREFIX))
  } catch {
    return removed
  }
  for (const name of entries) {
    const path = join(dir, name)
    try {
      let abandoned: boolean
      try {
        const pid = Number(readFileSync(join(path, CACHE_OWNER_FILE), 'utf8'))
        abandoned = Number.isSafeInteger(pid) && pid > 0 && !processAlive(pid)
      } catch {
        abandoned = now - statSync(path).mtimeMs > UNOWNED_CACHE_MS
      }
      if (abandoned) {
        rmSync(path, { recursive: true, force: true })
        removed.push(path)
      }
    } catch {
      // Gone meanwhile, or not ours to read: left as it is.
    }
  }
  return removed
}

export async function startAnvil(options: StartAnvilOptions = {}): Promise<Anvil> {
  const chainId = options.chainId ?? 31337
  // Not --silent: anvil then prints nothing, the port it bound included.
  const args = ['--host', '127.0.0.1', '--port', '0', '--chain-id', String(chainId)]
  if (options.codeSizeLimit !== undefined) args.push('--code-size-limit', String(options.codeSizeLimit))
  args.push('--gas-limit', String(options.gasLimit ?? 300_000_000n))
  if (options.blockTime !== undefined) args.push('--block-time', String(options.blockTime))
  if (options.timestamp !== undefined) args.push('--timestamp', String(options.timestamp))
  // Anvil writes every historical state it moves out of memory to a directory under ~/.foundry, and only
  // removes it when it shuts down on its own; a signalled anvil leaves it behind (hundreds of MB for a
  // suite, GBs for a bench). Each anvil gets its own directory, removed whenever the process exits, or
  // by a later start when whoever started it was killed before it could.
  sweepAbandonedCaches()
  const cachePath = mkdtempSync(join(tmpdir(), CACHE_PREFIX))
  args.push('--cache-path', cachePath)
  const child = spawn(anvilBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'] })
  if (child.pid !== undefined) writeFileSync(join(cachePath, CACHE_OWNER_FILE), String(child.pid))
  const removeCache = () => rmSync(cachePath, { recursive: true, force: true })
  child.once('exit', removeCache)
  child.once('error', removeCache)
  // A process that exits without stopping its anvil (an uncaught error, a bench whose output pipe
  // closed) would leave it running, serving nobody; a signal that kills this process outright still can.
  const killWithParent = () => child.kill('SIGKILL')
  process.once('exit', killWithParent)
  child.once('exit', () => process.off('exit', killWithParent))
  let stderr = ''
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4096)
  })
  let rpcUrl: string
  let port: number
  try {
    port = await listeningPort(child, 15_000)
    rpcUrl = `http://127.0.0.1:${port}`
    await waitForRpc(rpcUrl, child, 15_000)
    // Without --silent anvil logs every request it serves; nobody reads those lines.
    await rpc(rpcUrl, 'anvil_setLoggingEnabled', [false])
  } catch (error) {
    child.kill('SIGKILL')
    throw new LocalStackError('ANVIL', `could not start anvil: ${String(error)} ${stderr}`.trim())
  }
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve()
      child.once('exit', () => resolve())
      child.kill('SIGTERM')
      setTimeout(() => child.kill('SIGKILL'), 2_000).unref()
    })
  return { rpcUrl, port, chainId, process: child, stop }
}
