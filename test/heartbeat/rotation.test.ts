// Session-key rotation by the tick, on anvil and dynalite: a key past its maximum age is
// replaced. The operator moves the Golem's identity on the VitalityOracle (same phase, old key dead),
// the owner's renewed grant to the new key starts at the next period boundary, the profile and the
// store's key lookup switch, the old key is zeroed, and the current period is never redeemed twice.
// An attempt that ends without rotating (its operator nonce taken by another instance) is retried
// under a fresh slot instead of blocking the key's rotation for good, and a tick that dies after the
// oracle moved the identity is finished by the next one with the same new key. Two attempts of one
// rotation (a tick and the operator's request) switch the record once: the loser writes nothing over
// what landed after the winner's switch.
import { parseEther, type Address } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PolicyCageAbi, VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import { parseGolemProfile, serializeGolemProfile } from '../../core/lifecycle/profile.ts'
import { constitutionHash, parseConstitution } from '../../core/policy/index.ts'
import type { Store } from '../../core/store/index.ts'
import { runTick } from '../../app/tick/runTick.ts'
import { rotateOnRequest } from '../../app/tick/rotateOnRequest.ts'
import type { OwnerAccount } from '../../local/devnet.ts'
import type { provisionGolem } from '../../local/provision.ts'
import { LocalKeyRotation } from '../../local/rotation.ts'
import { storeWith } from '../support/storeWith.ts'
import {
  DAY,
  allEvents,
  passStaggerOffsets,
  redemptionsBy,
  sentCount,
  startHeartbeatEnv,
  usdcBalance,
  type HeartbeatEnv,
  WHOLE_RUNWAY_ON_KEY,
} from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY =
  '---\nname: rotating-golem\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 30\n---\n\nSwap a little USDC into WETH every day.\n'

let env: HeartbeatEnv
let owner: OwnerAccount
let rotation: LocalKeyRotation

beforeAll(async () => {
  env = await startHeartbeatEnv()
  owner = await env.devnet.createOwner()
  rotation = new LocalKeyRotation(env.devnet.deployment, owner, env.signers, async (address: Address) => {
    await env.client.waitForTransactionReceipt({ hash: await env.devnet.deployer.sendTransaction({ to: address, value: parseEther('1') }) })
  })
})
afterAll(async () => env?.stop())

const tick = (golemId: string, invocation: string) => runTick(env.deps(invocation, { rotation }), { golemId })
const phaseOf = (key: Address) =>
  env.client.readContract({ address: env.devnet.deployment.vitalityOracle, abi: VitalityOracleAbi, functionName: 'getPhase', args: [key] })
const dm = () => env.devnet.deployment.environment.DelegationManager

/** A Golem of this suite's owner and strategy, with 30 days of runway (and `extra` provisioning options). */
const provision = (golemId: string, extra: Partial<Parameters<typeof provisionGolem>[0]> = {}) =>
  provisionGolemIn(env, golemId, {
    owner,
    strategy: STRATEGY,
    runwayDays: 30,
    ...extra,
  })

/** A Golem ticked on its first day, then a week on: its next tick rotates its key. */
async function golemDueForRotation(golemId: string) {
  const golem = await provision(golemId)
  await passStaggerOffsets(env.devnet, [golem.golemId])
  await tick(golem.golemId, `${golemId}-day-0`)
  await env.devnet.increaseTime(7 * DAY + 60)
  const operator = env.devnet.operator.account.address
  return { golem, operator, operatorBefore: await sentCount(env.client, operator) }
}

/** The store, with the write that switches a Golem to its new key (its sessionKeyAddress) through `switchWrite`. */
function storeAtSwitch(switchWrite: Store['updateGolem']): Store {
  return storeWith<Store>(env.store, {
    updateGolem: (input) => (input.patch.sessionKeyAddress === undefined ? env.store.updateGolem(input) : switchWrite(input)),
  })
}

