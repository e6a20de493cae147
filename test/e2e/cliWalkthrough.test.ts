// The operator's CLI as a new user runs it against `npm start`: the stack in a child process (the default
// honest clock), then `npx bardo` with nothing set but the state directory `npm start` used. The CLI
// finds the stack's chain, deployment, store, API, dashboard and the demo owner's key there. It shows the
// demo's status, feeds it over x402, pays extend and feed from a fresh key with the README's stock-client
// program (examples/payLocally.ts), onboards a second Golem (the stack holds its key), rotates the demo's
// key (the stack holds it in its own keystore, so the stack rotates it on the owner's signed request: once, and the
// new key signs the demo's next actions), renews the demo's grant, and revokes it: one transaction
// disables every grant, the death is printed within two beats and the key's funds go home; afterwards
// every grant is disabled on-chain, the oracle no longer knows the key, and no redemption is mined again.
// On the way the owner grants the second Golem a read-only observer (`bardo observer grant`), whose own
// key publishes the owner account's PAD vector through the stack's DelegationManager and is refused a
// transfer, and revokes it (`bardo observer revoke`), after which `bardo observer list` says revoked and
// the observer publishes nothing more.
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, sep } from 'node:path'
import { promisify } from 'node:util'
import type { Delegation, ExecutionStruct } from '@metamask/smart-accounts-kit'
import { createPublicClient, createWalletClient, encodeFunctionData, erc20Abi, getAbiItem, http, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { DelegationManager as DelegationManagerAbi } from '@metamask/delegation-abis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { findStackInfo, type StackInfo } from '../../local/stackFile.ts'
import { DaimonOracleAbi } from '../../contracts/artifacts/index.ts'
import { encodeRedemptions } from '../../core/delegations/redeem.ts'
import { readDeploymentFile } from '../../local/chain.ts'
import { localChain } from '../../local/devnet.ts'
import { refusal } from '../chain/harness.ts'
import { localRotationMessage } from '../../local/rotationRequest.ts'
import { polite, root, startStack, waitFor, type StartedStack } from './stackProcess.ts'
import { chainTime } from '../../cli/output.ts'

/** The environment a new user's shell has: no Bardo variable but the state directory. */
function userEnv(stateDir: string): NodeJS.ProcessEnv {
  const { PATH, HOME, TMPDIR } = process.env
  return { PATH, HOME, TMPDIR, BARDO_STATE_DIR: stateDir, DO_NOT_TRACK: '1' }
}

const bardo = (stateDir: string, args: string[], extra: NodeJS.ProcessEnv = {}) =>
  promisify(execFile)('node', ['bin/bardo.mjs', ...args], { cwd: root, env: { ...userEnv(stateDir), ...extra }, timeout: 120_000 })

/** A command expected to fail: its exit code and what it printed. */
const bardoRefused = (stateDir: string, args: string[], extra: NodeJS.ProcessEnv = {}) =>
  bardo(stateDir, args, extra).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }),
  )

/** Every file under the directory, by path: what a refused command must leave as it was. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !e.parentPath.includes('pglite-'))
    .map((e) => join(e.parentPath, e.name))
    .sort()
}

/** Lines of the demo's ticks (one per tick the console prints). */
const tickLines = (text: string) => text.split('\n').filter((l) => /^age\s/.test(l.trim()))

