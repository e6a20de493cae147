// `bardo observer grant | list | revoke` as an owner runs them, in-process against a devnet (anvil, the
// framework, the Bardo contracts) and the API served over HTTP: the owner's key signs the API's draft,
// the grant is kept and listed with the read key, the observer publishes the owner account's PAD through
// it, and the owner's revocation (the API's user operation, signed here and sent to handleOps by the
// owner's EOA) is listed as revoked. Bad flags are refused naming the flag, with nothing stored.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Delegation } from '@metamask/smart-accounts-kit'
import { encodeFunctionData, getAddress, parseEther, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../../cli/bardo.ts'
import * as artifacts from '../../contracts/artifacts/index.ts'
import { grantLedgerLog } from '../../core/custody/grantLedger.ts'
import { hashApiKey, readKeyFromBytes } from '../../core/ratelimit/tiers.ts'
import { serveApi } from '../../functions/api/server.ts'
import { writeDeploymentFile } from '../../local/chain.ts'
import { expectRefused, redeem } from '../chain/harness.ts'
import { startApiStack, type ApiStack } from '../api/harness.ts'

let stack: ApiStack
let api: Awaited<ReturnType<typeof serveApi>>
let dir: string
let env: NodeJS.ProcessEnv
let observer: PrivateKeyAccount
const ownerKey = generatePrivateKey()
const readKey = readKeyFromBytes(new Uint8Array(24).fill(9))

beforeAll(async () => {
  stack = await startApiStack()
  const { devnet } = stack
  // The owner's smart account from a key the CLI is given, its EOA holding ETH to submit its own acts.
  const owner = await devnet.createOwner({ eth: parseEther('1') }, privateKeyToAccount(ownerKey))
  await devnet.publicClient.waitForTransactionReceipt({
    hash: await devnet.deployer.sendTransaction({ to: owner.signer.address, value: parseEther('1') }),
  })
  await stack.provision('atlas', { owner })
  await stack.provision('boreas')
  observer = await devnet.fundedAccount()
  dir = mkdtempSync(join(tmpdir(), 'bardo-cli-observer-'))
  writeDeploymentFile(join(dir, 'deployment.json'), devnet.deployment)
  api = await serveApi(
    stack.app({ config: { rateLimits: { public: 100_000 }, allowedOrigins: [], readApiKeyHashes: [hashApiKey(readKey)] } }),
    0,
  )
  env = {
    PATH: process.env.PATH,
    DO_NOT_TRACK: '1',
    BARDO_STATE_DIR: dir,
    BARDO_RPC_URL: devnet.rpcUrl,
    BARDO_DEPLOYMENT: join(dir, 'deployment.json'),
    BARDO_OWNER_KEY: ownerKey,
    BARDO_API_URL: api.url,
    BARDO_READ_API_KEY: readKey,
    BARDO_AUTH_FILE: join(dir, 'auth.json'),
  }
}, 120_000)
afterAll(async () => {
  await api?.close()
  await stack?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

async function bardo(argv: string[], extra: NodeJS.ProcessEnv = {}) {
  let stdout = ''
  let stderr = ''
  const code = await runCli(argv, {
    env: { ...env, ...extra },
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  })
  return { code, stdout, stderr, json: () => JSON.parse(stdout) as Record<string, unknown> }
}

const ledger = async (golemId: string) => (await stack.store.readLog({ log: grantLedgerLog(golemId), limit: 1000, order: 'asc' })).length
const setPAD = (p: number, a: number, d: number) => ({
  target: stack.devnet.deployment.daimonOracle,
  value: 0n,
  callData: encodeFunctionData({ abi: artifacts.DaimonOracleAbi, functionName: 'setPAD', args: [p, a, d] }),
})

describe('bardo observer', () => {
  let granted: { delegationHash: Hex; delegation: Delegation }

  it('refuses bad flags and a Golem that is not the key’s, naming the flag, storing nothing', async () => {
    const before = { atlas: await ledger('atlas'), boreas: await ledger('boreas') }
    for (const [argv, code, message] of [
      [['observer', 'grant', '--golem', 'atlas', '--observer', '0x1234'], 2, '--observer: must be a 20-byte hex address'],
      [
        ['observer', 'grant', '--golem', 'atlas', '--observer', observer.address, '--publish', 'setPAD,transfer'],
        2,
        '--publish: must be a comma-separated list of startDream, endDream, setPAD',
      ],
      [
        ['observer', 'grant', '--golem', 'atlas', '--observer', observer.address, '--max-calls', '0'],
        2,
        '--max-calls: must be a whole number of at least 1',
      ],
      [
        ['observer', 'grant', '--golem', 'atlas', '--observer', observer.address, '--expires', 'tomorrow'],
        2,
        '--expires: must be a span from now',
      ],
      [
        ['observer', 'grant', '--golem', 'atlas', '--observer', observer.address, '--expires', '2001-01-01'],
        1,
        '--expires: the API refused: 400 VALIDATION_FAILED expiresAt:',
      ],
      [
        ['observer', 'grant', '--golem', 'atlas', '--observer', '0x0000000000000000000000000000000000000000'],
        1,
        '--observer: the API refused: 400 VALIDATION_FAILED observer: must be a non-zero',
      ],
      [['observer', 'grant', '--golem', 'boreas', '--observer', observer.address], 1, 'BARDO_OWNER_KEY: its smart account 0x'],
      [['observer', 'revoke', '--golem', 'atlas'], 2, '--observer: exactly one of --observer and --delegation is required'],
    ] as const) {
      const r = await bardo([...argv])
      expect(r.code, argv.join(' ')).toBe(code)
      expect(r.stderr).toContain(message)
    }
    const noReader = await bardo(['observer', 'list', '--golem', 'atlas'], { BARDO_READ_API_KEY: '' })
    expect(noReader.code).toBe(1)
    expect(noReader.stderr).toContain('BARDO_READ_API_KEY: must be a read key of')
    expect({ atlas: await ledger('atlas'), boreas: await ledger('boreas') }).toEqual(before)
  })

  it("grants: the owner's key signs the API's draft after checking it, and the API keeps the grant", async () => {
    const before = await ledger('atlas')
    const grant = [
      'observer',
      'grant',
      '--golem',
      'atlas',
      '--observer',
      observer.address,
      '--publish',
      'setPAD,startDream',
      '--expires',
      '7d',
    ]
    const r = await bardo(['--json', ...grant])
    expect(r.code, r.stderr).toBe(0)
    const out = r.json()
    expect(out).toMatchObject({
      golemId: 'atlas',
      recorded: true,
      observer: observer.address,
      publish: ['startDream', 'setPAD'],
      status: 'active',
      maxCalls: null,
    })
    expect(out.expiresAt).toBeGreaterThan(Math.floor(Date.now() / 1000) + 6 * 86_400)
    expect(r.stderr).toContain(`signed        the observer grant to ${observer.address}`)
    expect(r.stdout + r.stderr).not.toContain(ownerKey.slice(2))
    granted = out as typeof granted
    expect(await ledger('atlas')).toBe(before + 1)
    const human = await bardo(grant)
    expect(human.code, human.stderr).toBe(0)
    // A second draft has its own salt: a second grant, kept as well.
    expect(human.stdout).toMatch(
      /^granted observer 0x[0-9a-fA-F]{40} for Golem atlas: startDream, setPAD from 0x[0-9a-fA-F]{40}, until \d{4}-/,
    )
  })

  it('lists the observers with the read key, and the observer publishes with its listed grant', async () => {
    const r = await bardo(['--json', 'observer', 'list', '--golem', 'atlas'])
    expect(r.code, r.stderr).toBe(0)
    const listed = r.json() as { observers: { delegationHash: Hex; status: string; delegation: Delegation }[] }
    expect(listed.observers.map((o) => o.status)).toEqual(['active', 'active'])
    const mine = listed.observers.find((o) => o.delegationHash === granted.delegationHash)!
    await redeem(stack.devnet, observer, [mine.delegation], [setPAD(3, 2, 1)])
    const human = await bardo(['observer', 'list', '--golem', 'atlas'])
    expect(human.stdout).toContain('Golem atlas: 2 observer(s)')
    expect(human.stdout).toContain(`${observer.address}  active   startDream,setPAD  until `)
  })

  it("revokes every grant to the observer with the owner's user operation; the list says revoked and publishing is refused", async () => {
    const r = await bardo(['--json', 'observer', 'revoke', '--golem', 'atlas', '--observer', observer.address])
    expect(r.code, r.stderr).toBe(0)
    expect((r.json().disabled as Hex[]).length).toBe(2)
    const tx = await stack.devnet.publicClient.getTransaction({ hash: r.json().txHash as Hex })
    expect(getAddress(tx.from)).toBe(privateKeyToAccount(ownerKey).address)
    const listed = (await bardo(['--json', 'observer', 'list', '--golem', 'atlas'])).json() as { observers: { status: string }[] }
    expect(listed.observers.map((o) => o.status)).toEqual(['revoked', 'revoked'])
    await expectRefused(stack.devnet, observer, [granted.delegation], [setPAD(9, 9, 9)], 'CannotUseADisabledDelegation')
    const again = await bardo(['observer', 'revoke', '--golem', 'atlas', '--delegation', granted.delegationHash])
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('--delegation: the API refused: 409 NOTHING_TO_REVOKE')
  })
})
