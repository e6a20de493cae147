// A whole life with a paid extension past the owner's grant, on anvil (chain time moved a day per beat:
// the runway period is a day). Two Golems of one owner are extended the same way; both ask for
// renewal (once). The owner renews one in the middle of its life through the API (a superseding grant
// signed by the owner's smart account, starting where the old grant stops paying; every wrong renewal is
// refused with its field and rule, and changes nothing): the old grant pays to its end, the new one from
// the next period on, never both in one period. The other is not renewed: every later beat is clean,
// and it dies by DelegationExpiry when its grant ends.
import { getAbiItem, pad, toHex, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DelegationManager as DelegationManagerAbi } from '@metamask/delegation-abis'
import { hashDelegation } from '@metamask/smart-accounts-kit/utils'
import type { Delegation } from '@metamask/smart-accounts-kit'
import { applyCredit } from '../../core/lifecycle/credit.ts'
import { parseGolemProfile, serializeGolemProfile, type GolemProfile } from '../../core/lifecycle/profile.ts'
import { renewalStart } from '../../core/lifecycle/renewal.ts'
import { createLocalApi } from '../../functions/api/local.ts'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import type { TickResult } from '../../app/tick/types.ts'
import { devnetAccount, type OwnerAccount } from '../../local/devnet.ts'
import { signRunwayGrant, type ProvisionedGolem } from '../../local/provision.ts'
import { DAY, USDC, WHOLE_RUNWAY_ON_KEY, allEvents, chainNow, passStaggerOffsets, startHeartbeatEnv, type HeartbeatEnv } from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY =
  '---\nname: renewal-golem\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 5\n---\n\nSwap a little USDC into WETH every day.\n'

let env: HeartbeatEnv
let owner: OwnerAccount
let stranger: OwnerAccount
const golems: Record<'renewed' | 'lapsed', ProvisionedGolem> = {} as never
let invoker: LocalInvoker
const errors: unknown[] = []
let api: ReturnType<typeof createLocalApi>

const beat = async (): Promise<TickResult[]> => {
  const before = invoker.results.length
  await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
  return invoker.results.slice(before)
}
const profileOf = async (id: string) => parseGolemProfile((await env.store.getGolem(id))!.profile)

/** What a settled x402 extend does to the profile (core/lifecycle/credit.ts), without the payment round trip. */
async function extend(id: string, seconds: bigint) {
  const record = (await env.store.getGolem(id))!
  const credited = applyCredit(
    parseGolemProfile(record.profile),
    {
      kind: 'extend',
      id: `0x${'ab'.repeat(15)}${id === 'renewed' ? '01' : '02'}`,
      payer: devnetAccount(5).address,
      amount: USDC(1),
      seconds,
      creditedAtMs: Date.now(),
    },
    await chainNow(env.client),
  )
  expect(credited.applied).toBe(true)
  const updated = await env.store.updateGolem({
    golemId: id,
    expectedVersion: record.version,
    patch: { profile: serializeGolemProfile(credited.profile) },
    now: Date.now(),
  })
  expect(updated.updated).toBe(true)
}

/** The owner's superseding grant: the same runway, a later end, on the old grant's grid. */
async function renewal(
  profile: GolemProfile,
  over: { salt?: Hex; expiresAt?: bigint; startDate?: bigint; periodAmount?: bigint; golemKey?: `0x${string}`; signer?: OwnerAccount } = {},
) {
  const now = await chainNow(env.client)
  const signed = await signRunwayGrant({
    deployment: env.devnet.deployment,
    owner: over.signer ?? owner,
    golemKey: over.golemKey ?? profile.golemKey,
    token: profile.runway.token,
    periodAmount: over.periodAmount ?? profile.runway.periodAmount,
    periodDuration: profile.runway.periodDuration,
    startDate: over.startDate ?? renewalStart(profile, now),
    expiresAt: over.expiresAt ?? profile.runway.expiresAt + 5n * BigInt(DAY),
    now,
    salt: over.salt ?? pad(toHex(BigInt(profile.runway.chain[0]!.salt) + 1n), { size: 32 }),
  })
  const delegation = signed.chain[0]!
  // A stranger's smart account signing a grant that names the owner as delegator: a forged renewal.
  return over.signer ? { ...delegation, delegator: owner.address } : delegation
}

const submit = (id: string, delegation: Delegation) =>
  api.request(`/api/v1/golems/${id}/renewal`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ delegation }),
  })

