// The owner's constitution on the action path, on anvil through the real DelegationManager: a request
// inside every bound executes and records its spend; a request that breaks a rule is refused by custody
// before anything is sent, named by its rule, recorded as a PolicyViolation event (source
// policy_violation), and moves no funds. Two copies of one request in flight at once execute it once, and
// the ledger counts its spend once.
import { erc20Abi, getAddress, isAddressEqual, type Address, type PublicClient } from 'viem'
import { loadActionGrant } from '../../app/actions/actionGrantStore.ts'
import { decodeBardoTerms } from '../../core/caveats/decodeBardoTerms.ts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MockPriceFeedAbi, PolicyCageAbi } from '../../contracts/artifacts/index.ts'
import { golemActions, inProcessTransport, type GolemActions } from '../../client/golemActions.ts'
import type { ActionRequest } from '../../core/actions/index.ts'
import { parseGolemProfile, serializeGolemProfile } from '../../core/lifecycle/profile.ts'
import type { PhaseName } from '../../core/lifecycle/phase.ts'
import { constitutionHash, parseConstitution, policyLedgerOf, type ConstitutionInput } from '../../core/policy/index.ts'
import type { TickStore } from '../../core/store/index.ts'
import type { ActionOutcome, ExecuteActionDeps } from '../../app/actions/executeAction.ts'

import type { OwnerAccount } from '../../local/devnet.ts'
import { setConstitutionHash } from '../chain/harness.ts'
import { startHeartbeatEnv, USDC, type HeartbeatEnv } from '../heartbeat/harness.ts'
import { storeWith } from '../support/storeWith.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY = 'Swap USDC for WETH on the router and deposit USDC into the vault, withdraw it later.\nbudget: $100/day'
const GOLEM = 'p1'

let env: HeartbeatEnv
let owner: OwnerAccount
let client: PublicClient
let act: GolemActions
let deps: ExecuteActionDeps
let assets: HeartbeatEnv['devnet']['deployment']['assets']

const balance = (token: Address) => client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner.address] })
/** A swap of `dollars` of USDC for WETH at the feed price ($3,000), 0.5 % under it, approved in the same batch. */
const buyWeth = (dollars: number): ActionRequest[] => [
  { kind: 'approve', token: assets.usdc, spender: assets.router, amount: USDC(dollars) },
  {
    kind: 'swap',
    router: assets.router,
    tokenIn: assets.usdc,
    tokenOut: assets.weth,
    amountIn: USDC(dollars),
    amountOutMinimum: (BigInt(dollars) * 10n ** 18n * 995n) / 3_000n / 1000n,
  },
]

const base = (): ConstitutionInput => ({
  v: 1,
  baseAsset: assets.usdc,
  assets: [
    { address: assets.weth, maxConcentrationBps: 2_500 },
    { address: assets.vault, maxConcentrationBps: 5_000 },
  ],
  maxTransactionUsd: USDC(20).toString(),
  maxSessionUsd: USDC(25).toString(),
  maxDayUsd: USDC(1_000).toString(),
  maxDrawdownBps: 1_500,
})

/** Puts a constitution (and a phase) on the Golem's record and, unless told not to, its hash in the PolicyCage. */
async function constitute(raw: ConstitutionInput, phase: PhaseName = 'Thriving', onChain = true) {
  const record = (await env.store.getGolem(GOLEM))!
  const profile = { ...parseGolemProfile(record.profile), constitution: parseConstitution(raw) }
  if (onChain) {
    await setConstitutionHash(env.devnet, profile.golemKey, constitutionHash(profile.constitution))
    const held = await client.readContract({
      address: env.devnet.deployment.policyCage!,
      abi: PolicyCageAbi,
      functionName: 'constitutionHash',
      args: [profile.golemKey],
    })
    expect(held).toBe(constitutionHash(profile.constitution))
  }
  const r = await env.store.updateGolem({
    golemId: GOLEM,
    expectedVersion: record.version,
    patch: { profile: serializeGolemProfile(profile), phase },
    now: Date.now(),
  })
  expect(r.updated).toBe(true)
}

