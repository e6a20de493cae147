// What a leaked key is worth, at every tick of a whole life: a Golem that buys its own runtime over x402,
// is fed by a stranger with the stock x402 client, has its grant renewed by its owner, and is revoked at
// a beat drawn from the run's seed. After each tick the test asks the chain what a thief holding the key
// could still take: the key's own runway tokens, plus whatever each of the owner's runway grants (the
// current one, the renewal queued behind it) would still pay the key right now, each tried as a real
// redemption by the key. That never exceeds one period's allowance plus the key's ceiling.
import { encodeFunctionData, erc20Abi, pad, parseEther, toHex, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { registerExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment, x402Client } from '@x402/fetch'
import type { Delegation } from '@metamask/smart-accounts-kit'
import { loadOwnerGrants } from '../../core/custody/grantLedger.ts'
import { ownerSignedGrants } from '../../core/custody/revocationPlan.ts'
import { encodeRedemptions } from '../../core/delegations/index.ts'
import { parseGolemProfile, type GolemProfile } from '../../core/lifecycle/profile.ts'
import { renewalWindow } from '../../core/lifecycle/renewal.ts'
import { keyCeilingOf } from '../../core/lifecycle/runwayTarget.ts'
import { PeriodTransferEnforcerAbi } from '../../core/delegations/frameworkAbi.ts'
import { createLocalApi, DEFAULT_PRICING } from '../../functions/api/local.ts'
import { serveApi, type RunningApi } from '../../functions/api/server.ts'
import { StoreRenewalService } from '../../app/renewal.ts'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import { selfExtensionConfig } from '../../app/tick/selfExtensionConfig.ts'
import { devnetAccount, type OwnerAccount } from '../../local/devnet.ts'
import { signRunwayGrant, type ProvisionedGolem } from '../../local/provision.ts'
import { USDC, allEvents, chainNow, revokeAsOwner, startHeartbeatEnv, usdcBalance, type HeartbeatEnv } from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY = '---\nname: exposed\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 1\n---\n\nSwap a little USDC.\n'
/** Ten-second periods, a two-minute life, a beat per period: the chain stays within a minute or two of the wall clock, which x402 needs. */
const PERIOD = 10n
const LIFE = 120n
const BEATS = 14

let env: HeartbeatEnv
let api: RunningApi
let owner: OwnerAccount
let golem: ProvisionedGolem
let invoker: LocalInvoker
const errors: unknown[] = []

const dm = () => env.devnet.deployment.environment.DelegationManager
const usdc = () => env.devnet.deployment.assets.usdc
const profileNow = async (): Promise<GolemProfile> => parseGolemProfile((await env.store.getGolem('exposed'))!.profile)

/** What the thief could take through one runway grant right now: its available amount, if the chain would pay it. */
async function takeable(grant: Delegation, terms: Hex, hash: Hex): Promise<bigint> {
  const [available] = await env.client.readContract({
    address: env.devnet.deployment.environment.caveatEnforcers.ERC20PeriodTransferEnforcer as Address,
    abi: PeriodTransferEnforcerAbi,
    functionName: 'getAvailableAmount',
    args: [hash, dm(), terms],
  })
  if (available === 0n) return 0n
  const data = encodeRedemptions([
    {
      chain: [grant],
      executions: [
        {
          target: usdc(),
          value: 0n,
          callData: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [golem.golemKey, available] }),
        },
      ],
    },
  ])
  return env.client.call({ account: golem.golemKey, to: dm(), data }).then(
    () => available,
    () => 0n,
  )
}

/** The key's runway tokens plus what every runway grant the owner signed would still pay it now. */
async function exposure(): Promise<bigint> {
  const grants = ownerSignedGrants(owner.address, await loadOwnerGrants(env.store, 'exposed')).filter((g) => g.kind === 'runway')
  const periodEnforcer = env.devnet.deployment.environment.caveatEnforcers.ERC20PeriodTransferEnforcer as Address
  let total = await usdcBalance(env.client, usdc(), golem.golemKey)
  for (const g of grants) {
    const terms = g.delegation.caveats.find((c) => c.enforcer.toLowerCase() === periodEnforcer.toLowerCase())!.terms
    total += await takeable(g.delegation, terms, g.hash)
  }
  return total
}

