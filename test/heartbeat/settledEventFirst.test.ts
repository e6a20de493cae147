// A tick that settles a runway redemption an earlier tick left `sent`, and then fails before its end,
// has written the redemption's event already: the slot is confirmed from then on, so no later tick would
// find it again to write it. (Under RPC faults a Golem otherwise ended with more redemptions on-chain than
// RunwayRedeemed events in its journal.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runTick } from '../../app/tick/runTick.ts'
import type { TickDeps } from '../../app/tick/types.ts'
import type { OwnerAccount } from '../../local/devnet.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import { allEvents, chainNow, passStaggerOffsets, periodAt, startHeartbeatEnv, type HeartbeatEnv } from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY =
  '---\nname: settle-first\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 5\n---\n\nSwap a little USDC into WETH every day.\n'
const ID = 'settle-first'

let env: HeartbeatEnv
let owner: OwnerAccount
let golem: ProvisionedGolem

beforeAll(async () => {
  env = await startHeartbeatEnv()
  owner = await env.devnet.createOwner()
  golem = await provisionGolemIn(env, ID, {
    owner,
    strategy: STRATEGY,
    runwayDays: 5,
  })
  await passStaggerOffsets(env.devnet, [ID])
}, 120_000)
afterAll(async () => env?.stop())

const redeemed = async () => (await allEvents(env.store, ID)).filter((e) => e.type === 'RunwayRedeemed')

describe('a redemption settled by a tick that then fails', () => {
  it('has its RunwayRedeemed event written once, by the tick that settled it', async () => {
    const period = periodAt(golem.profile, await chainNow(env.client))
    const crashAfterRunway: Partial<TickDeps> = {
      afterBroadcast: (step) => {
        if (step === 'runway') throw new Error('worker killed')
      },
    }
    await expect(runTick(env.deps('first', crashAfterRunway), { golemId: ID })).rejects.toThrow('worker killed')
    const sent = await env.store.getSlot({ golemId: ID, period, step: 'runway' })
    expect(sent).toMatchObject({ status: 'sent' })
    expect(await redeemed()).toEqual([])

    // The next tick, a minute later (a Golem ticks at most once a minute), settles the slot from the chain,
    // then fails before anything else of it is written.
    await env.devnet.increaseTime(60)
    const noSigner = { resolve: () => Promise.reject(new Error('signer unavailable')) } as unknown as TickDeps['signers']
    await expect(runTick(env.deps('second', { leaseMs: 1, signers: noSigner }), { golemId: ID })).rejects.toThrow('signer unavailable')
    expect(await env.store.getSlot({ golemId: ID, period, step: 'runway' })).toMatchObject({ status: 'confirmed', txHash: sent!.txHash })
    expect((await redeemed()).map((e) => e.data.txHash)).toEqual([sent!.txHash])

    // A tick that finishes writes it no second time.
    await env.devnet.increaseTime(60)
    const third = await runTick(env.deps('third', { leaseMs: 1 }), { golemId: ID })
    expect(third.outcome).not.toBe('failed')
    expect((await redeemed()).map((e) => e.data.txHash)).toEqual([sent!.txHash])
  })
})
