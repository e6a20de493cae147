// The owner's revocation as a new user runs it: `npm start` in a child process (the default honest clock),
// then `npx bardo revoke --golem demo` with nothing set but the state directory `npm start` used. The CLI
// finds the stack's chain, deployment, store and the demo owner's key there, disables every grant the
// owner signed for the demo in one transaction from the owner's smart account, and wakes it: the death
// is printed within two beats and the key's funds go home. Afterwards every grant of the Golem is
// disabled on-chain, the oracle no longer knows its key, and no redemption by it is ever mined again.
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { createPublicClient, erc20Abi, getAbiItem, http, type Address, type Hex } from 'viem'
import { DelegationManager as DelegationManagerAbi } from '@metamask/delegation-abis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { findStackInfo, type StackInfo } from '../../local/stackFile.ts'
import { readDeploymentFile } from '../../local/chain.ts'
import { polite, root, startStack, waitFor, type StartedStack } from './stackProcess.ts'

/** The environment a new user's shell has: no Bardo variable but the state directory. */
function userEnv(stateDir: string): NodeJS.ProcessEnv {
  const { PATH, HOME, TMPDIR } = process.env
  return { PATH, HOME, TMPDIR, BARDO_STATE_DIR: stateDir, DO_NOT_TRACK: '1' }
}

const bardo = (stateDir: string, args: string[]) =>
  promisify(execFile)('node', ['bin/bardo.mjs', ...args], { cwd: root, env: userEnv(stateDir), timeout: 120_000 })

/** Lines of the demo's ticks (one per tick the console prints). */
const tickLines = (text: string) => text.split('\n').filter((l) => /^age\s/.test(l.trim()))

describe('`npx bardo revoke --golem demo` against a running `npm start`', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'bardo-revoke-'))
  let stack: StartedStack
  let info: StackInfo
  let api: string
  const get = async <T>(path: string): Promise<T> => (await (await polite(() => fetch(`${api}${path}`))).json()) as T
  const wait = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000) =>
    waitFor(what, probe, { timeoutMs, everyMs: 500, output: stack.output })

  beforeAll(async () => {
    stack = startStack({
      ...process.env,
      BARDO_STATE_DIR: stateDir,
      // A life long enough to outlast the test: the Golem dies of its revocation, not of old age.
      BARDO_LIFE_SECONDS: '900',
      BARDO_PERIOD_SECONDS: '5',
      BARDO_TICK_SECONDS: '1',
      BARDO_BEAT_MS: '500',
      DO_NOT_TRACK: '1',
      PONDER_TELEMETRY_DISABLED: 'true',
    })
    await wait('ready', async () => (stack.output().includes('ready in') ? true : undefined), 180_000)
    info = findStackInfo(stateDir)!
    api = info.apiUrl
  }, 200_000)

  afterAll(() => {
    stack?.stop()
    rmSync(stateDir, { recursive: true, force: true })
  })

  it('writes what the CLI needs into the state directory, the demo owner key readable by its owner alone; status and feed need nothing more', async () => {
    expect(info).toMatchObject({ deploymentFile: join(stateDir, 'deployment.json'), store: { tableName: 'bardo' } })
    expect(statSync(info.ownerKeyFile!).mode & 0o777).toBe(0o600)
    expect(statSync(join(stateDir, 'stack.json')).mode & 0o777).toBe(0o600)
    // `bardo status` works with nothing but the state directory.
    const status = await bardo(stateDir, ['status', '--golem', 'demo'])
    expect(status.stdout).toMatch(/^Golem demo: alive/)
    // The key never reaches the output.
    expect(status.stdout + status.stderr).not.toContain(readFileSync(info.ownerKeyFile!, 'utf8').trim())
    // `bardo feed` too: the stack's faucet account pays over x402 where no payer is named.
    const fed = await bardo(stateDir, ['feed', '--golem', 'demo'])
    expect(fed.stdout).toMatch(/^fed Golem demo: [\d.]+ USDC from 0x[0-9a-fA-F]{40}/)
  }, 120_000)

  it('revokes: one transaction disables every grant; the death is printed within two beats; the funds go home', async () => {
    // The demo lives its strategy first: a redemption and a swap through its action grants.
    await wait('a swap', async () => (/strategy: swap 1 USDC -> WETH .*executed in 0x/.test(stack.output()) ? true : undefined))
    const grants = await get<{ calls: { kind: string }[] }>('/api/v1/golems/demo/revocation')
    expect(new Set(grants.calls.map((c) => c.kind))).toEqual(new Set(['runway', 'gas', 'action']))

    const revoked = await bardo(stateDir, ['revoke', '--golem', 'demo'])
    const mark = stack.output().length
    expect(revoked.stdout).toMatch(/^revoked Golem demo: \d+ delegation\(s\) disabled; the next heartbeat runs its death protocol/)
    const tx = /disabled by the owner's smart account in (0x[0-9a-f]{64})/.exec(revoked.stderr + revoked.stdout)?.[1] as Hex
    expect(tx).toBeDefined()

    await wait('the death line', async () => (/the demo Golem died/.test(stack.output().slice(mark)) ? true : undefined), 60_000)
    const after = stack.output().slice(mark)
    const beforeDeath = after.slice(0, after.indexOf('the demo Golem died'))
    // The death is the first or second tick the console prints after the revocation.
    expect(tickLines(beforeDeath).length).toBeLessThanOrEqual(2)
    expect(after).toMatch(/the demo Golem died: DelegationExpiry \(OwnerRevocation\)/)
    expect(after).toMatch(/returned [\d.]+ (USDC|ETH) to the owner/)

    // Everything the owner signed for it is disabled, and the oracle no longer knows its key.
    const plan = await get<{ calls: unknown[]; alreadyDisabled: Hex[] }>('/api/v1/golems/demo/revocation')
    expect(plan.calls).toEqual([])
    expect(plan.alreadyDisabled.length).toBe(grants.calls.length)
    const phases = await get<{ current: { registered: boolean } }>('/api/v1/golems/demo/phases')
    expect(phases.current.registered).toBe(false)

    // No redemption by the Golem's key is mined after the revocation, and its key holds no USDC.
    const chain = createPublicClient({ transport: http(info.rpcUrl) })
    const deployment = readDeploymentFile(info.deploymentFile!, info.chainId)
    const revokedIn = (await chain.getTransactionReceipt({ hash: tx })).blockNumber
    await chain.request({ method: 'evm_mine' as never, params: [] as never })
    const later = await chain.getLogs({
      address: deployment.environment.DelegationManager,
      event: getAbiItem({ abi: DelegationManagerAbi, name: 'RedeemedDelegation' }),
      fromBlock: revokedIn + 1n,
      toBlock: 'latest',
    })
    expect(later).toEqual([])
    const status = await bardo(stateDir, ['status', '--golem', 'demo', '--json'])
    const s = JSON.parse(status.stdout) as { status: string; golemKey: Address; chain: { registered: boolean } }
    expect(s).toMatchObject({ status: 'dead', chain: { registered: false } })
    expect(await chain.readContract({ address: info.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [s.golemKey] })).toBe(0n)
    expect(stack.output()).not.toMatch(/tick demo failed|heartbeat failed/)
  }, 180_000)
})
