// The owner lowers a Golem's runway grant without revoking it, on anvil with the real framework. The
// owner signs a narrower grant (half the period amount, two days shorter) starting at the next boundary of
// the runway's grid; the API stores it (every wrong adjustment is refused with its field and rule, and
// changes nothing); the old grant stays in force until one transaction from the owner's account disables
// it. From then on permission health and the tick put the narrower grant in force instead of reading a
// revocation: the period under way stays the old grant's, the next one pays the adjusted amount and no
// more, and a thief holding the key gets nothing from the old grant. A revocation of everything later
// disables the adjusted grant too, and the Golem dies.
import { numberToHex, pad, toHex, type Address, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Delegation } from '@metamask/smart-accounts-kit'
import { adjustmentStart, supersededGrants } from '../../core/lifecycle/adjustment.ts'
import { planRevocation } from '../../core/custody/revocationPlan.ts'
import { parseGolemProfile, type GolemProfile } from '../../core/lifecycle/profile.ts'
import { createLocalApi } from '../../functions/api/local.ts'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { staggerOffset } from '../../core/lifecycle/stagger.ts'
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import { revocationOf } from '../../app/revocation.ts'
import type { TickResult } from '../../app/tick/types.ts'
import { devnetAccount, type OwnerAccount } from '../../local/devnet.ts'
import { sendOwnerCalls } from '../../local/ownerActions.ts'
import { signRunwayGrant, type ProvisionedGolem } from '../../local/provision.ts'
import {
  DAY,
  WHOLE_RUNWAY_ON_KEY,
  allEvents,
  chainNow,
  passStaggerOffsets,
  startHeartbeatEnv,
  stealWithKey,
  usdcTransfersFrom,
  type HeartbeatEnv,
} from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY = '---\nname: adjusted\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 6\n---\n\nSwap a little USDC.\n'
const ID = 'adjusted'

let env: HeartbeatEnv
let owner: OwnerAccount
let stranger: OwnerAccount
let golem: ProvisionedGolem
let before: GolemProfile
let adjustment: Delegation
let invoker: LocalInvoker
let api: ReturnType<typeof createLocalApi>
const errors: unknown[] = []

const rpc = (method: string, params: unknown[]) => env.client.request({ method: method as never, params: params as never })
const profileOf = async () => parseGolemProfile((await env.store.getGolem(ID))!.profile)
const beat = async (): Promise<TickResult[]> => {
  const from = invoker.results.length
  await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
  return invoker.results.slice(from)
}
const health = async () =>
  (await (await api.request(`/api/v1/golems/${ID}/permission-health`)).json()) as { health: string; grant_ends_at: number }

/** The owner's narrower grant: by default half the period amount, ending two days earlier, from the next boundary. */
async function narrower(
  over: { periodAmount?: bigint; expiresAt?: bigint; startDate?: bigint; salt?: Hex; golemKey?: Address; signer?: OwnerAccount } = {},
) {
  const now = await chainNow(env.client)
  const signed = await signRunwayGrant({
    deployment: env.devnet.deployment,
    owner: over.signer ?? owner,
    golemKey: over.golemKey ?? before.golemKey,
    token: before.runway.token,
    periodAmount: over.periodAmount ?? before.runway.periodAmount / 2n,
    periodDuration: before.runway.periodDuration,
    startDate: over.startDate ?? adjustmentStart(before, now),
    expiresAt: over.expiresAt ?? before.runway.expiresAt - 2n * BigInt(DAY),
    now,
    salt: over.salt ?? pad(toHex(BigInt(before.runway.chain[0]!.salt) + 1n), { size: 32 }),
  })
  const delegation = signed.chain[0]!
  // A stranger's smart account signing a grant that names the owner as delegator: a forged adjustment.
  return over.signer ? { ...delegation, delegator: owner.address } : delegation
}

const submit = (delegation: Delegation) =>
  api.request(`/api/v1/golems/${ID}/adjustment`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ delegation }),
  })

/** USDC the owner's account paid the key in the grid period that starts at `start`. */
async function paidInPeriod(start: bigint): Promise<bigint> {
  const transfers = await usdcTransfersFrom(env.client, env.devnet.deployment.assets.usdc, owner.address)
  let sum = 0n
  for (const t of transfers.filter((x) => x.to.toLowerCase() === golem.golemKey.toLowerCase())) {
    const receipt = await env.client.getTransactionReceipt({ hash: t.txHash })
    const block = await env.client.getBlock({ blockNumber: receipt.blockNumber })
    if (block.timestamp >= start && block.timestamp < start + before.runway.periodDuration) sum += t.value
  }
  return sum
}

