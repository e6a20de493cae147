// `bardo council form` and `bardo council list` against a running API, as an owner runs them next to
// `npm start`: the state directory holds the stack's file (its chain, deployment, API and the owner key),
// so the commands need nothing else. The CLI drafts, signs the owner's delegation with the owner key and
// posts it; the API deploys the council and keeps it. Bad flags and refused formations name the flag and
// form nothing.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { InMemoryStore } from '../../adapters/store/index.ts'
import { runCli } from '../../cli/bardo.ts'
import { serveApi } from '../../functions/api/server.ts'
import type { OwnerAccount } from '../../local/devnet.ts'
import { writeDeploymentFile } from '../../local/chain.ts'
import { DEPLOYMENT_FILE, writeStackInfo } from '../../local/stackFile.ts'
import { startApiStack, type ApiStack } from '../api/harness.ts'

let stack: ApiStack
let store: InMemoryStore
let api: { url: string; close(): Promise<void> }
let dir: string
let owner: OwnerAccount
const treasury = privateKeyToAccount(generatePrivateKey()).address

beforeAll(async () => {
  store = new InMemoryStore()
  stack = await startApiStack({ store })
  const ownerKey = generatePrivateKey()
  owner = await stack.devnet.createOwner({}, privateKeyToAccount(ownerKey))
  for (const id of ['atlas', 'boreas', 'calypso']) await stack.provision(id, { owner })
  await stack.provision('zephyr')
  api = await serveApi(stack.app(), 0)
  dir = mkdtempSync(join(tmpdir(), 'bardo-council-cli-'))
  const deploymentFile = join(dir, DEPLOYMENT_FILE)
  writeDeploymentFile(deploymentFile, stack.devnet.deployment)
  writeStackInfo(
    dir,
    {
      rpcUrl: stack.devnet.rpcUrl,
      chainId: stack.devnet.deployment.chainId,
      usdc: stack.devnet.deployment.assets.usdc,
      apiUrl: api.url,
      network: `eip155:${stack.devnet.deployment.chainId}`,
      deploymentFile,
    },
    { ownerKey },
  )
}, 120_000)

afterAll(async () => {
  await api?.close()
  await stack?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

async function bardo(...argv: string[]) {
  let stdout = ''
  let stderr = ''
  const code = await runCli(argv, {
    env: { PATH: process.env.PATH, DO_NOT_TRACK: '1', BARDO_STATE_DIR: dir },
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  })
  return { code, stdout, stderr, json: argv.includes('--json') && stdout.trim() ? (JSON.parse(stdout) as Record<string, unknown>) : {} }
}

const form = (...more: string[]) =>
  bardo('council', 'form', '--golems', 'atlas,boreas,calypso', '--receiver', treasury, '--daily-usd', '1000', ...more)

describe('bardo council', () => {
  it('refuses bad flags by name, and a formation the API refuses names its flag; nothing is formed', async () => {
    const zero = await form('--threshold', '0')
    expect(zero.code).toBe(2)
    expect(zero.stderr).toContain('--threshold: must be a whole number of at least 1')
    const missing = await bardo('council', 'form', '--golems', 'atlas,boreas', '--threshold', '2', '--daily-usd', '10')
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('--receiver')
    const badUsd = await form('--threshold', '2', '--daily-usd', 'lots')
    expect(badUsd.stderr).toContain('--daily-usd: must be US dollars above 0')
    const over = await form('--threshold', '4')
    expect(over.code).toBe(1)
    expect(over.stderr).toContain('--threshold: the API refused: 400 VALIDATION_FAILED threshold: must be at most 3')
    const foreign = await bardo(
      'council',
      'form',
      '--golems',
      'atlas,zephyr',
      '--threshold',
      '2',
      '--receiver',
      treasury,
      '--daily-usd',
      '10',
    )
    expect(foreign.code).toBe(1)
    expect(foreign.stderr).toContain(
      '--golems: the API refused: 422 COUNCIL_FORMATION_REFUSED golems[1]: zephyr is not a Golem of the owner',
    )
    expect(await store.listCouncilsByOwner(owner.address)).toEqual([])
  })

  it('forms a council with the owner key: drafted, signed, deployed and kept; listed for the owner', async () => {
    const r = await form('--threshold', '2', '--days', '7', '--json')
    expect(r.code, r.stderr).toBe(0)
    const council = r.json.council as Address
    expect(r.json).toMatchObject({ created: true, owner: owner.address, threshold: 2, deployTxHash: expect.stringMatching(/^0x/) })
    expect((r.json.members as { golemId: string }[]).map((m) => m.golemId)).toEqual(['atlas', 'boreas', 'calypso'])
    expect(r.json.scope).toMatchObject({ dailyLimitUsd: '1000', receivers: [{ receiver: treasury, startIndex: 4 }] })
    const scope = r.json.scope as { startsAt: number; endsAt: number }
    expect(scope.endsAt - scope.startsAt).toBeGreaterThanOrEqual(7 * 86_400 - 5)
    expect(r.stderr).toContain(`draft         council ${council}: 2 of 3 (atlas, boreas, calypso)`)
    expect(await stack.devnet.publicClient.getCode({ address: council })).not.toBe('0x')
    expect(await store.getCouncil(council)).toMatchObject({ owner: owner.address, threshold: 2 })

    const listed = await bardo('council', 'list', '--json')
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.json).toMatchObject({ owner: owner.address, councils: [{ council, threshold: 2 }] })
    const lines = await bardo('council', 'list')
    expect(lines.stdout).toContain(`council ${council}: 2 of 3 (atlas, boreas, calypso), $1000/day to ${treasury}`)
    const other = await bardo('council', 'list', '--owner', stack.owner.address)
    expect(other.stdout).toContain(`no councils of ${stack.owner.address}`)
  })
})
