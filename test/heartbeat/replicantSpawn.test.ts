// Replicants spawned through the action path on anvil (real DelegationManager, dynalite): a Thriving
// Golem asks custody for a Replicant; custody issues it a key of its own, signs the narrower
// sub-delegation with the parent's key, registers it and records it as a Golem of its own under its
// parent. The heartbeat ticks it (its slice redeemed through [replicant, runway], the parent's day
// shared), a retried request spawns once, bad input is refused by field and a parent past Thriving is
// refused in the chain's words, with nothing written; the chain refuses it too once the parent is past
// Thriving. When the parent dies the Replicant dies with it.
import { DelegationManager as DelegationManagerAbi } from '@metamask/delegation-abis'
import { encodeFunctionData, erc20Abi, type Address, type Hex, type PublicClient } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeChainError } from '../../adapters/chain/decodeChainError.ts'
import { executeAction, type ActionOutcome } from '../../app/actions/executeAction.ts'
import { spawnSlot } from '../../app/actions/spawnReplicant.ts'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import { runTick } from '../../app/tick/runTick.ts'
import { ownerFleet } from '../../app/fleet.ts'
import { VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import { ActionRequestError, replicantIdOf, type SpawnReplicantRequest } from '../../core/actions/index.ts'
import { encodeRedemptions } from '../../core/delegations/index.ts'
import { parseGolemProfile } from '../../core/lifecycle/profile.ts'
import { staggerOffset } from '../../core/lifecycle/stagger.ts'
import type { OwnerAccount } from '../../local/devnet.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import { DAY, USDC, redemptionsBy, startHeartbeatEnv, usdcBalance, WHOLE_RUNWAY_ON_KEY, type HeartbeatEnv } from './harness.ts'
import { spawningDeps, spawnReplicantThroughActions } from './replicants.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY =
  '---\nname: parent-golem\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 5\n---\n\nSwap a little USDC into WETH every day.\n'
const TRANSFER = '0xa9059cbb'

let env: HeartbeatEnv
let owner: OwnerAccount
let parent: ProvisionedGolem
let calm: ProvisionedGolem
let client: PublicClient
let spawned: Extract<ActionOutcome, { status: 'spawned' }>
const errors: unknown[] = []

const provision = (golemId: string) =>
  provisionGolemIn(env, golemId, {
    keyCeiling: WHOLE_RUNWAY_ON_KEY,
    owner,
    strategy: STRATEGY,
    runwayDays: 5,
  })

/** The operator's audited phase reset: moves a Golem's phase without days of ticks. */
async function resetPhase(golemKey: Address, phase: number): Promise<void> {
  const hash = await env.devnet.operator.writeContract({
    address: env.devnet.deployment.vitalityOracle,
    abi: VitalityOracleAbi,
    functionName: 'resetPhase',
    args: [golemKey, phase, 'test'],
  })
  await client.waitForTransactionReceipt({ hash })
}

const registered = async (key: Address) =>
  (
    await client.readContract({
      address: env.devnet.deployment.vitalityOracle,
      abi: VitalityOracleAbi,
      functionName: 'getPhase',
      args: [key],
    })
  )[0]

/** What a refused or bad request must leave as it was: the parent's record, no Replicant, no slot. */
async function writtenFor(golemId: string, requestId: string) {
  const [record, replicant, slot] = await Promise.all([
    env.store.getGolem(golemId),
    env.store.getGolem(replicantIdOf(golemId, requestId)),
    env.store.getSlot(spawnSlot(golemId, requestId)),
  ])
  return { version: record?.version, replicant, slot }
}

async function refusedByField(golemId: string, requestId: string, request: Omit<SpawnReplicantRequest, 'kind'>): Promise<string> {
  const before = await writtenFor(golemId, requestId)
  const error = await spawnReplicantThroughActions(env, { golemId, requestId, request }).then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(ActionRequestError)
  expect(await writtenFor(golemId, requestId)).toEqual({ ...before, replicant: null, slot: null })
  return (error as ActionRequestError).field
}

/** The Replicant's own runway redemption (a transfer to its key through [replicant, runway]), simulated by its key. */
async function replicantRedemptionRefusal(o: { replicantId: string }) {
  const profile = parseGolemProfile((await env.store.getGolem(o.replicantId))!.profile)
  const data = encodeRedemptions([
    {
      chain: profile.runway.chain.map((d) => ({ ...d })),
      executions: [
        {
          target: profile.runway.token,
          value: 0n,
          callData: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [profile.golemKey, USDC(1)] }),
        },
      ],
    },
  ])
  return client.call({ account: profile.golemKey, to: env.devnet.deployment.environment.DelegationManager, data }).then(
    () => undefined,
    (e: unknown) => decodeChainError(e),
  )
}

