// A whole Golem life in accelerated time, on anvil and dynalite (the real DynamoStore): provisioned from
// examples/STRATEGY.md (25 USDC/day, 30 days), one heartbeat per day of chain time, until it is dead.
// The chain is the truth the store is checked against: every phase transition, every redemption, every
// USDC that left the owner's smart account, the deregistration.
import { readFileSync } from 'node:fs'
import { encodeFunctionData, erc20Abi, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import { encodeRedemptions } from '../../core/delegations/index.ts'
import { phaseMultiplierBps, type Phase } from '../../core/lifecycle/phase.ts'
import { parseGolemProfile, toDelegations } from '../../core/lifecycle/profile.ts'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import { decodeChainError } from '../../adapters/chain/decodeChainError.ts'
import type { TickResult } from '../../app/tick/types.ts'
import type { OwnerAccount } from '../../local/devnet.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import {
  DAY,
  USDC,
  allEvents,
  passStaggerOffsets,
  periodAt,
  phaseTransitions,
  redemptionsBy,
  sameAddress,
  startHeartbeatEnv,
  usdcBalance,
  usdcTransfersFrom,
  type HeartbeatEnv,
  WHOLE_RUNWAY_ON_KEY,
  deregistrations,
} from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

let env: HeartbeatEnv
let owner: OwnerAccount
let golem: ProvisionedGolem
let ownerStart: bigint
/** The tick result of each day's heartbeat, day 0 first. */
const days: TickResult[] = []
const errors: unknown[] = []

beforeAll(async () => {
  env = await startHeartbeatEnv()
  owner = await env.devnet.createOwner()
  ownerStart = await usdcBalance(env.client, env.devnet.deployment.assets.usdc, owner.address)
  golem = await provisionGolemIn(env, 'life', {
    keyCeiling: WHOLE_RUNWAY_ON_KEY,
    owner,
    strategy: readFileSync(new URL('../../examples/STRATEGY.md', import.meta.url), 'utf8'),
  })
  // Whole days later each tick is past the Golem's stagger offset, so every period's tick redeems.
  await passStaggerOffsets(env.devnet, ['life'])
  const invoker = new LocalInvoker((id) => env.deps(id), { onError: (_id, e) => errors.push(e) })
  for (let day = 0; day < 40; day++) {
    const before = invoker.results.length
    await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
    expect(invoker.results.length - before, `day ${day}: one tick`).toBe(1)
    days.push(invoker.results.at(-1)!)
    if ((await env.store.getGolem('life'))?.status === 'dead') break
    await env.devnet.increaseTime(DAY)
  }
})
afterAll(async () => env?.stop())

const phaseOfDay = (d: number): Phase => {
  let phase = 0 as Phase
  for (const r of days.slice(0, d + 1)) if (r.phase) phase = r.phase.to as Phase
  return phase
}