beforeAll(async () => {
  env = await startHeartbeatEnv()
  owner = await env.devnet.createOwner()
  const operator = env.devnet.operator.account.address
  api = await serveApi(
    createLocalApi({
      store: env.store,
      publicClient: env.devnet.publicClient,
      deployment: env.devnet.deployment,
      operator,
      settlement: devnetAccount(2),
    }),
    0,
  )
  golem = await provisionGolemIn(env, 'exposed', {
    owner,
    strategy: STRATEGY,
    lifeSeconds: LIFE,
    periodSeconds: PERIOD,
    gas: { periodAmount: parseEther('0.01'), bootstrap: parseEther('0.01') },
  })
  const selfExtension = selfExtensionConfig({
    apiUrl: api.url,
    asset: usdc(),
    payee: operator,
    runtimeCostPerHour: DEFAULT_PRICING.runtimeCostPerHour,
    marginSeconds: LIFE / 2n,
  })!
  invoker = new LocalInvoker(
    (id) =>
      env.deps(id, {
        tickIntervalSeconds: Number(PERIOD),
        selfExtension,
        credits: { runtimeCostPerHour: DEFAULT_PRICING.runtimeCostPerHour },
      }),
    { onError: (_id, e) => errors.push(e) },
  )
}, 120_000)
afterAll(async () => {
  await api?.close()
  await env?.stop()
})

describe("a leaked key's worth through a whole life", () => {
  it('never exceeds one period plus the key ceiling: with a renewal, a feed, a self-paid extension and a revocation', async () => {
    // The revocation's beat comes from the run's seed: the same on every run, another with another seed.
    const revokeAt = fc.sample(fc.integer({ min: 7, max: BEATS - 3 }), 1)[0]!
    const bound = golem.profile.runway.periodAmount + keyCeilingOf(golem.profile.runway)
    const payer = privateKeyToAccount(generatePrivateKey())
    await env.devnet.mintUsdc(payer.address, USDC(50))
    const client = new x402Client()
    registerExactEvmScheme(client, { signer: payer })
    client.setSpendControls({
      allowedAssets: [{ network: `eip155:${env.devnet.deployment.chainId}`, asset: usdc(), maxAmountPerPayment: '20000000' }],
    })
    const pay = wrapFetchWithPayment(fetch, client)
    const seen: { beat: number; exposure: bigint; key: bigint }[] = []
    const look = async (beat: number) =>
      seen.push({ beat, exposure: await exposure(), key: await usdcBalance(env.client, usdc(), golem.golemKey) })
    let died = -1
    for (let beat = 0; beat < BEATS && died < 0; beat++) {
      if (beat === 6) {
        // After the Golem bought its own runtime (its TTL came within its horizon), a stranger feeds the Golem with the stock x402 client.
        const res = await pay(`${api.url}/api/v1/feed`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ golemId: 'exposed' }),
        })
        expect(res.status).toBe(200)
      }
      if (beat === 4) {
        // The owner renews: the renewal waits behind the grant it follows.
        const profile = await profileNow()
        const now = await chainNow(env.client)
        const window = renewalWindow(profile, now, LIFE)
        const signed = await signRunwayGrant({
          deployment: env.devnet.deployment,
          owner,
          golemKey: profile.golemKey,
          token: profile.runway.token,
          periodAmount: profile.runway.periodAmount,
          periodDuration: PERIOD,
          startDate: window.startDate,
          expiresAt: window.endTime,
          now,
          salt: pad(toHex(BigInt(profile.runway.chain[0]!.salt) + 1n), { size: 32 }),
        })
        await new StoreRenewalService({ store: env.store, client: env.client, deployment: env.devnet.deployment }).renew(
          'exposed',
          signed.chain[0]!,
        )
      }
      if (beat === revokeAt) {
        await revokeAsOwner(env, owner, 'exposed')
        await look(beat)
      }
      await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
      if ((await env.store.getGolem('exposed'))!.status === 'dead') died = beat
      await look(beat)
      await env.devnet.increaseTime(PERIOD)
    }
    expect(errors).toEqual([])
    // The life held everything the test asks of it.
    const events = (await allEvents(env.store, 'exposed')).map((e) => e.type)
    expect(events).toEqual(expect.arrayContaining(['RunwayRedeemed', 'RuntimeBought', 'PaymentCredited', 'DelegationRenewed']))
    // The revocation's next beat ran the death protocol; nothing is left on the key.
    expect(died).toBe(revokeAt)
    expect(seen.at(-1)!.exposure).toBe(0n)
    for (const s of seen) expect({ beat: s.beat, within: s.exposure <= bound }).toEqual({ beat: s.beat, within: true })
    // The key itself never held more than its ceiling (before just-in-time runway it held every period's cap).
    for (const s of seen) expect(s.key).toBeLessThanOrEqual(keyCeilingOf(golem.profile.runway))
  }, 240_000)
})