let seq = 0
/** The request refused by custody under the constitution: its refusal, with the balances and the violation event checked. */
async function refused(actions: ActionRequest[]) {
  const before = await Promise.all([balance(assets.usdc), balance(assets.weth)])
  const out: ActionOutcome = await act.batch(actions, { requestId: `pol-${++seq}` })
  if (out.status !== 'refused') throw new Error(`expected a refusal, got ${out.status}`)
  expect(out.checkedBy).toBe('custody')
  expect(out.refusal.caveat).toBe('policy')
  expect(await Promise.all([balance(assets.usdc), balance(assets.weth)])).toEqual(before)
  const [last] = (await env.store.listEvents({ golemId: GOLEM, order: 'desc', limit: 1 })).events
  expect(last).toMatchObject({
    type: 'PolicyViolation',
    data: { source: 'policy_violation', requestId: `pol-${seq}`, rule: out.refusal.error, reason: out.refusal.reason },
  })
  return { refusal: out.refusal, event: last! }
}

beforeAll(async () => {
  env = await startHeartbeatEnv()
  client = env.client
  assets = env.devnet.deployment.assets
  owner = await env.devnet.createOwner({ usdc: USDC(1_000) })
  await provisionGolemIn(env, GOLEM, {
    owner,
    strategy: STRATEGY,
    lifeSeconds: 3_600n,
    constitution: parseConstitution(base()),
  })
  deps = {
    store: env.store,
    client,
    deployment: env.devnet.deployment,
    signers: env.signers,
    invocationId: 'test-policy',
  }
  act = golemActions({ golemId: GOLEM, transport: inProcessTransport(deps) })
  await setUsdcPrice(10n ** 8n)
})
afterAll(async () => env?.stop())

async function setUsdcPrice(answer: bigint) {
  for (const [feed, value] of [
    [assets.ethUsdFeed, 3_000n * 10n ** 8n],
    [assets.usdcUsdFeed, answer],
  ] as const)
    await client.waitForTransactionReceipt({
      hash: await env.devnet.deployer.writeContract({ address: feed, abi: MockPriceFeedAbi, functionName: 'setAnswer', args: [value] }),
    })
}

