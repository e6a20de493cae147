// A renewal never gives a leaked key two caps in one period. A thief holding the Golem's key (anvil
// impersonates it: it signs whatever it likes) tries both of the owner's runway grants, the current one and
// the renewal queued behind it, at the worst moments: inside a period the old grant pays, at the old
// grant's last second, and at the first second of the renewal. In every period of the runway's grid it
// takes at most one cap. The renewal the API used to take (starting at the next boundary, while the old
// grant still pays) is refused, naming the field.
import { numberToHex, pad, toHex, type Address } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Delegation } from '@metamask/smart-accounts-kit'
import { nextPeriodBoundary, renewalWindow } from '../../core/lifecycle/renewal.ts'
import { parseGolemProfile, type GolemProfile } from '../../core/lifecycle/profile.ts'
import { RenewalError } from '../../core/lifecycle/renewalCheck.ts'
import { StoreRenewalService } from '../../app/renewal.ts'
import type { OwnerAccount } from '../../local/devnet.ts'
import { signRunwayGrant, type ProvisionedGolem } from '../../local/provision.ts'
import { DAY, USDC, chainNow, startHeartbeatEnv, stealWithKey, usdcTransfersFrom, type HeartbeatEnv } from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY = '---\nname: overlap\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 3\n---\n\nSwap a little USDC.\n'

let env: HeartbeatEnv
let owner: OwnerAccount
let golem: ProvisionedGolem
let profile: GolemProfile
let renewal: Delegation

const rpc = (method: string, params: unknown[]) => env.client.request({ method: method as never, params: params as never })

async function signRenewal(over: { startDate?: bigint } = {}): Promise<Delegation> {
  const now = await chainNow(env.client)
  const window = renewalWindow(profile, now, 3n * BigInt(DAY))
  const signed = await signRunwayGrant({
    deployment: env.devnet.deployment,
    owner,
    golemKey: profile.golemKey,
    token: profile.runway.token,
    periodAmount: profile.runway.periodAmount,
    periodDuration: profile.runway.periodDuration,
    startDate: over.startDate ?? window.startDate,
    expiresAt: window.endTime,
    now,
    salt: pad(toHex(BigInt(profile.runway.chain[0]!.salt) + 1n), { size: 32 }),
  })
  return signed.chain[0]!
}

/** Moves the chain to exactly `at` for the next block. */
async function at(timestamp: bigint): Promise<void> {
  await rpc('evm_setNextBlockTimestamp', [Number(timestamp)])
}

beforeAll(async () => {
  env = await startHeartbeatEnv()
  owner = await env.devnet.createOwner()
  golem = await provisionGolemIn(env, 'overlap', {
    owner,
    strategy: STRATEGY,
    runwayDays: 3,
  })
  profile = golem.profile
  await rpc('anvil_impersonateAccount', [golem.golemKey])
  await rpc('anvil_setBalance', [golem.golemKey, numberToHex(10n ** 18n)])
}, 120_000)
afterAll(async () => env?.stop())

describe('one period, two grants', () => {
  it('refuses a renewal that starts while the old grant still pays, naming the field, and writes nothing', async () => {
    const service = new StoreRenewalService({ store: env.store, client: env.client, deployment: env.devnet.deployment })
    const now = await chainNow(env.client)
    const version = (await env.store.getGolem('overlap'))!.version
    // What the renewal used to start at: the next boundary from now, two periods before the old grant ends.
    const early = await signRenewal({ startDate: nextPeriodBoundary(profile.runway.periodStart, profile.runway.periodDuration, now) })
    const refused = await service.renew('overlap', early).then(
      () => null,
      (e: unknown) => e,
    )
    expect(refused).toBeInstanceOf(RenewalError)
    expect((refused as RenewalError).field).toBe('erc20PeriodTransfer.startDate')
    expect((await env.store.getGolem('overlap'))!.version).toBe(version)
  })

  it('queues the renewal that starts where the old grant stops paying', async () => {
    renewal = await signRenewal()
    const service = new StoreRenewalService({ store: env.store, client: env.client, deployment: env.devnet.deployment })
    await service.renew('overlap', renewal)
    const stored = parseGolemProfile((await env.store.getGolem('overlap'))!.profile)
    expect(stored.renewals.map((r) => r.periodStart)).toEqual([profile.runway.expiresAt + 1n])
  })

  it('a thief with the key takes at most one cap in any period, whichever grant it tries and whenever', async () => {
    const old = golem.runway.delegation
    const start = profile.runway.periodStart
    const period = profile.runway.periodDuration
    // Inside the first period: the old grant pays, the queued one refuses.
    expect(await stealWithKey(env, golem.golemKey, old, profile.runway.periodAmount)).toBe(true)
    expect(await stealWithKey(env, golem.golemKey, renewal, profile.runway.periodAmount)).toBe(false)
    expect(await stealWithKey(env, golem.golemKey, old, profile.runway.periodAmount)).toBe(false)
    // The old grant's last second: its last period, once; the renewal has not started.
    await at(profile.runway.expiresAt)
    expect(await stealWithKey(env, golem.golemKey, old, profile.runway.periodAmount)).toBe(true)
    // The renewal's first second: the old grant is over, the renewal pays its first period, once.
    await at(profile.runway.expiresAt + 1n)
    expect(await stealWithKey(env, golem.golemKey, old, profile.runway.periodAmount)).toBe(false)
    expect(await stealWithKey(env, golem.golemKey, renewal, profile.runway.periodAmount)).toBe(true)
    expect(await stealWithKey(env, golem.golemKey, renewal, profile.runway.periodAmount)).toBe(false)

    // Counted from the chain: every transfer out of the owner, by grid period.
    const transfers = await usdcTransfersFrom(env.client, env.devnet.deployment.assets.usdc, owner.address)
    const byPeriod = new Map<bigint, bigint>()
    for (const t of transfers.filter((x) => x.to.toLowerCase() === (golem.golemKey as Address).toLowerCase())) {
      const receipt = await env.client.getTransactionReceipt({ hash: t.txHash })
      const block = await env.client.getBlock({ blockNumber: receipt.blockNumber })
      const p = (block.timestamp - start) / period
      byPeriod.set(p, (byPeriod.get(p) ?? 0n) + t.value)
    }
    expect(byPeriod.size).toBe(3)
    for (const taken of byPeriod.values()) expect(taken).toBeLessThanOrEqual(profile.runway.periodAmount)
    expect(profile.runway.periodAmount).toBe(USDC(20))
  })
})