describe('a whole life in accelerated time', () => {
  it('goes Thriving -> Stable (day 12) -> Conservation (19) -> Declining (25) -> Terminal (30) -> dead, with no failed tick', async () => {
    expect(errors).toEqual([])
    expect(golem.plan.dailyUsdcCap).toBe(USDC(25))
    const changes = days.flatMap((r, day) => (r.phase ? [[day, r.phase.from, r.phase.to, r.phase.posted]] : []))
    expect(changes).toEqual([
      [12, 0, 1, true],
      [19, 1, 2, true],
      [25, 2, 3, true],
      [30, 3, 4, true],
    ])
    expect(days).toHaveLength(31)
    expect(days.at(-1)!.outcome).toBe('died')
    expect(days.slice(0, 30).every((r) => r.outcome === 'ticked')).toBe(true)
    const record = await env.store.getGolem('life')
    expect(record).toMatchObject({ status: 'dead', phase: 'Terminal' })
  })

  it('puts every transition on-chain once, in order, and the store records each one with the same numbers', async () => {
    const onChain = await phaseTransitions(env.client, env.devnet.deployment.vitalityOracle, golem.golemKey)
    expect(onChain.map((t) => [t.from, t.to])).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
    ])
    const stored = (await allEvents(env.store, 'life')).filter((e) => e.type === 'PhaseChanged')
    expect(stored.map((e) => [e.data.from, e.data.to, e.data.survivalScoreBps])).toEqual(
      onChain.map((t) => [t.from, t.to, t.survivalScore]),
    )
  })

  it('redeems exactly once per period at the phase multiplier (25, 18.75, 12.5, 2.5 USDC), never in Terminal', async () => {
    const profile = golem.profile
    const redemptions = await redemptionsBy(env.client, env.devnet.deployment.environment.DelegationManager, golem.golemKey)
    expect(redemptions).toHaveLength(30)
    const periods = redemptions.map((r) => periodAt(profile, r.timestamp))
    expect(new Set(periods).size).toBe(30)
    expect(periods).toEqual(Array.from({ length: 30 }, (_, d) => periods[0]! + BigInt(d)))
    const expected = Array.from({ length: 30 }, (_, d) => (USDC(25) * phaseMultiplierBps[phaseOfDay(d)]) / 10_000n)
    expect(days.slice(0, 30).map((r) => r.redemption?.amount)).toEqual(expected)
    expect(days.slice(0, 30).map((r) => r.redemption?.status)).toEqual(Array(30).fill('confirmed'))
    // The store's exactly-once slot of every period holds the transaction the chain has, claimed once, and
    // is left `sent`: the tick's confirmed outcome on the record stands for its completion.
    for (const [d, r] of redemptions.entries()) {
      const slot = await env.store.getSlot({ golemId: 'life', period: periods[d]!, step: 'runway' })
      expect(slot).toMatchObject({ status: 'sent', txHash: r.txHash, claims: 1 })
    }
    const redeemed = (await allEvents(env.store, 'life')).filter((e) => e.type === 'RunwayRedeemed').slice(0, 30)
    expect(redeemed.map((e) => BigInt(e.data.amount as string))).toEqual(expected)
  })

  it("never moves the owner's tokens anywhere but the redeemed runway to the Golem's key, and gets them back at death", async () => {
    const usdc = env.devnet.deployment.assets.usdc
    const transfers = await usdcTransfersFrom(env.client, usdc, owner.address)
    const redemptions = await redemptionsBy(env.client, env.devnet.deployment.environment.DelegationManager, golem.golemKey)
    const redemptionTxs = new Set(redemptions.map((r) => r.txHash))
    expect(transfers).toHaveLength(30)
    for (const t of transfers) {
      expect(sameAddress(t.to, golem.golemKey)).toBe(true)
      expect(redemptionTxs.has(t.txHash)).toBe(true)
    }
    const total = transfers.reduce((a, t) => a + t.value, 0n)
    expect(total).toBe(USDC(25) * 12n + 18_750_000n * 7n + 12_500_000n * 6n + 2_500_000n * 5n)
    // The Golem paid no one, so at death every redeemed USDC went home: the key ends empty.
    expect(await usdcBalance(env.client, usdc, owner.address)).toBe(ownerStart)
    expect(await usdcBalance(env.client, usdc, golem.golemKey)).toBe(0n)
    const stored = (await allEvents(env.store, 'life')).filter((e) => e.type === 'RunwayRedeemed')
    expect(stored.map((e) => e.data.txHash)).toEqual(redemptions.map((r) => r.txHash))
    expect(stored.reduce((a, e) => a + BigInt(e.data.amount as string), 0n)).toBe(total)
  })

  it('writes the DeathSettlement record, DeathCompleted, and deregisters the Golem on-chain', async () => {
    const death = await env.store.getDeathSettlement('life')
    const deregistered = await deregistrations(env, golem.golemKey)
    expect(deregistered).toHaveLength(1)
    expect(deregistered[0]!.args.finalPhase).toBe(4)
    expect(death).toMatchObject({
      kind: 'DelegationExpiry',
      settlement: {
        delegationHash: golem.runway.hash,
        expiryCause: 'NaturalExpiry',
        finalPhase: 'Terminal',
        sessionKeyZeroed: true,
        subDelegationsDisabled: [],
        deregisterTx: deregistered[0]!.transactionHash,
      },
    })
    const types = (await allEvents(env.store, 'life')).map((e) => e.type)
    expect(types.filter((t) => t === 'DeathCompleted')).toHaveLength(1)
    expect(types.filter((t) => t === 'DeathProtocolStarted')).toHaveLength(1)
    const state = await env.client.readContract({
      address: env.devnet.deployment.vitalityOracle,
      abi: VitalityOracleAbi,
      functionName: 'getState',
      args: [golem.golemKey],
    })
    expect(state.registered).toBe(false)
    // Its own Terminal post carried the score that took it there; the death reported the final one, 0.
    expect(state).toMatchObject({ phase: 4, survivalScore: 0 })
  })

  it('zeroes the session key: nothing can be signed for the Golem any more', async () => {
    expect(golem.sessionKey.zeroed).toBe(true)
    const record = await env.store.getGolem('life')
    await expect(env.signers.resolve(parseGolemProfile(record!.profile))).rejects.toThrow(/no session key in memory/)
    expect(() => golem.sessionKey.assertUsable()).toThrow()
  })

  it('after death nothing ticks, and the runway delegation refuses even a well-formed redemption', async () => {
    const ownerBefore = await usdcBalance(env.client, env.devnet.deployment.assets.usdc, owner.address)
    await env.devnet.increaseTime(2 * DAY)
    const invoker = new LocalInvoker((id) => env.deps(id))
    const hb = await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
    expect(hb.invoked).toBe(0)
    expect(await usdcBalance(env.client, env.devnet.deployment.assets.usdc, owner.address)).toBe(ownerBefore)
    // Simulated from the dead key's address (no signature needed for eth_call): the caveats refuse.
    const data: Hex = encodeRedemptions([
      {
        chain: toDelegations(golem.profile.runway.chain),
        executions: [
          {
            target: env.devnet.deployment.assets.usdc,
            value: 0n,
            callData: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [golem.golemKey, 1n] }),
          },
        ],
      },
    ])
    const refused = await env.client.call({ account: golem.golemKey, to: env.devnet.deployment.environment.DelegationManager, data }).then(
      () => null,
      (e: unknown) => decodeChainError(e),
    )
    expect(refused?.name).toMatch(/GolemNotRegistered|MortalityWindowEnded|TimeWindowExpired|Expired/)
  })
})