beforeAll(async () => {
  env = await startHeartbeatEnv()
  owner = await env.devnet.createOwner()
  stranger = await env.devnet.createOwner()
  golem = await provisionGolemIn(env, ID, {
    owner,
    strategy: STRATEGY,
    runwayDays: 6,
    // Every period's redemption is the whole period amount: it shows which grant paid it.
    keyCeiling: WHOLE_RUNWAY_ON_KEY,
  })
  before = golem.profile
  await passStaggerOffsets(env.devnet, [ID])
  invoker = new LocalInvoker((id) => env.deps(id, { tickIntervalSeconds: 60 }), { onError: (_id, e) => errors.push(e) })
  api = createLocalApi({
    store: env.store,
    publicClient: env.devnet.publicClient,
    deployment: env.devnet.deployment,
    operator: env.devnet.operator.account,
    settlement: devnetAccount(2),
  })
  await rpc('anvil_impersonateAccount', [golem.golemKey])
  await rpc('anvil_setBalance', [golem.golemKey, numberToHex(10n ** 18n)])
}, 120_000)
afterAll(async () => env?.stop())

describe("the owner's adjustment: lower and shorter, without revoking", () => {
  it('the Golem redeems its first period under the grant it was given', async () => {
    const [first] = await beat()
    expect(first!.redemption).toMatchObject({ status: 'confirmed', amount: before.runway.periodAmount })
  })

  it('refuses every wrong adjustment with the field and the rule, and writes nothing', async () => {
    const version = (await env.store.getGolem(ID))!.version
    const now = await chainNow(env.client)
    const boundary = adjustmentStart(before, now)
    const cases: [string, Promise<Delegation> | Delegation, string, RegExp][] = [
      [
        'a wider period amount',
        narrower({ periodAmount: before.runway.periodAmount * 2n }),
        'erc20PeriodTransfer.periodAmount',
        /must not be above the current period amount/,
      ],
      ['a later end', narrower({ expiresAt: before.runway.expiresAt + BigInt(DAY) }), 'golemPhase.endTime', /must not be after/],
      [
        'nothing narrower',
        narrower({ periodAmount: before.runway.periodAmount, expiresAt: before.runway.expiresAt }),
        'delegation',
        /must lower the period amount or end earlier/,
      ],
      [
        'a start in the period under way',
        narrower({ startDate: boundary - before.runway.periodDuration }),
        'erc20PeriodTransfer.startDate',
        /must be \d+, the next boundary/,
      ],
      [
        'a start a period late',
        narrower({ startDate: boundary + before.runway.periodDuration }),
        'erc20PeriodTransfer.startDate',
        /next boundary/,
      ],
      ['a salt not above the grant', narrower({ salt: before.runway.chain[0]!.salt as Hex }), 'delegation.salt', /must be greater/],
      ['another delegate', narrower({ golemKey: devnetAccount(7).address }), 'delegation.delegate', /session key/],
      ["a stranger's signature", narrower({ signer: stranger }), 'delegation.signature', /owner's signature/],
    ]
    for (const [name, candidate, field, rule] of cases) {
      const res = await submit(await candidate)
      const body = (await res.json()) as { code: string; message: string; details: { field: string } }
      expect([name, res.status, body.code, body.details.field]).toEqual([name, 422, 'ADJUSTMENT_REFUSED', field])
      expect(body.message, name).toMatch(rule)
    }
    expect((await env.store.getGolem(ID))!.version).toBe(version)
    expect((await profileOf()).adjustment).toBeUndefined()
  })

  it('stores the narrower grant; the old one stays in force until the owner disables it', async () => {
    const healthBefore = (await health()).health
    adjustment = await narrower()
    const res = await submit(adjustment)
    const body = (await res.json()) as { delegationHash: Hex; supersedes: Hex[]; periodAmount: string; grant_ends_at: number }
    expect(res.status).toBe(200)
    expect(body.supersedes).toEqual(before.runway.chainHashes)
    expect(BigInt(body.periodAmount)).toBe(before.runway.periodAmount / 2n)
    const stored = await profileOf()
    expect(stored.runway.periodDelegationHash).toBe(before.runway.periodDelegationHash)
    expect(stored.adjustment?.periodDelegationHash).toBe(body.delegationHash)
    expect((await health()).health).toBe(healthBefore)
    // Before the owner's transaction, a beat changes nothing: the old grant is the one in force, and the
    // Golem, with nothing to do this minute, is not ticked.
    await env.devnet.increaseTime(60)
    expect(await beat()).toEqual([])
    expect((await health()).health).toBe(healthBefore)
    expect((await profileOf()).adjustment).toBeDefined()
  })

  it("after the owner's one transaction disables the old grant, health and the tick take the adjustment, not a revocation", async () => {
    // What the dashboard's draft asks the owner to disable: the grants the adjustment supersedes.
    const { adjustment: pending, ...without } = await profileOf()
    const disable = planRevocation({
      owner: owner.address,
      delegationManager: env.devnet.deployment.environment.DelegationManager,
      grants: supersededGrants(without),
      disabled: new Set(),
    })
    expect(disable.calls.map((c) => c.hash)).toEqual(pending!.supersedes)
    expect(disable.calls.map((c) => c.hash)).toEqual(before.runway.chainHashes)
    const receipt = await sendOwnerCalls({
      publicClient: env.client,
      submitter: env.devnet.deployer,
      smartAccount: owner.smartAccount,
      calls: disable.calls.map((c) => ({ to: c.to, data: c.data })),
    })
    expect(receipt.status).toBe('success')
    const seen = await health()
    expect(seen.health).not.toBe('revoked')
    expect(BigInt(seen.grant_ends_at)).toBe(before.runway.expiresAt - 2n * BigInt(DAY))

    await env.devnet.increaseTime(60)
    const [result] = await beat()
    expect(result!.outcome).toBe('ticked')
    expect(result!.revocation).toBe('Active')
    // The period under way was the old grant's and is paid already: nothing is redeemed twice in it.
    expect(result!.redemption?.status).not.toBe('confirmed')
    const adjusted = await profileOf()
    expect(adjusted.adjustment).toBeUndefined()
    expect(adjusted.runway.periodAmount).toBe(before.runway.periodAmount / 2n)
    expect(adjusted.runway.chainHashes).not.toEqual(before.runway.chainHashes)
    const events = await allEvents(env.store, ID)
    expect(events.map((e) => e.type)).toContain('DelegationAdjusted')
    expect(events.map((e) => e.type)).not.toContain('DelegationRevoked')
    expect((await env.store.getGolem(ID))!.status).toBe('alive')
  })

  it('the next period pays the adjusted amount and no more; the old grant pays a thief nothing', async () => {
    const adjusted = await profileOf()
    const now = await chainNow(env.client)
    // The beat's read comes from a fresh block at or after the adjusted grant's first second.
    await rpc('evm_setNextBlockTimestamp', [Number(adjusted.runway.periodStart > now ? adjusted.runway.periodStart : now + 1n)])
    await env.devnet.mine()
    let [result] = await beat()
    // Each Golem redeems at its own offset into the period (the heartbeat staggers a fleet's redemptions);
    // before it the Golem has nothing to do and is not ticked.
    const at = result?.redemption?.redeemAt ?? adjusted.runway.periodStart + staggerOffset(ID, adjusted.runway.periodDuration)
    if (result === undefined || result.redemption?.status === 'skipped') {
      await rpc('evm_setNextBlockTimestamp', [Number(at)])
      await env.devnet.mine()
      ;[result] = await beat()
    }
    expect(result!.redemption).toMatchObject({ status: 'confirmed', amount: before.runway.periodAmount / 2n })
    expect(await paidInPeriod(adjusted.runway.periodStart)).toBe(before.runway.periodAmount / 2n)
    expect(await stealWithKey(env, golem.golemKey, golem.runway.delegation, 1n)).toBe(false)
    expect(await stealWithKey(env, golem.golemKey, adjustment, 1n)).toBe(false)
    expect(await paidInPeriod(adjusted.runway.periodStart)).toBe(before.runway.periodAmount / 2n)
    expect(errors).toEqual([])
  })

  it("the owner's revocation of everything disables the adjusted grant too, and the Golem dies", async () => {
    const plan = await revocationOf(
      { store: env.store, client: env.client, delegationManager: env.devnet.deployment.environment.DelegationManager },
      ID,
    )
    expect(plan.calls.map((c) => c.hash)).toContain((await profileOf()).runway.periodDelegationHash)
    await sendOwnerCalls({
      publicClient: env.client,
      submitter: env.devnet.deployer,
      smartAccount: owner.smartAccount,
      calls: plan.calls.map((c) => ({ to: c.to, data: c.data })),
    })
    expect((await health()).health).toBe('revoked')
    for (let i = 0; i < 5 && (await env.store.getGolem(ID))!.status !== 'dead'; i++) {
      await env.devnet.increaseTime(60)
      await beat()
    }
    expect((await env.store.getGolem(ID))!.status).toBe('dead')
    expect((await allEvents(env.store, ID)).map((e) => e.type)).toContain('DelegationRevoked')
  })
})