describe('the `bardo` CLI against a running `npm start`, with nothing set but the state directory', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'bardo-cli-stack-'))
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

  it('writes what the CLI needs into the state directory, the demo owner key and the read key readable by their owner alone; status and feed need nothing more', async () => {
    expect(info).toMatchObject({ deploymentFile: join(stateDir, 'deployment.json'), store: { tableName: 'bardo' } })
    expect(statSync(info.ownerKeyFile!).mode & 0o777).toBe(0o600)
    expect(statSync(info.readKeyFile!).mode & 0o777).toBe(0o600)
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

  it("pays extend and feed from a fresh key with the README's stock-client program (examples/payLocally.ts), run as a user runs it", async () => {
    const key = generatePrivateKey()
    const payer = privateKeyToAccount(key).address
    const env = { ...userEnv(stateDir), PAYER_KEY: key }
    await promisify(execFile)('npm', ['run', '-s', 'faucet', '--', payer, '30', '0'], { cwd: root, env })
    const before = await get<{ runway_ends_at: number }>('/api/v1/golems/demo/permission-health')
    const { stdout } = await promisify(execFile)('npx', ['tsx', 'examples/payLocally.ts'], { cwd: root, env, timeout: 120_000 })
    // Each answer's status first, as the program prints them: both paid.
    expect(stdout.match(/^\d{3}(?= )/gm)).toEqual(['200', '200'])
    expect(stdout).toContain(`payer: '${payer}'`)
    const chain = createPublicClient({ transport: http(info.rpcUrl) })
    expect(await chain.readContract({ address: info.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [payer] })).toBe(
      30_000_000n - 500_000n - 12_000_000n,
    )
    // An hour for the extend, 24 for the feed's 12 USDC at $0.50 an hour (and whatever runtime the demo bought itself meanwhile).
    const after = await get<{ runway_ends_at: number }>('/api/v1/golems/demo/permission-health')
    expect(after.runway_ends_at).toBeGreaterThanOrEqual(before.runway_ends_at + 3_600 + 86_400)
  }, 120_000)

  it('onboards a second Golem: the demo owner key answers the API draft, and the stack ticks it', async () => {
    const onboarded = await bardo(stateDir, ['onboard', '--golem', 'second', '--strategy', join(root, 'examples', 'STRATEGY.md')])
    expect(onboarded.stdout).toMatch(/^onboarded Golem second: key 0x[0-9a-fA-F]{40}, granted from 0x[0-9a-fA-F]{40} with the owner key/m)
    expect(onboarded.stdout + onboarded.stderr).not.toContain(readFileSync(info.ownerKeyFile!, 'utf8').trim().slice(2))
    await wait('a redemption by the second Golem', async () => {
      const r = await get<{ redemptions: unknown[] }>('/api/v1/golems/second/redemptions')
      return r.redemptions.length > 0 ? true : undefined
    })
  }, 180_000)

  it("grants the second Golem a read-only observer: its key publishes the owner account's PAD on the stack's chain, is refused a transfer, and nothing once the owner revokes it", async () => {
    const observer = privateKeyToAccount(generatePrivateKey())
    await promisify(execFile)('npm', ['run', '-s', 'faucet', '--', observer.address, '0', '1'], {
      cwd: root,
      env: { ...process.env, BARDO_STATE_DIR: stateDir },
    })
    const granted = JSON.parse(
      (await bardo(stateDir, ['--json', 'observer', 'grant', '--golem', 'second', '--observer', observer.address, '--publish', 'setPAD']))
        .stdout,
    ) as { delegationHash: Hex; status: string; publish: string[] }
    expect(granted).toMatchObject({ status: 'active', publish: ['setPAD'] })
    // The list reads the API with the stack's read key, from the state directory like everything else.
    const list = await bardo(stateDir, ['--json', 'observer', 'list', '--golem', 'second'])
    const listed = JSON.parse(list.stdout) as {
      owner: Address
      observers: { delegationHash: Hex; status: string; delegation: Delegation }[]
    }
    const grant = listed.observers.find((o) => o.delegationHash === granted.delegationHash)!
    expect(grant.status).toBe('active')

    // The observer's own key redeems the owner's grant through the stack's DelegationManager.
    const deployment = readDeploymentFile(info.deploymentFile!, info.chainId)
    const chain = createPublicClient({ transport: http(info.rpcUrl) })
    const wallet = createWalletClient({ account: observer, chain: localChain(info.rpcUrl, info.chainId), transport: http(info.rpcUrl) })
    const redeem = (execution: ExecutionStruct) =>
      wallet.sendTransaction({
        to: deployment.environment.DelegationManager,
        data: encodeRedemptions([{ chain: [grant.delegation], executions: [execution] }]),
      })
    const setPAD: ExecutionStruct = {
      target: deployment.daimonOracle,
      value: 0n,
      callData: encodeFunctionData({ abi: DaimonOracleAbi, functionName: 'setPAD', args: [25, -5, 10] }),
    }
    const pad = (who: Address) =>
      chain.readContract({ address: deployment.daimonOracle, abi: DaimonOracleAbi, functionName: 'getPAD', args: [who] })
    const published = await chain.waitForTransactionReceipt({ hash: await redeem(setPAD) })
    expect(published.status).toBe('success')
    expect(await pad(listed.owner)).toEqual([25, -5, 10])
    expect(await pad(observer.address)).toEqual([0, 0, 0])
    const transfer: ExecutionStruct = {
      target: info.usdc,
      value: 0n,
      callData: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [observer.address, 1_000_000n] }),
    }
    expect(await refusal(redeem(transfer))).toMatchObject({ name: 'Error', args: ['AllowedTargetsEnforcer:target-address-not-allowed'] })
    expect(await chain.readContract({ address: info.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [observer.address] })).toBe(0n)

    const revoked = await bardo(stateDir, ['observer', 'revoke', '--golem', 'second', '--observer', observer.address])
    expect(revoked.stdout).toMatch(/^revoked 1 observer grant\(s\) of Golem second in 0x[0-9a-f]{64}/)
    const after = await bardo(stateDir, ['observer', 'list', '--golem', 'second'])
    expect(after.stdout).toContain(`${observer.address}  revoked  setPAD`)
    const again = { ...setPAD, callData: encodeFunctionData({ abi: DaimonOracleAbi, functionName: 'setPAD', args: [1, 1, 1] }) }
    expect(await refusal(redeem(again))).toMatchObject({ name: 'CannotUseADisabledDelegation' })
    expect(await pad(listed.owner)).toEqual([25, -5, 10])
    expect(after.stdout + after.stderr + revoked.stderr).not.toContain(readFileSync(info.ownerKeyFile!, 'utf8').trim().slice(2))
  }, 180_000)

  it("rotates the demo's key in the stack, once: the new key redeems and swaps at the next ticks, and refused attempts change nothing", async () => {
    // The demo lives its strategy first: swaps of its slice through its action grants.
    await wait('a swap', async () => (/strategy: swap [\d.]+ USDC -> WETH .*executed in 0x/.test(stack.output()) ? true : undefined))
    const ownerKey = readFileSync(info.ownerKeyFile!, 'utf8').trim() as Hex
    const before = JSON.parse((await bardo(stateDir, ['status', '--golem', 'demo', '--json'])).stdout) as {
      golemKey: Address
      owner: Address
    }
    const files = filesUnder(stateDir)

    // Refused, each naming the variable or field and the rule, with no file written and the key unmoved:
    // a key that does not own the demo, and a request the owner did not sign.
    const stranger = await bardoRefused(stateDir, ['rotate', '--golem', 'demo'], { BARDO_OWNER_KEY: generatePrivateKey() })
    expect(stranger.code).toBe(1)
    expect(stranger.stderr).toMatch(/BARDO_OWNER_KEY: /)
    const message = localRotationMessage({ golemId: 'demo', golemKey: before.golemKey, chainId: info.chainId })
    const forged = await fetch(`${info.dashboardUrl}/local/golems/demo/rotation`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ signature: await privateKeyToAccount(generatePrivateKey()).signMessage({ message }) }),
    })
    expect(forged.status, await forged.clone().text()).toBe(403)
    expect(((await forged.json()) as { message: string }).message).toMatch(/^signature: is not the owner's \(0x[0-9a-fA-F]{40}\) signature/)
    expect(filesUnder(stateDir)).toEqual(files)

    const mark = stack.output().length
    const rotated = await bardo(stateDir, ['--json', 'rotate', '--golem', 'demo'])
    const r = JSON.parse(rotated.stdout) as { golemId: string; from: Address; to: Address }
    expect(r).toMatchObject({ golemId: 'demo', from: before.golemKey })
    expect(r.to).not.toBe(before.golemKey)
    expect(rotated.stdout + rotated.stderr).not.toContain(ownerKey.slice(2))
    // The new key lives where the old one did, a keystore file of the stack's (mode 0600); the old key's
    // file is gone with the retired key, and nothing else was written.
    const stackKeys = (list: string[]) => list.filter((f) => f.includes(`${sep}stack-keys${sep}`))
    const after = filesUnder(stateDir)
    expect(after.filter((f) => !stackKeys(after).includes(f))).toEqual(files.filter((f) => !stackKeys(files).includes(f)))
    expect(stackKeys(after)).toHaveLength(stackKeys(files).length)
    const made = stackKeys(after).filter((f) => !files.includes(f))
    expect(made).toHaveLength(1)
    expect(statSync(made[0]!).mode & 0o777).toBe(0o600)
    expect(readFileSync(made[0]!, 'utf8').toLowerCase()).toContain(r.to.slice(2).toLowerCase())

    // The owner's signature rotates once: replayed, it names a key that is retired.
    const replay = await fetch(`${info.dashboardUrl}/local/golems/demo/rotation`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ signature: await privateKeyToAccount(ownerKey).signMessage({ message }) }),
    })
    expect(replay.status, await replay.clone().text()).toBe(403)

    const status = JSON.parse((await bardo(stateDir, ['status', '--golem', 'demo', '--json'])).stdout) as {
      golemKey: Address
      chain: { registered: boolean }
      store: { events: string[] }
    }
    expect(status.golemKey).toBe(r.to)
    expect(status.chain.registered).toBe(true)
    expect(status.store.events.filter((e) => e === 'SessionKeyRotated')).toHaveLength(1)
    // The next ticks redeem the runway with the new key: the owner's renewed grant to it, in force.
    const chain = createPublicClient({ transport: http(info.rpcUrl) })
    const deployment = readDeploymentFile(info.deploymentFile!, info.chainId)
    const from = await chain.getBlockNumber()
    await wait('a runway redemption by the new key', async () => {
      const logs = await chain.getLogs({
        address: deployment.environment.DelegationManager,
        event: getAbiItem({ abi: DelegationManagerAbi, name: 'RedeemedDelegation' }),
        args: { redeemer: r.to },
        fromBlock: from,
        toBlock: 'latest',
      })
      return logs.length > 0 ? true : undefined
    })
    // The owner granted the strategy's actions to the new key: its next swaps are signed by it.
    const rotatedAt = stack.output().indexOf("session key of 'demo' rotated", mark)
    expect(rotatedAt).toBeGreaterThan(-1)
    expect(stack.output().slice(rotatedAt)).toMatch(/the owner granted the strategy's \d+ action delegation\(s\) to the new key/)
    const swap = await wait(
      'a swap by the new key',
      async () => /strategy: swap .*executed in (0x[0-9a-f]{64})/.exec(stack.output().slice(rotatedAt))?.[1],
    )
    expect((await chain.getTransaction({ hash: swap as Hex })).from.toLowerCase()).toBe(r.to.toLowerCase())
    expect(stack.output().slice(mark)).toMatch(/session key of 'demo' rotated 0x[0-9a-fA-F]{40} -> 0x[0-9a-fA-F]{40} \(operator/)
    expect(stack.output()).not.toContain(ownerKey.slice(2))
  }, 180_000)

  it("renews the demo's grant: queued behind the grant in force, shown by status", async () => {
    const renewed = await bardo(stateDir, ['--json', 'renew', '--golem', 'demo', '--extend-seconds', '600'])
    const r = JSON.parse(renewed.stdout) as { golemId: string; delegationHash: Hex; expiresAt: string }
    expect(r.golemId).toBe('demo')
    const status = await bardo(stateDir, ['status', '--golem', 'demo'])
    // In UTC as people read it, ending where renew said the renewal ends.
    expect(status.stdout).toMatch(
      new RegExp(
        `renewal   from \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} UTC to ${chainTime(BigInt(r.expiresAt))} \\(${r.delegationHash}\\)`,
      ),
    )
  }, 120_000)

  it('revokes: one transaction disables every grant; the death is printed within two beats; the funds go home', async () => {
    const grants = await get<{ calls: { kind: string }[] }>('/api/v1/golems/demo/revocation')
    expect(new Set(grants.calls.map((c) => c.kind))).toEqual(new Set(['runway', 'gas', 'action']))

    // The death is looked for from before the command: its wake can run the death protocol, and print
    // the death, before the command exits. The beats are counted from when it exited.
    const before = stack.output().length
    const revoked = await bardo(stateDir, ['revoke', '--golem', 'demo'])
    const mark = stack.output().length
    expect(revoked.stdout).toMatch(/^revoked Golem demo: \d+ delegation\(s\) disabled; the next heartbeat runs its death protocol/)
    const tx = /disabled by the owner's smart account in (0x[0-9a-f]{64})/.exec(revoked.stderr + revoked.stdout)?.[1] as Hex
    expect(tx).toBeDefined()

    await wait('the death line', async () => (/the demo Golem died/.test(stack.output().slice(before)) ? true : undefined), 60_000)
    const after = stack.output().slice(before)
    const sinceCommand = stack.output().slice(mark)
    const diedAt = sinceCommand.indexOf('the demo Golem died')
    // The death is the first or second tick the console prints after the revocation (none when the
    // command's wake ran it before the command exited).
    expect(tickLines(diedAt < 0 ? '' : sinceCommand.slice(0, diedAt)).length).toBeLessThanOrEqual(2)
    expect(after).toMatch(/the demo Golem died: DelegationExpiry \(OwnerRevocation\)/)
    expect(after).toMatch(/returned [\d.]+ (USDC|ETH) to the owner/)

    // Everything the owner signed for it is disabled, and the oracle no longer knows its key.
    const plan = await get<{ calls: unknown[]; alreadyDisabled: Hex[] }>('/api/v1/golems/demo/revocation')
    expect(plan.calls).toEqual([])
    expect(plan.alreadyDisabled.length).toBe(grants.calls.length)
    const phases = await get<{ current: { registered: boolean } }>('/api/v1/golems/demo/phases')
    expect(phases.current.registered).toBe(false)

    // No redemption by the Golem's key is mined after the revocation (the second Golem, the same owner's,
    // lives on), and its key holds no USDC.
    const status = await bardo(stateDir, ['status', '--golem', 'demo', '--json'])
    const s = JSON.parse(status.stdout) as {
      status: string
      golemKey: Address
      chain: { registered: boolean }
      store: { events: string[] }
    }
    expect(s).toMatchObject({ status: 'dead', chain: { registered: false } })
    // Listed as they happened: the owner's act, then the death it caused.
    const events = s.store.events
    expect(events.indexOf('OwnerRevoked')).toBeGreaterThan(-1)
    expect(events.indexOf('OwnerRevoked')).toBeLessThan(events.indexOf('DeathProtocolStarted'))
    expect(events.at(-1)).toBe('DeathCompleted')
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
    expect(later.filter((l) => (l.args as { redeemer?: Address }).redeemer?.toLowerCase() === s.golemKey.toLowerCase())).toEqual([])
    expect(await chain.readContract({ address: info.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [s.golemKey] })).toBe(0n)
    expect(stack.output()).not.toMatch(/tick demo failed|heartbeat failed/)
  }, 180_000)
})