describe("the owner's constitution on the action path", () => {
  it('provisioning puts the constitution in the profile and its hash in the PolicyCage', async () => {
    const profile = parseGolemProfile((await env.store.getGolem(GOLEM))!.profile)
    expect(profile.constitution).toEqual(parseConstitution(base()))
    const onChain = await client.readContract({
      address: env.devnet.deployment.policyCage!,
      abi: PolicyCageAbi,
      functionName: 'constitutionHash',
      args: [profile.golemKey],
    })
    expect(onChain).toBe(constitutionHash(profile.constitution!))
    // Every delegation of the action grant carries the constitution to the chain (PolicyCageEnforcer).
    const grant = (await loadActionGrant(env.store, GOLEM))!
    expect(grant.delegations.length).toBeGreaterThan(0)
    for (const entry of grant.delegations) {
      const caveat = entry.chain[0]!.caveats.find((c) => isAddressEqual(c.enforcer, env.devnet.deployment.enforcers.policyCage!))
      expect(caveat, entry.label).toBeDefined()
      expect(decodeBardoTerms('policyCage', caveat!.terms)).toMatchObject({
        policyCage: getAddress(env.devnet.deployment.policyCage!),
        golem: profile.golemKey,
        constitution: parseConstitution(base()),
      })
    }
  })

  it('executes a request inside every bound and records what it put at risk', async () => {
    const out = await act.batch(buyWeth(10), { requestId: 'pol-ok' })
    expect(out.status).toBe('executed')
    const [spend] = (await env.store.listEvents({ golemId: GOLEM, order: 'desc', limit: 1 })).events
    expect(spend).toMatchObject({
      type: 'PolicySpend',
      data: { requestId: 'pol-ok', spendUsd: USDC(10).toString(), portfolioUsd: USDC(1_000).toString() },
    })
  })

  it('maxSession: refuses what would take the session past its bound', async () => {
    const { refusal } = await refused(buyWeth(20))
    expect(refusal).toMatchObject({
      error: 'maxSession',
      call: 1,
      args: ['maxSessionUsd', { spentUsd: USDC(10).toString(), limitUsd: USDC(25).toString() }],
    })
    expect(refusal.reason).toBe(
      'policy.maxSession: this action puts $20.00 at risk, $10.00 already this session; at most $25.00 per session',
    )
  })

  it('maxDay: refuses what would take the day past its bound', async () => {
    await constitute({ ...base(), maxSessionUsd: USDC(1_000).toString(), maxDayUsd: USDC(25).toString() })
    const { refusal } = await refused(buyWeth(20))
    expect(refusal.reason).toBe('policy.maxDay: this action puts $20.00 at risk, $10.00 already today; at most $25.00 per day')
  })

  it('maxTransaction: refuses one action over the per-transaction bound', async () => {
    await constitute({ ...base(), maxSessionUsd: USDC(1_000).toString() })
    const { refusal } = await refused(buyWeth(21))
    expect(refusal.reason).toBe('policy.maxTransaction: this action puts $21.00 at risk; at most $20.00 per transaction')
  })

  it('approvedAsset: refuses an asset the constitution does not list, and marks it for revocation where the constitution says so', async () => {
    await constitute({ ...base(), assets: [{ address: assets.vault, maxConcentrationBps: 5_000 }], revokeOn: ['approvedAsset'] })
    const { refusal, event } = await refused(buyWeth(5))
    expect(refusal.reason).toBe(`policy.approvedAsset: ${getAddress(assets.weth)} is not an approved asset of the constitution`)
    expect(event.data).toMatchObject({ revoke: true, field: 'assets' })
    // The cascade started: under this constitution even a deposit inside every bound is refused now.
    const after = await refused([
      { kind: 'approve', token: assets.usdc, spender: assets.vault, amount: USDC(5) },
      { kind: 'deposit', vault: assets.vault, assets: USDC(5) },
    ])
    expect(after.refusal).toMatchObject({ error: 'revoked', call: 0, args: ['revokeOn', { rule: 'approvedAsset' }] })
    expect(after.refusal.reason).toMatch(/^policy\.revoked: the approvedAsset violation at .+ started the revocation cascade/)
  })

  it('maxConcentration: refuses a position past the asset bound', async () => {
    await constitute({ ...base(), assets: [{ address: assets.weth, maxConcentrationBps: 50 }] })
    const { refusal } = await refused(buyWeth(5))
    expect(refusal).toMatchObject({
      error: 'maxConcentration',
      args: [`assets[${getAddress(assets.weth)}].maxConcentrationBps`, { limitBps: '50' }],
    })
  })

  it('phaseMaxPosition: opens no new position from Conservation on', async () => {
    await constitute(base(), 'Conservation')
    const { refusal } = await refused(buyWeth(5))
    expect(refusal.reason).toMatch(/^policy\.phaseMaxPosition: the Golem is in Conservation, where no new position is opened/)
    await constitute(base())
  })

  it('maxDrawdown: takes no new risk once the portfolio fell past the bound from its high-water mark', async () => {
    await setUsdcPrice(80_000_000n)
    try {
      const { refusal } = await refused(buyWeth(5))
      expect(refusal).toMatchObject({
        error: 'maxDrawdown',
        args: ['maxDrawdownBps', { limitBps: '1500', highWaterMarkUsd: USDC(1_000).toString() }],
      })
    } finally {
      await setUsdcPrice(10n ** 8n)
    }
  })

  it('constitutionHash: a Golem whose constitution is not the one in the PolicyCage acts no more', async () => {
    const changed = { ...base(), maxDayUsd: USDC(2_000).toString() }
    await constitute(changed, 'Thriving', false)
    const { refusal } = await refused(buyWeth(1))
    expect(refusal).toMatchObject({
      error: 'constitutionHash',
      args: ['constitutionHash', { expected: constitutionHash(parseConstitution(changed)) }],
    })
    expect(refusal.reason).toMatch(
      /^policy\.constitutionHash: the constitution hashes to 0x[0-9a-f]{64}, but the PolicyCage holds 0x[0-9a-f]{64} for 0x[0-9a-fA-F]{40}; the Golem does not start$/,
    )
  })
  it('two copies of one request in flight at once: one transaction, both answered with it, its spend counted once', async () => {
    // The constitution the grant's caveats carry, in the profile and the PolicyCage again.
    await constitute(base())
    const profile = parseGolemProfile((await env.store.getGolem(GOLEM))!.profile)
    const ledger = async () =>
      policyLedgerOf((await env.store.listEvents({ golemId: GOLEM, order: 'asc', limit: 1_000 })).events, {
        sessionKey: profile.golemKey,
        nowMs: Number((await client.getBlock()).timestamp) * 1000,
      })
    const before = await ledger()
    const sent = await client.getTransactionCount({ address: profile.golemKey })
    // The first copy, past its look for an earlier outcome and its reading of the chain, claims the send only
    // once the second has looked too and found none, a block later (so each reads its own block and records
    // the spend at its own time, two seconds apart), and completes it only once the second tried to claim it:
    // the second loses the send to the first and settles the first's transaction.
    let firstAtClaim!: () => void
    const atClaim = new Promise<void>((resolve) => (firstAtClaim = resolve))
    let secondLooked!: () => void
    const looked = new Promise<void>((resolve) => (secondLooked = resolve))
    let secondLooks = 0
    let secondClaimed!: () => void
    const claimed = new Promise<void>((resolve) => (secondClaimed = resolve))
    const through = (overrides: Partial<TickStore>) => storeWith(env.store, overrides)
    const copy = (invocationId: string, store: typeof env.store) =>
      golemActions({ golemId: GOLEM, transport: inProcessTransport({ ...deps, invocationId, store }) })
    const first = copy(
      'copy-1',
      through({
        claimSlotWithTx: async (input) => {
          firstAtClaim()
          await looked
          return env.store.claimSlotWithTx(input)
        },
        // Its transaction mined, the first completes the slot only after the second tried to claim it.
        completeSlot: async (input) => {
          await claimed
          return env.store.completeSlot(input)
        },
      }),
    )
    const second = copy(
      'copy-2',
      through({
        getSlot: async (ref) => {
          if (secondLooks++ > 0) return env.store.getSlot(ref)
          await atClaim
          await env.devnet.increaseTime(2)
          return env.store.getSlot(ref).finally(secondLooked)
        },
        claimSlotWithTx: (input) => env.store.claimSlotWithTx(input).finally(secondClaimed),
      }),
    )
    const [a, b] = await Promise.all([
      first.batch(buyWeth(1), { requestId: 'pol-twice' }),
      second.batch(buyWeth(1), { requestId: 'pol-twice' }),
    ])
    if (a.status !== 'executed' || b.status !== 'executed')
      throw new Error(`expected both executed, got ${JSON.stringify([a, b], (_k, v) => (typeof v === 'bigint' ? String(v) : v))}`)
    expect(b.txHash).toBe(a.txHash)
    expect([a.duplicate, b.duplicate]).toEqual([false, true])
    expect(await client.getTransactionCount({ address: profile.golemKey })).toBe(sent + 1)
    // Both copies recorded the spend; the ledger counts it once.
    const records = (await env.store.listEvents({ golemId: GOLEM, order: 'asc', limit: 1_000 })).events.filter(
      (e) => e.type === 'PolicySpend' && e.data.requestId === 'pol-twice',
    )
    expect(records).toHaveLength(2)
    const after = await ledger()
    expect(after.sessionSpentUsd - before.sessionSpentUsd).toBe(USDC(1))
  })
})
