// The owner's one act of revocation, on anvil through the real DelegationManager and the real API: a Golem
// with a runway grant, a renewal queued behind it, a gas grant and its action grants. One user operation
// from the owner's smart account (as a wallet sends it) disables every grant the owner signed for it; the
// API's wake makes it due, and the next tick runs the death protocol at once: deregistered, its funds
// home, dead. From then on no redemption of any of its delegations succeeds.
import { encodeFunctionData, erc20Abi, getAbiItem, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DelegationManager as DelegationManagerAbi } from '@metamask/delegation-abis'
import type { Delegation } from '@metamask/smart-accounts-kit'
import { VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import { revocationOf } from '../../app/revocation.ts'
import { grantHash } from '../../core/custody/grantLedger.ts'
import { encodeRedemptions } from '../../core/delegations/index.ts'
import { parseGolemProfile, toDelegations } from '../../core/lifecycle/profile.ts'
import { renewalWindow } from '../../core/lifecycle/renewal.ts'
import { createLocalApi } from '../../functions/api/local.ts'
import { ChainGolemState } from '../../functions/api/services/chainState.ts'
import { StoreGolemRegistry } from '../../functions/api/services/storeRegistry.ts'
import { StoreRenewalService } from '../../app/renewal.ts'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import { decodeChainError } from '../../adapters/chain/decodeChainError.ts'
import type { TickResult } from '../../app/tick/types.ts'
import { devnetAccount, type OwnerAccount } from '../../local/devnet.ts'
import { signRunwayGrant, type ProvisionedGolem } from '../../local/provision.ts'
import {
  DAY,
  USDC,
  allEvents,
  chainNow,
  passStaggerOffsets,
  revokeAsOwner,
  startHeartbeatEnv,
  usdcBalance,
  type HeartbeatEnv,
} from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY =
  '---\nname: revoked-golem\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 5\n---\n\nSwap a little USDC into WETH every day.\n'

let env: HeartbeatEnv
let owner: OwnerAccount
let golem: ProvisionedGolem
let invoker: LocalInvoker
let api: ReturnType<typeof createLocalApi>
let renewal: Delegation
const errors: unknown[] = []

const dm = () => env.devnet.deployment.environment.DelegationManager
const usdc = () => env.devnet.deployment.assets.usdc
const beat = async (): Promise<TickResult[]> => {
  const before = invoker.results.length
  await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
  return invoker.results.slice(before)
}
const revocationRoute = (method: 'GET' | 'POST') => api.request('/api/v1/golems/revoked/revocation', { method })
const disabled = (hash: Hex) =>
  env.client.readContract({ address: dm(), abi: DelegationManagerAbi, functionName: 'disabledDelegations', args: [hash] })

/** What the chain says of a redemption through `chain` by the Golem's key: null if it would succeed. */
async function refusal(chain: readonly Delegation[], execution: { target: `0x${string}`; value: bigint; callData: Hex }) {
  const data = encodeRedemptions([{ chain, executions: [execution] }])
  return env.client.call({ account: golem.golemKey, to: dm(), data }).then(
    () => null,
    (e: unknown) => decodeChainError(e)?.name ?? 'reverted',
  )
}

beforeAll(async () => {
  env = await startHeartbeatEnv()
  owner = await env.devnet.createOwner()
  golem = await provisionGolemIn(env, 'revoked', {
    owner,
    strategy: STRATEGY,
    runwayDays: 5,
  })
  await passStaggerOffsets(env.devnet, ['revoked'])
  invoker = new LocalInvoker((id) => env.deps(id), { onError: (_id, e) => errors.push(e) })
  api = createLocalApi({
    store: env.store,
    publicClient: env.devnet.publicClient,
    deployment: env.devnet.deployment,
    operator: env.devnet.operator.account,
    settlement: devnetAccount(2),
  })
}, 120_000)
afterAll(async () => env?.stop())

/** The event name of a server-sent stream's first message; the stream is then closed, as a client would. */
/** The event names of a live stream's first `count` messages. */
async function messageEvents(res: Response, count: number): Promise<string[]> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
  let text = ''
  try {
    while (text.split('\n\n').length <= count) {
      const { value, done } = await reader.read()
      if (done) break
      text += value
    }
  } finally {
    await reader.cancel()
  }
  return [...text.matchAll(/^event: ?(.*)$/gm)].map((m) => m[1]!).slice(0, count)
}

