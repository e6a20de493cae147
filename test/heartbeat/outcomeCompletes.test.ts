// A confirmed runway redemption leaves its slot `sent`: the tick's outcome on the record stands for the
// slot's completion, one store write fewer. A tick that dies after the receipt but before that outcome
// leaves the record leased, so the next tick settles the slot from the chain and writes the redemption's
// RunwayRedeemed event, once, at the time the dead tick would have written it, whether the dead tick got
// as far as the event or not. Nothing is sent twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runTick } from '../../app/tick/runTick.ts'
import type { TickDeps } from '../../app/tick/types.ts'
import type { TickStore } from '../../core/store/index.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import { allEvents, chainNow, passStaggerOffsets, periodAt, redemptionsBy, startHeartbeatEnv, type HeartbeatEnv } from './harness.ts'
import { storeWith } from '../support/storeWith.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY =
  '---\nname: outcome-completes\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 5\n---\n\nSwap a little USDC into WETH every day.\n'
const DIES_AT = ['appendEvent', 'outcome'] as const

let env: HeartbeatEnv
const golems = new Map<string, ProvisionedGolem>()
const idOf = (write: (typeof DIES_AT)[number]) => `dies-at-${write.toLowerCase()}`

beforeAll(async () => {
  env = await startHeartbeatEnv()
  for (const write of DIES_AT) {
    const golemId = idOf(write)
    golems.set(
      golemId,
      await provisionGolemIn(env, golemId, {
        owner: await env.devnet.createOwner(),
        strategy: STRATEGY,
        runwayDays: 5,
      }),
    )
  }
  await passStaggerOffsets(env.devnet, [...golems.keys()])
}, 120_000)
afterAll(async () => env?.stop())

const redeemed = async (golemId: string) => (await allEvents(env.store, golemId)).filter((e) => e.type === 'RunwayRedeemed')
const redemptionsOf = (golem: ProvisionedGolem) =>
  redemptionsBy(env.client, env.devnet.deployment.environment.DelegationManager, golem.golemKey)

/** The tick's store, with one kind of write dying (as the worker would) once the redemption is mined. */
function dyingAt(write: 'appendEvent' | 'outcome'): TickStore {
  const store: TickStore = env.store
  return write === 'appendEvent'
    ? storeWith(store, {
        appendEvent: (input) => (input.type === 'RunwayRedeemed' ? Promise.reject(new Error('worker killed')) : store.appendEvent(input)),
      })
    : storeWith(store, {
        updateGolem: (input) =>
          input.patch.lastTick && input.patch.lastTick.outcome !== 'running'
            ? Promise.reject(new Error('worker killed'))
            : store.updateGolem(input),
      })
}

describe('a confirmed redemption whose tick dies before its outcome', () => {
  for (const write of DIES_AT) {
    it(`dying at its ${write === 'appendEvent' ? 'event' : 'outcome'}: the next tick records the redemption once, from the chain, and sends nothing`, async () => {
      const golemId = idOf(write)
      const golem = golems.get(golemId)!
      const signedAt = await chainNow(env.client)
      const period = periodAt(golem.profile, signedAt)
      const dies: Partial<TickDeps> = { store: dyingAt(write) }
      await expect(runTick(env.deps(`dies-${write}`, dies), { golemId })).rejects.toThrow('worker killed')
      const onChain = await redemptionsOf(golem)
      expect(onChain).toHaveLength(1)
      const tx = onChain[0]!.txHash
      expect(await env.store.getSlot({ golemId, period, step: 'runway' })).toMatchObject({ status: 'sent', txHash: tx })
      expect((await redeemed(golemId)).map((e) => e.data.txHash)).toEqual(write === 'appendEvent' ? [] : [tx])

      // A minute later the lease has passed: the next tick settles the slot and finishes.
      await env.devnet.increaseTime(60)
      const next = await runTick(env.deps(`after-${write}`, { leaseMs: 1 }), { golemId })
      expect(next.redemption).toMatchObject({ status: 'confirmed', txHash: tx })
      expect(await redemptionsOf(golem)).toHaveLength(1)
      expect(await env.store.getSlot({ golemId, period, step: 'runway' })).toMatchObject({ status: 'confirmed', txHash: tx })
      const events = await redeemed(golemId)
      expect(events.map((e) => e.data.txHash)).toEqual([tx])
      // At the chain time the dead tick signed at (the slot's), as the dead tick writes it.
      expect(Math.floor(events[0]!.at / 1000)).toBe(Number(signedAt))
    })
  }
})
