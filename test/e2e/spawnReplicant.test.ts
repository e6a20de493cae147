// A Golem spawns a Replicant through the local stack as `npm start` runs it (in this process, with its own
// anvil, dynalite, indexer, API and heartbeat scheduler): the demo Golem, Thriving, POSTs a signed
// spawnReplicant action over HTTP as its runtime would. A request whose daily runway exceeds the parent's
// is refused naming the field, with nothing written; a good one registers the Replicant, the fleet lists
// it right after its parent, the stack's heartbeat redeems its own slice with its own key, and the
// indexer's history shows those redemptions under the Replicant, never under its parent.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isAddressEqual, type Address, type LocalAccount } from 'viem'
import { toAccount } from 'viem/accounts'
import { loadKeystoreKey } from '../../adapters/signers/keystoreSigner.ts'
import { postActionRequest } from '../../client/httpTransport.ts'
import { replicantIdOf } from '../../core/actions/index.ts'
import { readStackInfo, type StackInfo } from '../../local/faucet.ts'
import { runLocalStack } from '../../local/runner.ts'
import { STACK_KEYS_DIR } from '../../local/stackKeys.ts'
import { waitFor as waitUntil } from './stackProcess.ts'

const PASSPHRASE = 'spawn-replicant-suite'

const output: string[] = []
const waitFor = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000) =>
  waitUntil(what, probe, { timeoutMs, everyMs: 1_000, output: () => output.slice(-40).join('\n') })

type FleetGolem = {
  id: string
  status: string
  phase: string
  key: string | null
  parent: string | null
  replicants: { golemId: string | null }[]
}
type Redemption = { redeemer: string; txHash: string }

describe('a Replicant spawned through the local stack', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'bardo-spawn-'))
  const keysDir = join(stateDir, STACK_KEYS_DIR)
  let stop: () => void
  let stopped: Promise<void>
  let stack: StackInfo
  let owner: Address
  let demoAccount: LocalAccount
  let replicant: { id: string; key: Address }
  const read = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${stack.dashboardUrl}${path}`)
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`)
    return (await res.json()) as T
  }
  const fleet = async () => (await read<{ golems: FleetGolem[] }>(`/api/v1/fleet?owner=${owner}`)).golems
  const redemptionsOf = async (id: string) => (await read<{ redemptions: Redemption[] }>(`/api/v1/golems/${id}/redemptions`)).redemptions
  const spawn = (requestId: string, request: Record<string, bigint> = {}) =>
    postActionRequest(
      { baseUrl: stack.apiUrl!, account: demoAccount, chainId: stack.chainId },
      { golemId: 'demo', requestId, actions: [{ kind: 'spawnReplicant', ...request }] },
    )

  beforeAll(async () => {
    const until = new Promise<void>((resolve) => (stop = resolve))
    stopped = runLocalStack({
      log: (line) => output.push(line),
      until,
      env: {
        ...process.env,
        BARDO_STATE_DIR: stateDir,
        // The stack's keys are encrypted with it, so this suite can hold the demo's key as its runtime would.
        BARDO_KEYSTORE_PASSPHRASE: PASSPHRASE,
        // A life long enough that the demo stays Thriving through the suite, with 5 s periods.
        BARDO_LIFE_SECONDS: '600',
        BARDO_PERIOD_SECONDS: '5',
        BARDO_TICK_SECONDS: '1',
        BARDO_BEAT_MS: '500',
        DO_NOT_TRACK: '1',
        PONDER_TELEMETRY_DISABLED: 'true',
      },
    })
    await waitFor('ready', async () => (output.some((l) => l.includes('ready in')) ? true : undefined), 240_000)
    stack = readStackInfo(stateDir)
    owner = /owner smart account (0x[0-9a-fA-F]{40})/.exec(output.join('\n'))![1] as Address
    const demoKey = readdirSync(keysDir).find((f) => f.startsWith('demo-'))!
    const { signer } = await loadKeystoreKey(join(keysDir, demoKey), PASSPHRASE)
    demoAccount = toAccount({
      address: signer.address,
      signMessage: () => Promise.reject(new Error('the demo runtime signs action requests only')),
      signTransaction: (tx) => signer.signTransaction(tx),
      signTypedData: (typedData) => signer.signTypedData(typedData as never),
    })
    await waitFor('the demo Golem Thriving', async () =>
      (await fleet()).find((g) => g.id === 'demo')?.phase === 'Thriving' ? true : undefined,
    )
  }, 300_000)

  afterAll(async () => {
    stop?.()
    await stopped
    rmSync(stateDir, { recursive: true, force: true })
  }, 120_000)

  it('refuses a daily runway above the parent’s own, naming the field, and writes nothing', async () => {
    const keysBefore = readdirSync(keysDir).length
    const answer = await spawn('too-wide', { dailyRunway: 10n ** 30n })
    expect(answer.httpStatus).toBe(400)
    expect(answer.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'actions[0].dailyRunway' } })
    expect(String(answer.body.message)).toMatch(/^actions\[0\]\.dailyRunway must not exceed the parent's own runway/)
    const golems = await fleet()
    expect(golems.map((g) => g.id)).toEqual(['demo'])
    expect(golems[0]!.replicants).toEqual([])
    expect(readdirSync(keysDir).length).toBe(keysBefore)
    const res = await fetch(`${stack.dashboardUrl}/api/v1/golems/${replicantIdOf('demo', 'too-wide')}/permission-health`)
    expect(res.status).toBe(404)
  }, 120_000)

  it('spawns the Replicant over HTTP: registered, listed right after its parent, and a repeat answers the same one', async () => {
    const answer = await spawn('first', { dailyRunway: 1_000n })
    expect(answer.httpStatus, JSON.stringify(answer.body)).toBe(201)
    expect(answer.body).toMatchObject({
      status: 'spawned',
      requestId: 'first',
      replicantId: replicantIdOf('demo', 'first'),
      duplicate: false,
    })
    replicant = { id: answer.body.replicantId as string, key: answer.body.replicantKey as Address }
    expect(isAddressEqual(replicant.key, demoAccount.address)).toBe(false)

    const golems = await fleet()
    expect(golems.map((g) => g.id)).toEqual(['demo', replicant.id])
    expect(golems[1]).toMatchObject({ parent: 'demo', status: 'alive' })
    expect(golems[1]!.key?.toLowerCase()).toBe(replicant.key.toLowerCase())
    expect(golems[0]!.replicants.map((r) => r.golemId)).toEqual([replicant.id])

    const again = await spawn('first', { dailyRunway: 1_000n })
    expect(again.httpStatus).toBe(201)
    expect(again.body).toMatchObject({ replicantId: replicant.id, replicantKey: replicant.key, duplicate: true })
  }, 180_000)

  it('the stack’s heartbeat redeems the Replicant’s slice with its own key; the history shows it under the Replicant, not the parent', async () => {
    const own = await waitFor('a redemption by the Replicant', async () => {
      const r = await redemptionsOf(replicant.id)
      return r.length > 0 ? r : undefined
    })
    for (const r of own) expect(r.redeemer.toLowerCase()).toBe(replicant.key.toLowerCase())
    const parents = await waitFor('a redemption by the demo Golem', async () => {
      const r = await redemptionsOf('demo')
      return r.length > 0 ? r : undefined
    })
    for (const r of parents) expect(r.redeemer.toLowerCase()).toBe(demoAccount.address.toLowerCase())
    const parentTxs = new Set(parents.map((r) => r.txHash))
    expect(own.filter((r) => parentTxs.has(r.txHash))).toEqual([])
  }, 180_000)
})