describe("the owner's one act revokes everything a Golem holds", () => {
  it('before: the Golem redeems, and the owner queues a renewal behind its grant', async () => {
    expect((await beat()).map((r) => r.redemption?.status)).toEqual(['confirmed'])
    const profile = parseGolemProfile((await env.store.getGolem('revoked'))!.profile)
    const now = await chainNow(env.client)
    const window = renewalWindow(profile, now, 5n * BigInt(DAY))
    const signed = await signRunwayGrant({
      deployment: env.devnet.deployment,
      owner,
      golemKey: profile.golemKey,
      token: profile.runway.token,
      periodAmount: profile.runway.periodAmount,
      periodDuration: profile.runway.periodDuration,
      startDate: window.startDate,
      expiresAt: window.endTime,
      now,
      salt: `0x${(BigInt(profile.runway.chain[0]!.salt) + 1n).toString(16).padStart(64, '0')}`,
    })
    renewal = signed.chain[0]!
    await new StoreRenewalService({ store: env.store, client: env.client, deployment: env.devnet.deployment }).renew('revoked', renewal)
    expect(parseGolemProfile((await env.store.getGolem('revoked'))!.profile).renewals).toHaveLength(1)
  })

  it('the API answers the one batch: every grant the owner signed, the superseded and the queued included', async () => {
    const res = await revocationRoute('GET')
    expect(res.status).toBe(200)
    const body = (await res.json()) as { owner: string; calls: { to: string; kind: string; delegationHash: Hex }[]; alreadyDisabled: Hex[] }
    expect(body.owner.toLowerCase()).toBe(owner.address.toLowerCase())
    expect(body.alreadyDisabled).toEqual([])
    const hashes = body.calls.map((c) => c.delegationHash)
    expect(hashes).toEqual(expect.arrayContaining([golem.runway.hash, grantHash(renewal), golem.profile.gas!.periodDelegationHash]))
    for (const action of golem.actions) expect(hashes).toContain(action.hash)
    expect(new Set(body.calls.map((c) => c.kind))).toEqual(new Set(['runway', 'gas', 'action']))
    expect(hashes).toHaveLength(2 + 1 + golem.actions.length)
    // Telling the API of a revocation that has not happened wakes nothing and writes nothing.
    const version = (await env.store.getGolem('revoked'))!.version
    const early = await revocationRoute('POST')
    expect(early.status).toBe(409)
    expect(await early.json()).toMatchObject({ code: 'GOLEM_NOT_REVOKED' })
    expect((await env.store.getGolem('revoked'))!.version).toBe(version)
  })

  it('one user operation from the owner disables them all; the API wakes the Golem', async () => {
    const { plan, receipt } = await revokeAsOwner(env, owner, 'revoked')
    expect(receipt.status).toBe('success')
    for (const call of plan.calls) expect(await disabled(call.hash)).toBe(true)
    // Nothing is left to disable: a second revocation is empty.
    const again = await revocationOf({ store: env.store, client: env.client, delegationManager: dm() }, 'revoked')
    expect(again.calls).toEqual([])
    expect(again.alreadyDisabled).toHaveLength(plan.calls.length)
    // The API confirms on the chain and makes the Golem due now.
    const woken = await revocationRoute('POST')
    expect(woken.status).toBe(202)
    expect(await woken.json()).toMatchObject({ golemId: 'revoked', woken: true })
    expect((await env.store.getGolem('revoked'))!.nextTickAt).toBeLessThanOrEqual(Date.now())
    expect(await (await api.request('/api/v1/golems/revoked/permission-health')).json()).toMatchObject({ health: 'revoked' })
  })

  it("the next beat runs the death protocol at once: deregistered, the key's funds home, dead", async () => {
    const held = await usdcBalance(env.client, usdc(), golem.golemKey)
    expect(held).toBeGreaterThan(0n)
    const ownerBefore = await usdcBalance(env.client, usdc(), owner.address)
    // No time passes: the wake alone makes it due.
    const [r] = await beat()
    expect(r).toMatchObject({ outcome: 'died' })
    expect(errors).toEqual([])
    const started = (await allEvents(env.store, 'revoked')).find((e) => e.type === 'DeathProtocolStarted')
    expect(started?.data).toMatchObject({ trigger: 'owner-revoked' })
    expect(
      await env.client.readContract({
        address: env.devnet.deployment.vitalityOracle,
        abi: VitalityOracleAbi,
        functionName: 'getPhase',
        args: [golem.golemKey],
      }),
    ).toEqual([false, 4])
    expect(await usdcBalance(env.client, usdc(), golem.golemKey)).toBe(0n)
    expect(await usdcBalance(env.client, usdc(), owner.address)).toBe(ownerBefore + held)
    expect((await env.store.getGolem('revoked'))!.status).toBe('dead')
    expect((await env.store.getDeathSettlement('revoked'))?.settlement).toMatchObject({
      expiryCause: 'OwnerRevocation',
      sessionKeyZeroed: true,
    })
  })

  it("lists the death tick's events in the order they happened, Terminal included, and a stream that saw the death start is sent the rest", async () => {
    type Listed = { eventId: string; type: string; at: number; data: Record<string, unknown> }
    const page = (await (await api.request('/api/v1/golems/revoked/events?limit=20')).json()) as { events: Listed[] }
    const newestFirst = page.events.map((e) => e.type)
    const place = (type: string) => newestFirst.indexOf(type)
    expect(place('DeathCompleted')).toBe(0)
    // The death protocol's own post of Terminal, as the chain took it: between the death's start and its end.
    expect(place('PhaseChanged')).toBe(1)
    expect(page.events[1]).toMatchObject({ eventId: 'phase:4', data: { from: 0, to: 4, survivalScoreBps: 0 } })
    expect(newestFirst.filter((t) => t === 'PhaseChanged')).toHaveLength(1)
    expect(place('DeathProtocolStarted')).toBeGreaterThan(place('PhaseChanged'))
    expect(place('DelegationRevoked')).toBeGreaterThan(place('DeathProtocolStarted'))
    // A dashboard's live stream that saw DeathProtocolStarted while the death ran resumes after it.
    const started = page.events.find((e) => e.type === 'DeathProtocolStarted')!
    const res = await api.request('/api/v1/golems/revoked/events/stream', {
      headers: { 'last-event-id': `${started.at}:${started.eventId}` },
    })
    expect(res.status).toBe(200)
    expect(await messageEvents(res, 2)).toEqual(['PhaseChanged', 'DeathCompleted'])
  })

  it('posts Terminal before deregistering, so the oracle, its death event and the tick all say Terminal with the final vitality', async () => {
    const oracle = env.devnet.deployment.vitalityOracle
    const logs = await env.client
      .getLogs({
        address: oracle,
        events: [
          getAbiItem({ abi: VitalityOracleAbi, name: 'PhaseTransition' }),
          getAbiItem({ abi: VitalityOracleAbi, name: 'GolemDeregistered' }),
        ],
        fromBlock: 0n,
        toBlock: 'latest',
      })
      .then((all) => all.filter((l) => l.args.golem === golem.golemKey))
    const order = logs.map((l) => `${l.eventName}:${l.eventName === 'PhaseTransition' ? l.args.toPhase : l.args.finalPhase}`)
    expect(order).toEqual(['PhaseTransition:4', 'GolemDeregistered:4'])
    const [transition, death] = logs
    expect(transition!.blockNumber < death!.blockNumber || transition!.logIndex < death!.logIndex).toBe(true)
    // The Golem's own key reported Terminal with the final score, 0: nothing of its life is left.
    const state = await env.client.readContract({
      address: oracle,
      abi: VitalityOracleAbi,
      functionName: 'getState',
      args: [golem.golemKey],
    })
    expect(state).toMatchObject({ registered: false, dead: true, phase: 4, survivalScore: 0 })
    const died = invoker.results.find((r) => r.outcome === 'died')
    expect(died?.vitals).toMatchObject({ lifecycle: 'dead', phase: 'Terminal', vitality: 0, livesSeconds: 0 })
    expect(died?.vitals?.change).toEqual({ kind: 'death', from: 'Thriving', to: 'Terminal' })
    expect((await env.store.getDeathSettlement('revoked'))?.settlement).toMatchObject({ finalPhase: 'Terminal' })
    // The API states the same: Terminal, dead, the final vitality the tick printed, no life left.
    const view = (await new StoreGolemRegistry({ store: env.store }).getGolem('revoked'))!
    const current = await new ChainGolemState({ client: env.client, deployment: env.devnet.deployment, store: env.store }).currentPhase(
      view,
    )
    expect(current).toMatchObject({ registered: false, phase: 'Terminal', survivalScore: 0 })
    expect(current.vitals).toMatchObject({ lifecycle: 'dead', phase: 'Terminal', vitality: died!.vitals!.vitality, livesSeconds: 0 })
  })

  it('no redemption of any of its delegations succeeds any more', async () => {
    const transfer = {
      target: usdc(),
      value: 0n,
      callData: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [golem.golemKey, USDC(1)] }),
    }
    const refusals = [
      await refusal(toDelegations(golem.profile.runway.chain), transfer),
      await refusal([renewal], transfer),
      await refusal(toDelegations(golem.profile.gas!.chain), { target: golem.golemKey, value: 1n, callData: '0x' }),
      ...(await Promise.all(golem.actions.map((a) => refusal(a.chain, transfer)))),
    ]
    expect(refusals).toHaveLength(3 + golem.actions.length)
    for (const name of refusals) expect(name).toBe('CannotUseADisabledDelegation')
    // Later beats leave the dead Golem alone.
    await env.devnet.increaseTime(DAY)
    expect((await beat()).filter((r) => r.outcome !== 'dead')).toEqual([])
  })
})
