// Starts and stops an anvil process from the @foundry-rs/anvil npm binary on a free loopback port.
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { foundryBinary } from './foundryBinary.ts'

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
  codeSizeLimit?: number
}

export function anvilBinary(): string {
  return foundryBinary('anvil')
}

/** Asks the OS for a free port on 127.0.0.1. */
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

async function waitForRpc(rpcUrl: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`anvil exited early with code ${child.exitCode}`)
    try {
      const res = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      })
      if (res.ok) return
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`anvil did not answer on ${rpcUrl} within ${timeoutMs} ms`)
}

export async function startAnvil(options: StartAnvilOptions = {}): Promise<Anvil> {
  const chainId = options.chainId ?? 31337
  for (let attempt = 0; ; attempt++) {
    const port = await freePort()
    const args = ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(chainId), '--silent']
    args.push('--code-size-limit', String(options.codeSizeLimit ?? 0x100000))
    args.push('--gas-limit', String(options.gasLimit ?? 300_000_000n))
    if (options.blockTime !== undefined) args.push('--block-time', String(options.blockTime))
    if (options.timestamp !== undefined) args.push('--timestamp', String(options.timestamp))
    const child = spawn(anvilBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString()
    })
    const rpcUrl = `http://127.0.0.1:${port}`
    try {
      await waitForRpc(rpcUrl, child, 15_000)
    } catch (error) {
      child.kill('SIGKILL')
      // Another process may have taken the port between probing and binding; try a new one.
      if (attempt < 3 && /Address already in use|exited early/.test(`${stderr} ${String(error)}`)) continue
      throw new Error(`could not start anvil: ${String(error)} ${stderr}`.trim())
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
}