describe('session-key rotation in the tick', () => {
  it('rotates a key past its maximum age: identity moved on-chain, profile and lookup switched, old key zeroed, no period redeemed twice', async () => {
    const golem = await provision('rot-age', { keyCeiling: WHOLE_RUNWAY_ON_KEY })
    // Whole days later each tick is past the Golem's stagger offset, so every period's tick redeems.
    await passStaggerOffsets(env.devnet, [golem.golemId])
    const first = await tick(golem.golemId, 'day-0')
    expect(first.redemption?.status).toBe('confirmed')
    expect(first.rotated).toBeUndefined()

    await env.devnet.increaseTime(7 * DAY + 60)
    const usdc = env.devnet.deployment.assets.usdc
    const ownerUsdcBefore = await usdcBalance(env.client, usdc, owner.address)
    const rotated = await tick(golem.golemId, 'day-7')
    expect(rotated.redemption?.status).toBe('confirmed') // day 7, still by the old key
    expect(rotated.rotated).toMatchObject({ from: golem.golemKey })
    const newKey = rotated.rotated!.to
    expect(newKey).not.toBe(golem.golemKey)

    expect(await phaseOf(golem.golemKey)).toEqual([false, 0])
    expect(await phaseOf(newKey)).toEqual([true, 0])
    expect(golem.sessionKey.zeroed).toBe(true)
    const record = await env.store.getGolem(golem.golemId)
    expect(record?.sessionKeyAddress).toBe(newKey.toLowerCase())
    expect((await env.store.findGolems({ sessionKey: newKey })).map((g) => g.golemId)).toEqual([golem.golemId])
    expect(await env.store.findGolems({ sessionKey: golem.golemKey })).toEqual([])
    const events = (await allEvents(env.store, golem.golemId)).filter((e) => e.type === 'SessionKeyRotated')
    expect(events.map((e) => [e.data.oldAddress, e.data.newAddress])).toEqual([[golem.golemKey, newKey]])

    // Nothing is stranded on the old key: its runway USDC (both redemptions, the day-7 one included) and
    // its ETH less the transfer's gas went home to the owner before the key was zeroed, and the record says so.
    const redeemed = first.redemption!.amount! + rotated.redemption!.amount!
    expect(await usdcBalance(env.client, usdc, golem.golemKey)).toBe(0n)
    // The day-7 redemption left the owner and came back with day 0's: the owner is whole again.
    expect(await usdcBalance(env.client, usdc, owner.address)).toBe(ownerUsdcBefore + first.redemption!.amount!)
    expect(await env.client.getBalance({ address: golem.golemKey })).toBeLessThan(parseEther('0.001'))
    const returned = events[0]!.data.returned as { asset: string; status: string; amount: string }[]
    expect(returned.map((l) => [l.asset, l.status])).toEqual([
      [usdc, 'returned'],
      ['native', 'returned'],
    ])
    expect(BigInt(returned[0]!.amount)).toBe(redeemed)
    // The old gas grant names the old key as its only redeemer; the new key has the owner's renewed one.
    const profile = parseGolemProfile(record!.profile)
    expect(profile.gas?.chain[0]?.delegate.toLowerCase()).toBe(newKey.toLowerCase())
    expect(profile.gas?.periodStart).toBe(profile.runway.periodStart)

    // Same period: the new key's grant starts at the next boundary, and the old key already redeemed.
    await env.devnet.increaseTime(120)
    expect((await tick(golem.golemId, 'day-7-later')).redemption?.status).toBe('skipped')
    expect(await redemptionsBy(env.client, dm(), newKey)).toHaveLength(0)

    // Next period: the new key redeems, once.
    await env.devnet.increaseTime(DAY)
    const next = await tick(golem.golemId, 'day-8')
    expect(next.redemption?.status).toBe('confirmed')
    expect(next.rotated).toBeUndefined()
    expect(await redemptionsBy(env.client, dm(), newKey)).toHaveLength(1)
    expect(await redemptionsBy(env.client, dm(), golem.golemKey)).toHaveLength(2)
  })

  it("gives the new key the old one's constitution hash in the PolicyCage", async () => {
    const { assets } = env.devnet.deployment
    const constitution = parseConstitution({
      v: 1,
      baseAsset: assets.usdc,
      assets: [{ address: assets.weth, maxConcentrationBps: 3_000 }],
      maxTransactionUsd: '20000000',
      maxSessionUsd: '100000000',
      maxDayUsd: '100000000',
      maxDrawdownBps: 1_500,
    })
    const golem = await provision('rot-cage', { constitution })
    const cageOf = (key: Address) =>
      env.client.readContract({
        address: env.devnet.deployment.policyCage!,
        abi: PolicyCageAbi,
        functionName: 'constitutionHash',
        args: [key],
      })
    expect(await cageOf(golem.golemKey)).toBe(constitutionHash(constitution))
    await passStaggerOffsets(env.devnet, [golem.golemId])
    await tick(golem.golemId, 'cage-day-0')
    await env.devnet.increaseTime(7 * DAY + 60)
    const rotated = await tick(golem.golemId, 'cage-day-7')
    const newKey = rotated.rotated!.to
    expect(await cageOf(newKey)).toBe(constitutionHash(constitution))
    expect(parseGolemProfile((await env.store.getGolem(golem.golemId))!.profile).golemKey).toBe(newKey)
  })

  it('retries a rotation whose earlier attempt ended reconciled, under a fresh slot', async () => {
    const golem = await provision('rot-retry')
    await passStaggerOffsets(env.devnet, [golem.golemId])
    await tick(golem.golemId, 'retry-day-0')
    // An earlier attempt lost its operator nonce to another instance: its slot ended reconciled.
    const step = `rotate-${golem.golemKey.slice(2).toLowerCase()}`
    const nowMs = Date.now()
    await env.store.claimSlot({ golemId: golem.golemId, period: 0n, step, owner: 'other-instance', now: nowMs, leaseMs: 1 })
    await env.store.completeSlot({ golemId: golem.golemId, period: 0n, step, owner: 'other-instance', outcome: 'reconciled', now: nowMs })

    await env.devnet.increaseTime(7 * DAY + 60)
    const operatorBefore = await sentCount(env.client, env.devnet.operator.account.address)
    const rotated = await tick(golem.golemId, 'retry-day-7')
    expect(rotated.rotated).toMatchObject({ from: golem.golemKey })
    expect(await sentCount(env.client, env.devnet.operator.account.address)).toBe(operatorBefore + 1)
    expect(
      await env.store.getSlot({ golemId: golem.golemId, period: 0n, step: `rot1-${golem.golemKey.slice(2).toLowerCase()}` }),
    ).toMatchObject({ status: 'confirmed' })
    expect(await phaseOf(rotated.rotated!.to)).toEqual([true, 0])
  })

  it('a tick that dies after the oracle moved the identity, before the profile switched, is finished by the next tick: same new key, no second oracle transaction', async () => {
    const { golem, operator, operatorBefore } = await golemDueForRotation('rot-crash')

    // The store refuses the one write that switches the Golem to its new key: the tick dies there.
    const dying = storeAtSwitch(() => Promise.reject(new Error('crash before the profile switch')))
    await expect(runTick(env.deps('crash-day-7', { rotation, store: dying }), { golemId: golem.golemId })).rejects.toThrow(
      /crash before the profile switch/,
    )
    const pending = parseGolemProfile((await env.store.getGolem(golem.golemId))!.profile).pendingRotation
    expect(pending).toBeDefined()
    expect(await phaseOf(golem.golemKey)).toEqual([false, 0]) // the oracle already moved the identity
    expect(await phaseOf(pending!.to)).toEqual([true, 0])
    expect(await sentCount(env.client, operator)).toBe(operatorBefore + 1)

    // The next tick: the old key reads unregistered, and the rotation in flight is finished.
    await env.devnet.increaseTime(120)
    const next = await tick(golem.golemId, 'crash-day-7-next')
    expect(next.rotated).toMatchObject({ from: golem.golemKey, to: pending!.to })
    expect(await sentCount(env.client, operator)).toBe(operatorBefore + 1)
    const profile = parseGolemProfile((await env.store.getGolem(golem.golemId))!.profile)
    expect(profile.golemKey).toBe(pending!.to)
    expect(profile.pendingRotation).toBeUndefined()

    // And the Golem lives on with it: the next period is redeemed by the new key.
    await env.devnet.increaseTime(DAY)
    expect((await tick(golem.golemId, 'crash-day-8')).redemption?.status).toBe('confirmed')
    expect(await redemptionsBy(env.client, dm(), pending!.to)).toHaveLength(1)
  })

  it("a rotation that loses the switch to another attempt of it writes nothing again: the owner's renewal queued after the winner's switch stays", async () => {
    const { golem, operator, operatorBefore } = await golemDueForRotation('rot-race')

    // The tick's switch write waits while the operator's request runs the same rotation through (its
    // oracle transaction already landed, so the request finds it done and switches first), and the owner
    // then queues a renewal for the new key: the tick's write meets a newer record.
    let winner: { from: Address; to: Address } | undefined
    let renewed: string | undefined
    const switchWrites: boolean[] = []
    const racing = storeAtSwitch(async (input) => {
      if (winner === undefined) {
        winner = await rotateOnRequest({ ...env.deps('race-request'), rotation }, golem.golemId)
        const record = (await env.store.getGolem(golem.golemId))!
        const profile = parseGolemProfile(record.profile)
        const { runway } = profile
        const renewal = {
          chain: runway.chain,
          periodAmount: runway.periodAmount,
          periodDelegationHash: runway.periodDelegationHash,
          periodTerms: runway.periodTerms,
          chainHashes: runway.chainHashes,
          periodStart: runway.expiresAt,
          expiresAt: runway.expiresAt + 30n * BigInt(DAY),
        }
        renewed = serializeGolemProfile({ ...profile, renewals: [renewal] })
        const queued = await env.store.updateGolem({
          golemId: golem.golemId,
          expectedVersion: record.version,
          patch: { profile: renewed },
          now: input.now,
        })
        expect(queued.updated).toBe(true)
      }
      const result = await env.store.updateGolem(input)
      switchWrites.push(result.updated)
      return result
    })
    const ticked = await runTick(env.deps('race-tick', { rotation, store: racing }), { golemId: golem.golemId })

    expect(winner).toMatchObject({ from: golem.golemKey })
    // The tick reports the rotation the chain and the record hold: the request's key.
    expect(ticked.rotated).toMatchObject({ from: golem.golemKey, to: winner!.to })
    // Its one switch write lost the version race, and it wrote no second one.
    expect(switchWrites).toEqual([false])
    const record = (await env.store.getGolem(golem.golemId))!
    expect(record.profile).toBe(renewed)
    expect(parseGolemProfile(record.profile).renewals).toHaveLength(1)
    expect(record.sessionKeyAddress).toBe(winner!.to.toLowerCase())
    // One oracle transaction, one event.
    expect(await sentCount(env.client, operator)).toBe(operatorBefore + 1)
    const events = (await allEvents(env.store, golem.golemId)).filter((e) => e.type === 'SessionKeyRotated')
    expect(events.map((e) => e.data.newAddress)).toEqual([winner!.to])
  })
})