const fleetNow = () =>
  ownerFleet(env.store, { publicClient: client, deployment: env.devnet.deployment, usdc: env.devnet.deployment.assets.usdc }, owner.address)

const beat = async () => {
  const invoker = new LocalInvoker((id) => env.deps(id), { onError: (_id, e) => errors.push(e) })
  await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
  return invoker.results
}

beforeAll(async () => {
  env = await startHeartbeatEnv()
  client = env.client
  owner = await env.devnet.createOwner()
  parent = await provision('parent')
  calm = await provision('calm')
})
afterAll(async () => env?.stop())

describe('a Thriving Golem spawns a Replicant through the action path', () => {
  it('issues the Replicant its own key, signs the narrower slice with the parent key and records both', async () => {
    const outcome = await spawnReplicantThroughActions(env, { golemId: 'parent', requestId: 'spawn-1' })
    expect(outcome.status).toBe('spawned')
    spawned = outcome as typeof spawned
    expect(spawned.duplicate).toBe(false)
    expect(spawned.replicantId).toBe(replicantIdOf('parent', 'spawn-1'))
    expect(spawned.delegation.delegator).toBe(parent.golemKey)
    expect(spawned.delegation.delegate).toBe(spawned.replicantKey)
    expect(spawned.replicantKey).not.toBe(parent.golemKey)
    expect(spawned.expiresAt).toBeLessThanOrEqual(parent.profile.runway.expiresAt)
    expect(await registered(spawned.replicantKey)).toBe(true)

    const child = (await env.store.getGolem(spawned.replicantId))!
    expect(child.status).toBe('alive')
    expect([child.owner.toLowerCase(), child.sessionKeyAddress.toLowerCase()]).toEqual([
      owner.address.toLowerCase(),
      spawned.replicantKey.toLowerCase(),
    ])
    const profile = parseGolemProfile(child.profile)
    expect(profile.parent).toEqual({ golemId: 'parent', delegationHash: spawned.delegationHash, requestId: 'spawn-1' })
    // 2 USDC a day by default, redeemed through [replicant, ...the parent's runway chain].
    expect(profile.runway.periodAmount).toBe(USDC(2))
    expect(profile.runway.chainHashes).toEqual([spawned.delegationHash, ...parent.profile.runway.chainHashes])
    expect(profile.signer).toEqual({ kind: 'memory', ref: `session-key:${spawned.replicantId}` })

    const listed = parseGolemProfile((await env.store.getGolem('parent'))!.profile).replicants
    expect(listed.map((r) => [r.hash, r.golemId])).toEqual([[spawned.delegationHash, spawned.replicantId]])

    // The owner's fleet lists it under its parent: on the parent's list with its status, its own entry right after.
    const fleet = await fleetNow()
    // The store lists an owner's Golems in no promised order; a Replicant's entry always follows its parent's.
    const order = fleet.golems.map((g) => [g.id, g.parent])
    expect([...order].sort()).toEqual(
      [
        ['calm', null],
        ['parent', null],
        [spawned.replicantId, 'parent'],
      ].sort(),
    )
    const at = fleet.golems.findIndex((g) => g.id === 'parent')
    expect(fleet.golems[at + 1]?.id).toBe(spawned.replicantId)
    expect(fleet.golems[at]!.replicants).toMatchObject([
      { hash: spawned.delegationHash, golemId: spawned.replicantId, status: 'alive', phase: 'Thriving' },
    ])
  })

  it('spawns once per request id: a retried request answers with the same Replicant', async () => {
    const again = await spawnReplicantThroughActions(env, { golemId: 'parent', requestId: 'spawn-1' })
    expect(again).toMatchObject({
      status: 'spawned',
      duplicate: true,
      replicantId: spawned.replicantId,
      replicantKey: spawned.replicantKey,
      delegationHash: spawned.delegationHash,
    })
    expect(parseGolemProfile((await env.store.getGolem('parent'))!.profile).replicants).toHaveLength(1)
  })

  it('refuses bad input by field and writes nothing', async () => {
    const deadline = parent.profile.runway.expiresAt
    const now = (await client.getBlock()).timestamp
    expect(await refusedByField('parent', 'bad-1', { dailyRunway: 0n })).toBe('actions[0].dailyRunway')
    expect(await refusedByField('parent', 'bad-2', { dailyRunway: USDC(21) })).toBe('actions[0].dailyRunway')
    expect(await refusedByField('parent', 'bad-3', { lifespanSeconds: deadline - now + 1n })).toBe('actions[0].lifespanSeconds')
    expect(await refusedByField('parent', 'bad-4', { lifespanSeconds: 0n })).toBe('actions[0].lifespanSeconds')
    // The parent's runway until its deadline is 5 days of $20.
    expect(await refusedByField('parent', 'bad-5', { budgetUsd: USDC(101) })).toBe('actions[0].budgetUsd')
    expect(await refusedByField('parent', 'bad-6', { budgetUsd: 0n })).toBe('actions[0].budgetUsd')
    expect(await refusedByField('parent', 'bad-7', { maxCalls: 0 })).toBe('actions[0].maxCalls')
    // A Replicant spawns no Replicants.
    const before = await writtenFor(spawned.replicantId, 'bad-8')
    const nested = await spawnReplicantThroughActions(env, { golemId: spawned.replicantId, requestId: 'bad-8' }).catch((e: unknown) => e)
    expect((nested as ActionRequestError).field).toBe('golemId')
    expect(await writtenFor(spawned.replicantId, 'bad-8')).toEqual(before)
    // Spawning stands alone in its request.
    const batched = await executeAction(spawningDeps(env), {
      golemId: 'parent',
      requestId: 'bad-9',
      actions: [
        { kind: 'approve', token: env.devnet.deployment.assets.usdc, spender: env.devnet.deployment.assets.router, amount: 1n },
        { kind: 'spawnReplicant' },
      ],
    }).catch((e: unknown) => e)
    expect((batched as ActionRequestError).field).toBe('actions[1]')
    // A deployment without spawning's dependencies refuses the kind by name.
    const { replicants: _, ...plain } = spawningDeps(env)
    const unsupported = await executeAction(plain, { golemId: 'parent', requestId: 'bad-10', actions: [{ kind: 'spawnReplicant' }] }).catch(
      (e: unknown) => e,
    )
    expect((unsupported as ActionRequestError).field).toBe('actions[0].kind')
  })

  it("is ticked like a Golem: its slice redeemed through [replicant, runway], the parent's day shared", async () => {
    const usdc = env.devnet.deployment.assets.usdc
    const r = await runTick(env.deps('tick-replicant'), { golemId: spawned.replicantId })
    expect(r.redemption).toMatchObject({ status: 'confirmed', amount: USDC(2) })
    expect(await usdcBalance(client, usdc, spawned.replicantKey)).toBe(USDC(2))
    const dm = env.devnet.deployment.environment.DelegationManager
    expect((await redemptionsBy(client, dm, spawned.replicantKey)).map((x) => x.delegationHashes)).toEqual([2])
    // The parent takes what is left of its own day: 20 - 2.
    const p = await runTick(env.deps('tick-parent'), { golemId: 'parent' })
    expect(p.redemption).toMatchObject({ status: 'confirmed', amount: USDC(18) })
    // The heartbeat ticks it with the others a day later; its key still holds its unspent slice (at most one
    // period's allowance on the key), so it redeems nothing more.
    await env.devnet.increaseTime(DAY + Number(staggerOffset(spawned.replicantId, BigInt(DAY))))
    const results = await beat()
    expect(errors).toEqual([])
    expect(results.map((x) => x.golemId).sort()).toEqual(['calm', 'parent', spawned.replicantId].sort())
    expect(results.find((x) => x.golemId === spawned.replicantId)?.redemption).toMatchObject({ status: 'skipped', reason: 'held' })
    expect(await usdcBalance(client, usdc, spawned.replicantKey)).toBe(USDC(2))
  })

  it('is refused off-chain once the parent is past Thriving, in the chain words, writing nothing', async () => {
    for (const phase of [1, 2]) {
      await resetPhase(calm.golemKey, phase)
      const requestId = `calm-${phase}`
      const before = await writtenFor('calm', requestId)
      const outcome = await spawnReplicantThroughActions(env, { golemId: 'calm', requestId })
      expect(outcome).toMatchObject({ status: 'refused', checkedBy: 'custody' })
      const refusal = (outcome as Extract<ActionOutcome, { status: 'refused' }>).refusal
      expect(refusal).toMatchObject({ caveat: 'golemPhase', error: 'ActionNotAllowedInPhase' })
      expect(refusal.args.slice(0, 3)).toEqual([calm.golemKey, phase, TRANSFER])
      expect(refusal.reason).toMatch(phase === 1 ? /Stable \(phase 1\)/ : /Conservation \(phase 2\)/)
      expect(await writtenFor('calm', requestId)).toEqual(before)
    }
  })

  it("is refused on-chain by the parent's GolemPhase caveat once the parent is past Thriving", async () => {
    expect(await replicantRedemptionRefusal({ replicantId: spawned.replicantId })).toBeUndefined()
    await resetPhase(parent.golemKey, 1)
    const refusal = await replicantRedemptionRefusal({ replicantId: spawned.replicantId })
    expect(refusal?.name).toBe('ActionNotAllowedInPhase')
    expect(refusal?.args.slice(0, 3)).toEqual([parent.golemKey, 1, TRANSFER])
  })

  it('dies with its parent: delegation disabled, deregistered and dead in the store', async () => {
    await resetPhase(parent.golemKey, 4)
    for (let i = 0; i < 6 && (await env.store.getGolem(spawned.replicantId))?.status !== 'dead'; i++) {
      await env.devnet.increaseTime(120)
      await beat()
    }
    expect(errors).toEqual([])
    expect((await env.store.getGolem('parent'))?.status).toBe('dead')
    expect((await env.store.getGolem(spawned.replicantId))?.status).toBe('dead')
    const dm = env.devnet.deployment.environment.DelegationManager
    expect(
      await client.readContract({
        address: dm,
        abi: DelegationManagerAbi,
        functionName: 'disabledDelegations',
        args: [spawned.delegationHash as Hex],
      }),
    ).toBe(true)
    expect((await env.store.getDeathSettlement('parent'))?.settlement).toMatchObject({ subDelegationsDisabled: [spawned.delegationHash] })
    expect(await registered(spawned.replicantKey)).toBe(false)
    const parentEntry = (await fleetNow()).golems.find((g) => g.id === 'parent')!
    expect(parentEntry.replicants).toMatchObject([{ golemId: spawned.replicantId, status: 'dead' }])
    // What the Replicant held went back to the owner's account.
    expect(await usdcBalance(client, env.devnet.deployment.assets.usdc, spawned.replicantKey)).toBe(0n)
  })
})
