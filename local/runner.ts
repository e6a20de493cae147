// The local runner: brings the devnet up, deploys everything, prints the addresses and stays up until
// SIGINT/SIGTERM, then stops every process it started.
import { startDevnet, type Devnet } from './devnet.ts'

export type RunLocalStackOptions = {
  log: (line: string) => void
  /** Resolves when the stack should stop; defaults to the first SIGINT or SIGTERM. */
  until?: Promise<void>
}

function signalled(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve())
    process.once('SIGTERM', () => resolve())
  })
}

export function describeDeployment(devnet: Devnet): string[] {
  const d = devnet.deployment
  const rows: [string, string][] = [
    ['RPC', devnet.rpcUrl],
    ['chain id', String(d.chainId)],
    ['DelegationManager', d.environment.DelegationManager],
    ['EntryPoint', d.environment.EntryPoint],
    ['VitalityOracle', d.vitalityOracle],
    ['DreamOracle', d.dreamOracle],
    ['DaimonOracle', d.daimonOracle],
    ...Object.entries(d.enforcers).map(([k, v]) => [`enforcer ${k}`, v] as [string, string]),
    ...Object.entries(d.assets).map(([k, v]) => [`asset ${k}`, v] as [string, string]),
  ]
  const width = Math.max(...rows.map(([k]) => k.length))
  return rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`)
}

export async function runLocalStack(options: RunLocalStackOptions): Promise<void> {
  const { log } = options
  const started = Date.now()
  log('Bardo Custody: starting the local devnet (anvil, MetaMask Delegation Framework, Bardo contracts)')
  const devnet = await startDevnet()
  try {
    log(`deployed in ${Date.now() - started} ms`)
    for (const line of describeDeployment(devnet)) log(line)
    log('running; press Ctrl-C to stop')
    await (options.until ?? signalled())
  } finally {
    log('stopping')
    await devnet.stop()
    log('stopped')
  }
}
