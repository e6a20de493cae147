// One health truth: for the same Golem at the same block, the console line of `npm start` (the tick's
// verdict), the API's permission health and the Snap status say the same thing, through a life: right
// after a redemption (not critical: the period's planned allowance is redeemed), running low, revoked
// by the owner (until the next beat runs the death protocol), and dead.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLocalApi } from '../../functions/api/local.ts'
import { rotateSnapToken } from '../../core/snap/snapToken.ts'
import { snapTokensFromStore } from '../../functions/api/storeAdapters.ts'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import type { TickResult } from '../../app/tick/types.ts'
import { devnetAccount, type OwnerAccount } from '../../local/devnet.ts'
import { disableDelegationCall, sendOwnerCalls } from '../../local/ownerActions.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import { progressLine } from '../../local/consoleLines.ts'
import { DAY, startHeartbeatEnv, type HeartbeatEnv } from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY =
  '---\nname: truthful-golem\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 10\n---\n\nSwap a little USDC into WETH every day.\n'
const ORIGIN = 'http://localhost:3003'

let env: HeartbeatEnv
let owner: OwnerAccount
let golem: ProvisionedGolem
let invoker: LocalInvoker
let api: ReturnType<typeof createLocalApi>
let snapToken: string
const errors: unknown[] = []

const beat = async (): Promise<TickResult> => {
  const before = invoker.results.length
  await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
  expect(invoker.results.length - before).toBe(1)
  return invoker.results.at(-1)!
}

/** The API's permission health and the Snap status's health for the Golem. */
async function apiAndSnap(): Promise<[{ health: string; reason: string }, string | undefined]> {
  const health = (await (await api.request('/api/v1/golems/truth/permission-health')).json()) as { health: string; reason: string }
  const snapRes = await api.request('/api/snap/status', { headers: { authorization: `Bearer ${snapToken}`, origin: ORIGIN } })
  expect(snapRes.status).toBe(200)
  const snap = (await snapRes.json()) as {
    nextToken: string
    golems: { id: string; permission: { health: string; reason: string } | null }[]
  }
  snapToken = snap.nextToken
  return [health, snap.golems.find((g) => g.id === 'truth')?.permission?.health]
}

/** The three readings, taken at one block (nothing is mined between them). */
async function readings(result: TickResult) {
  const block = await env.client.getBlockNumber()
  const console = /health (\w+)/.exec(progressLine(0, result, { redeemedTotal: 0n }))?.[1]
  const [health, snap] = await apiAndSnap()
  expect(await env.client.getBlockNumber()).toBe(block)
  return { console, api: health.health, snap, reason: health.reason }
}

beforeAll(async () => {
  env = await startHeartbeatEnv()
  owner = await env.devnet.createOwner()
  golem = await provisionGolemIn(env, 'truth', {
    owner,
    strategy: STRATEGY,
    runwayDays: 10,
  })
  invoker = new LocalInvoker((id) => env.deps(id), { onError: (_id, e) => errors.push(e) })
  api = createLocalApi({
    store: env.store,
    publicClient: env.devnet.publicClient,
    deployment: env.devnet.deployment,
    operator: env.devnet.operator.account,
    settlement: devnetAccount(2),
    config: { allowedOrigins: [ORIGIN] },
  })
  const clock = { now: () => Date.now() }
  snapToken = await rotateSnapToken(snapTokensFromStore(env.store, clock), owner.address, clock.now())
}, 120_000)
afterAll(async () => env?.stop())

describe('one health truth: console line, API and Snap status', () => {
  it('agree right after a redemption: healthy, because the planned allowance is redeemed', async () => {
    const r = await beat()
    expect(r.redemption?.status).toBe('confirmed')
    expect(await readings(r)).toEqual({
      console: 'healthy',
      api: 'healthy',
      snap: 'healthy',
      reason: "this period's planned allowance is redeemed",
    })
  })

  it('agree as the grant runs low', async () => {
    let r: TickResult | undefined
    for (let day = 0; day < 4; day++) {
      await env.devnet.increaseTime(DAY)
      r = await beat()
    }
    expect(await readings(r!)).toEqual({ console: 'low', api: 'low', snap: 'low', reason: 'the grant ends within 7 periods' })
  })

  it('agree on revoked between the owner disabling the grant and the next beat', async () => {
    await sendOwnerCalls({
      publicClient: env.client,
      submitter: env.devnet.deployer,
      smartAccount: owner.smartAccount,
      calls: [disableDelegationCall(env.devnet.deployment.environment.DelegationManager, golem.runway.delegation)],
    })
    // No tick has run since: the console's last line is the earlier one; the API and the Snap read the chain.
    const [api, snap] = await apiAndSnap()
    expect({ api: api.health, snap, reason: api.reason }).toEqual({
      api: 'revoked',
      snap: 'revoked',
      reason: 'the owner revoked the grant',
    })
  })

  it('agree on dead at the next beat: the revocation ran the death protocol at once', async () => {
    await env.devnet.increaseTime(DAY)
    const r = await beat()
    expect(r?.outcome).toBe('died')
    expect(await readings(r!)).toEqual({ console: 'dead', api: 'dead', snap: 'dead', reason: 'the Golem is dead' })
    expect(errors).toEqual([])
  })
})