beforeAll(async () => {
  env = await startHeartbeatEnv()
  owner = await env.devnet.createOwner()
  stranger = await env.devnet.createOwner()
  for (const golemId of ['renewed', 'lapsed'] as const) {
    golems[golemId] = await provisionGolemIn(env, golemId, {
      owner,
      strategy: STRATEGY,
      runwayDays: 5,
      // Every period's redemption then shows which grant paid it.
      keyCeiling: WHOLE_RUNWAY_ON_KEY,
    })
  }
  // Whole days later each tick is past the Golem's stagger offset, so every period's tick redeems.
  await passStaggerOffsets(env.devnet, ['renewed', 'lapsed'])
  invoker = new LocalInvoker((id) => env.deps(id, { tickIntervalSeconds: 3600 }), { onError: (_id, e) => errors.push(e) })
  api = createLocalApi({
    store: env.store,
    publicClient: env.devnet.publicClient,
    deployment: env.devnet.deployment,
    operator: env.devnet.operator.account,
    settlement: devnetAccount(2),
  })
}, 120_000)
afterAll(async () => env?.stop())

describe('extension past the grant, renewal in the middle, and a Golem that is not renewed', () => {
  it('a paid extension past the grant makes both Golems ask their owner to renew, once each', async () => {
    expect((await beat()).map((r) => r.redemption?.status)).toEqual(['confirmed', 'confirmed'])
    await extend('renewed', 10n * BigInt(DAY))
    await extend('lapsed', 10n * BigInt(DAY))
    await env.devnet.increaseTime(DAY)
    await beat()
    await env.devnet.increaseTime(DAY)
    await beat()
    for (const id of ['renewed', 'lapsed']) {
      const requested = (await allEvents(env.store, id)).filter((e) => e.type === 'RenewalRequested')
      expect(requested).toHaveLength(1)
      expect(requested[0]!.data).toMatchObject({ grantEndsAt: (await profileOf(id)).runway.expiresAt.toString() })
      const health = (await (await api.request(`/api/v1/golems/${id}/permission-health`)).json()) as {
        renewal: { reason: string; days_left: number } | null
        health: string
      }
      expect(health.renewal).toMatchObject({ reason: 'grant-ends-before-runway' })
      // Three days of grant left (less the few seconds the blocks of this test took).
      expect(health.renewal!.days_left).toBeGreaterThan(2.9)
      expect(health.renewal!.days_left).toBeLessThanOrEqual(3)
      expect(health.health).toBe('low')
    }
  }, 60_000)

  it('refuses every wrong renewal with the field and the rule, and writes nothing', async () => {
    const profile = await profileOf('renewed')
    const version = (await env.store.getGolem('renewed'))!.version
    const now = await chainNow(env.client)
    const boundary = renewalStart(profile, now)
    const valid = await renewal(profile)
    const cases: [string, Delegation | Promise<Delegation>, RegExp][] = [
      ['salt not above the old one', renewal(profile, { salt: profile.runway.chain[0]!.salt }), /^delegation\.salt: must be greater/],
      [
        'another delegate',
        renewal(profile, { golemKey: devnetAccount(7).address }),
        /^delegation\.delegate: must be the Golem's session key/,
      ],
      [
        'a wider period amount',
        renewal(profile, { periodAmount: profile.runway.periodAmount * 2n }),
        /^delegation\.caveats: Child erc20PeriodTransfer .* exceeds parent/,
      ],
      [
        'a start off the period grid',
        renewal(profile, { startDate: boundary + 3600n }),
        /^erc20PeriodTransfer\.startDate: must be on the current grant's period grid/,
      ],
      [
        'a start in a period the old grant still pays (its last one)',
        renewal(profile, { startDate: boundary - BigInt(DAY) }),
        /^erc20PeriodTransfer\.startDate: must be on the current grant's period grid at or after \d+, where the current grant no longer pays/,
      ],
      [
        'a start in the period under way (the old behaviour: the next boundary from now)',
        renewal(profile, { startDate: boundary - 2n * BigInt(DAY) }),
        /^erc20PeriodTransfer\.startDate: must be on the current grant's period grid at or after/,
      ],
      [
        'an end that is not later',
        renewal(profile, { expiresAt: profile.runway.expiresAt }),
        /^golemPhase\.endTime: must be after the current grant's end/,
      ],
      ["a stranger's signature", renewal(profile, { signer: stranger }), /^delegation\.signature: must be the owner's signature/],
      [
        'a change after signing',
        { ...valid, salt: pad(toHex(BigInt(valid.salt) + 1n), { size: 32 }) },
        /^delegation\.signature: must be the owner's signature/,
      ],
    ]
    for (const [name, candidate, rule] of cases) {
      const res = await submit('renewed', await candidate)
      const body = (await res.json()) as { code: string; message: string; details: { field: string } }
      expect({ name, status: res.status, code: body.code }).toEqual({ name, status: 422, code: 'RENEWAL_REFUSED' })
      expect(body.message, name).toMatch(rule)
      expect(body.details.field, name).toBe(body.message.split(':')[0])
    }
    expect((await env.store.getGolem('renewed'))!.version).toBe(version)
    expect((await allEvents(env.store, 'renewed')).some((e) => e.type === 'DelegationRenewed')).toBe(false)
  }, 60_000)

  it('queues a valid renewal: the old grant pays to its end, the new one from the next period, never both in one period', async () => {
    const before = await profileOf('renewed')
    const candidate = await renewal(before)
    const renewedAt = (await env.client.getBlockNumber()) + 1n
    const res = await submit('renewed', candidate)
    expect(res.status).toBe(200)
    const body = (await res.json()) as { delegationHash: Hex; replaced: Hex; grant_ends_at: number; periodStart: number }
    expect(body).toMatchObject({
      delegationHash: hashDelegation(candidate),
      replaced: before.runway.periodDelegationHash,
      grant_ends_at: Number(before.runway.expiresAt + 5n * BigInt(DAY)),
    })
    const queued = await profileOf('renewed')
    // Queued, not in force: the old grant still pays until its end.
    expect(queued.runway.periodDelegationHash).toBe(before.runway.periodDelegationHash)
    expect(queued.renewals.map((r) => r.periodDelegationHash)).toEqual([body.delegationHash])
    // The same period grid, from the first period the old grant no longer pays.
    expect(BigInt(body.periodStart)).toBeGreaterThan(before.runway.expiresAt)
    expect((BigInt(body.periodStart) - before.runway.periodStart) % before.runway.periodDuration).toBe(0n)
    // The same submission again is refused (its salt is no longer above the newest grant's).
    expect((await submit('renewed', candidate)).status).toBe(422)

    for (let day = 0; day < 5; day++) {
      await env.devnet.increaseTime(DAY)
      await beat()
    }
    const redeemed = await env.client.getLogs({
      address: env.devnet.deployment.environment.DelegationManager,
      event: getAbiItem({ abi: DelegationManagerAbi, name: 'RedeemedDelegation' }),
      args: { redeemer: golems.renewed.golemKey },
      fromBlock: renewedAt,
      toBlock: 'latest',
    })
    const paid = await Promise.all(
      redeemed.map(async (l) => ({
        hash: hashDelegation(l.args.delegation as unknown as Delegation),
        period: (await env.client.getBlock({ blockNumber: l.blockNumber })).timestamp / before.runway.periodDuration,
        at: (await env.client.getBlock({ blockNumber: l.blockNumber })).timestamp,
      })),
    )
    // Before the old end the old grant paid, after it the new one; no period was paid by both.
    expect(paid.filter((p) => p.at <= before.runway.expiresAt).every((p) => p.hash === before.runway.periodDelegationHash)).toBe(true)
    expect(paid.filter((p) => p.at > before.runway.expiresAt).every((p) => p.hash === body.delegationHash)).toBe(true)
    expect(paid.some((p) => p.hash === body.delegationHash)).toBe(true)
    expect(new Set(paid.map((p) => p.period)).size).toBe(paid.length)
    // Past the old end the renewal is in force and the queue is empty.
    const after = await profileOf('renewed')
    expect(after.runway.periodDelegationHash).toBe(body.delegationHash)
    expect(after.renewals).toEqual([])
    // The renewed grant still ends before the paid TTL: the Golem asks again, once, for its new end.
    const requests = (await allEvents(env.store, 'renewed')).filter((e) => e.type === 'RenewalRequested').map((e) => e.data.grantEndsAt)
    expect(requests).toEqual([before.runway.expiresAt.toString(), after.runway.expiresAt.toString()])
    // Past the old grant's end the renewed Golem is alive and still health-checked against the new grant.
    expect((await env.store.getGolem('renewed'))!.status).toBe('alive')
    expect((await (await api.request('/api/v1/golems/renewed/permission-health')).json()) as object).toMatchObject({
      revocation: { kind: 'Active' },
    })
  }, 120_000)

  it('the Golem that was not renewed had clean beats and died by DelegationExpiry when its grant ended', async () => {
    const lapsed = invoker.results.filter((r) => r.golemId === 'lapsed')
    expect(errors).toEqual([])
    expect(lapsed.every((r) => r.outcome === 'ticked' || r.outcome === 'died')).toBe(true)
    expect(lapsed.at(-1)?.outcome).toBe('died')
    const record = (await env.store.getGolem('lapsed'))!
    expect(record.status).toBe('dead')
    expect(await env.store.getDeathSettlement('lapsed')).toMatchObject({
      kind: 'DelegationExpiry',
      settlement: { expiryCause: 'NaturalExpiry' },
    })
    const died = (await allEvents(env.store, 'lapsed')).find((e) => e.type === 'DeathProtocolStarted')
    expect(died?.data).toMatchObject({ trigger: 'delegation-expired' })
    // Later beats leave a dead Golem alone.
    await env.devnet.increaseTime(DAY)
    await beat()
    expect(errors).toEqual([])
    const health = (await (await api.request('/api/v1/golems/lapsed/permission-health')).json()) as { health: string }
    expect(health.health).toBe('dead')
    // Too late: a dead Golem takes no renewal (the death protocol is irreversible).
    const late = await submit('lapsed', await renewal(parseGolemProfile((await env.store.getGolem('lapsed'))!.profile)))
    expect(late.status).toBe(410)
    expect(await late.json()).toMatchObject({ code: 'GOLEM_DEAD' })
  }, 60_000)
})
