// Just-in-time runway through the real heartbeat and tick, on anvil and dynalite: the tick tops the
// Golem's key up to its target (one period's allowance), so a key that spent from its runway is topped up
// by less than the period allows. When it spends again in the same period, the period's one redemption
// (its slot) is already recorded: the heartbeat leaves the Golem alone instead of handing over, every
// minute until the period ends, a tick whose redemption could only lose the slot's claim. The next period
// tops it up again.
import { encodeFunctionData, erc20Abi, numberToHex, type Address, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { staggerOffset } from '../../core/lifecycle/stagger.ts'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import type { TickResult } from '../../app/tick/types.ts'
import type { OwnerAccount } from '../../local/devnet.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import { DAY, USDC, chainNow, redemptionsBy, startHeartbeatEnv, type HeartbeatEnv } from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY =
  '---\nname: key-spent\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 30\n---\n\nSwap a little USDC into WETH every day.\n'
const PERIOD = BigInt(DAY)
const GOLEM_ID = 'key-spent'
/** Where the key's spending goes (any address but the key's and the owner's). */
const SINK: Address = '0x000000000000000000000000000000000000dEaD'

let env: HeartbeatEnv
let owner: OwnerAccount
let golem: ProvisionedGolem
const errors: unknown[] = []

beforeAll(async () => {
  env = await startHeartbeatEnv()
  owner = await env.devnet.createOwner()
  golem = await provisionGolemIn(env, GOLEM_ID, { owner, strategy: STRATEGY, runwayDays: 30 })
  await env.client.request({ method: 'anvil_impersonateAccount' as never, params: [golem.golemKey] as never })
}, 120_000)
afterAll(async () => env?.stop())

const invoker = new LocalInvoker((id) => env.deps(id), { onError: (_id, e) => errors.push(e) })
const onChain = () => redemptionsBy(env.client, env.devnet.deployment.environment.DelegationManager, golem.golemKey)

/** One heartbeat; the Golem's tick result when it was handed over, null when it was left alone. */
async function heartbeat(): Promise<TickResult | null> {
  const before = invoker.results.length
  const hb = await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
  expect(errors).toEqual([])
  expect(hb.invoked).toBe(invoker.results.length - before)
  return hb.invoked === 0 ? null : invoker.results.at(-1)!
}

/** The key spends `amount` of its runway (a USDC transfer it signs; anvil impersonates it). */
async function keySpends(amount: bigint): Promise<void> {
  const hash = (await env.client.request({
    method: 'eth_sendTransaction' as never,
    params: [
      {
        from: golem.golemKey,
        to: env.devnet.deployment.assets.usdc,
        data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [SINK, amount] }),
        gas: numberToHex(100_000n),
      },
    ] as never,
  })) as Hex
  expect((await env.client.waitForTransactionReceipt({ hash })).status).toBe('success')
}

/** Moves the chain clock to the Golem's offset into period `n` after its first (0), a minute past it. */
async function toPeriod(n: bigint): Promise<void> {
  const at = golem.profile.runway.periodStart + n * PERIOD + staggerOffset(GOLEM_ID, PERIOD) + 60n
  const now = await chainNow(env.client)
  if (at > now) await env.devnet.increaseTime(at - now)
}

describe('a key that spent from its runway, topped up once a period', () => {
  it('redeems the whole first period to the key, then only what the key is short of its target in the second', async () => {
    expect(await heartbeat()).toMatchObject({ redemption: { status: 'confirmed', amount: USDC(20) } })
    await keySpends(USDC(5))
    await toPeriod(1n)
    expect(await heartbeat()).toMatchObject({ redemption: { status: 'confirmed', amount: USDC(5) } })
    expect(await onChain()).toHaveLength(2)
  })

  it('is left alone for the rest of the period when the key spends again: no tick, no redemption', async () => {
    await keySpends(USDC(8))
    for (let i = 0; i < 3; i++) {
      await env.devnet.increaseTime(61)
      expect(await heartbeat()).toBeNull()
    }
    expect(await onChain()).toHaveLength(2)
  })

  it('tops the key up again in the next period', async () => {
    await toPeriod(2n)
    expect(await heartbeat()).toMatchObject({ redemption: { status: 'confirmed', amount: USDC(8) } })
    expect(await onChain()).toHaveLength(3)
  })
})
