// A Golem that dies suddenly settles what it still can in the death protocol, on anvil and dynalite. Two
// Golems deposit their owners' USDC into the local vault while Thriving, each leaving part of its approval
// unspent; then each owner revokes. One owner disables only the runway grant: the action grant still
// stands, so the death redeems every share to the owner's account and revokes the allowance (the Golem
// is still Thriving, where approve is allowed), and the record lists both with their transactions. The
// other disables every grant: nothing can be settled any more, and the record lists both positions as
// left open, with the chain's reason, for the owner to close. A step whose tick crashed right after its
// broadcast is settled from the chain by the next attempt, never sent twice. A Golem whose grant ends
// before its next tick closes everything at its last tick, whatever its phase.
import { erc20Abi, getAddress, type Address, type PublicClient } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TestVaultAbi } from '../../contracts/artifacts/index.ts'
import { executeAction } from '../../app/actions/executeAction.ts'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import { revocationOf } from '../../app/revocation.ts'
import { runTick } from '../../app/tick/runTick.ts'
import { slotBaseOf } from '../../app/tick/slots.ts'
import type { TickResult } from '../../app/tick/types.ts'
import { windDown } from '../../app/tick/windDown.ts'
import { Phase } from '../../core/lifecycle/phase.ts'
import { parseGolemProfile } from '../../core/lifecycle/profile.ts'
import { redeemBase, windDownStep } from '../../core/lifecycle/windDownPlan.ts'
import type { OwnerAccount } from '../../local/devnet.ts'
import { sendOwnerCalls } from '../../local/ownerActions.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import { DAY, USDC, creditGolem, passStaggerOffsets, startHeartbeatEnv, usdcBalance, type HeartbeatEnv, freshFeeds } from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY = 'Swap USDC for WETH on the router and deposit USDC into the vault, withdraw it later.\nbudget: $50/day'

let env: HeartbeatEnv
let client: PublicClient
let assets: HeartbeatEnv['devnet']['deployment']['assets']
const errors: unknown[] = []
const golems: Record<string, { owner: OwnerAccount; golem: ProvisionedGolem; start: bigint }> = {}
let died: TickResult[] = []

const shares = (who: Address) => client.readContract({ address: assets.vault, abi: TestVaultAbi, functionName: 'balanceOf', args: [who] })
const allowance = (who: Address) =>
  client.readContract({ address: assets.usdc, abi: erc20Abi, functionName: 'allowance', args: [who, assets.vault] })

/** The owner disables the Golem's grants from their account: all of them, or only the runway grant. */
async function revoke(id: string, only?: 'runway') {
  const { owner, golem } = golems[id]!
  const dm = env.devnet.deployment.environment.DelegationManager
  const plan = await revocationOf({ store: env.store, client, delegationManager: dm }, id)
  const runway = golem.profile.runway.chainHashes[0]
  const calls = only === 'runway' ? plan.calls.filter((c) => c.hash === runway) : plan.calls
  expect(calls.length).toBeGreaterThan(0)
  const receipt = await sendOwnerCalls({
    publicClient: client,
    submitter: env.devnet.deployer,
    smartAccount: owner.smartAccount,
    calls: calls.map((c) => ({ to: c.to, data: c.data })),
  })
  expect(receipt.status).toBe('success')
}

beforeAll(async () => {
  env = await startHeartbeatEnv()
  client = env.client
  assets = env.devnet.deployment.assets
  for (const id of ['runway-only', 'everything']) {
    const owner = await env.devnet.createOwner({ usdc: USDC(1_000) })
    const start = await usdcBalance(client, assets.usdc, owner.address)
    const golem = await provisionGolemIn(env, id, {
      owner,
      strategy: STRATEGY,
      runwayDays: 10,
    })
    golems[id] = { owner, golem, start }
  }
  await passStaggerOffsets(env.devnet, Object.keys(golems))
  await freshFeeds(env)
  const deps = { store: env.store, client, deployment: env.devnet.deployment, signers: env.signers, invocationId: 'test-sudden' }
  for (const id of Object.keys(golems)) {
    const out = await executeAction(deps, {
      golemId: id,
      requestId: 'deposit-1',
      actions: [
        { kind: 'approve', token: assets.usdc, spender: assets.vault, amount: USDC(20) },
        { kind: 'deposit', vault: assets.vault, assets: USDC(15) },
      ],
    })
    expect(out.status).toBe('executed')
  }
  const invoker = new LocalInvoker((id) => env.deps(id), { onError: (_id, e) => errors.push(e) })
  const beat = async () => {
    const before = invoker.results.length
    await runHeartbeat({ store: env.store, client, deployment: env.devnet.deployment, invoker })
    return invoker.results.slice(before)
  }
  // One ordinary beat (the runway is redeemed to the keys), then the owners revoke and a day later each dies.
  expect((await beat()).map((r) => r.outcome)).toEqual(['ticked', 'ticked'])
  await revoke('runway-only', 'runway')
  await revoke('everything')
  await env.devnet.increaseTime(DAY)
  await freshFeeds(env)
  died = await beat()
}, 300_000)
afterAll(async () => env?.stop())

describe('a sudden death settles what it still can', () => {
  it('both Golems die at the next beat, with no failed tick', () => {
    expect(errors).toEqual([])
    expect(died.map((r) => r.outcome)).toEqual(['died', 'died'])
  })

  it("with the action grant still standing: every share redeemed to the owner's account and the allowance revoked, each with its transaction", async () => {
    const { owner, start } = golems['runway-only']!
    const death = await env.store.getDeathSettlement('runway-only')
    expect(death?.settlement).toMatchObject({
      expiryCause: 'OwnerRevocation',
      positionsSettled: [
        { kind: 'vault', vault: getAddress(assets.vault), shares: USDC(15).toString(), assets: USDC(15).toString() },
        { kind: 'approval', token: getAddress(assets.usdc), spender: getAddress(assets.vault) },
      ],
      positionsLeftOpen: [],
    })
    const settled = (death!.settlement as { positionsSettled: { txHash: `0x${string}` }[] }).positionsSettled
    for (const p of settled) expect((await client.getTransactionReceipt({ hash: p.txHash })).status).toBe('success')
    expect(await shares(owner.address)).toBe(0n)
    expect(await allowance(owner.address)).toBe(0n)
    // The runway the key held came home too: the owner has exactly what they started with.
    expect(await usdcBalance(client, assets.usdc, owner.address)).toBe(start)
  })

  it('with every grant disabled: nothing settled, both positions listed as left open with the reason', async () => {
    const { owner } = golems.everything!
    const death = await env.store.getDeathSettlement('everything')
    expect(death?.settlement).toMatchObject({
      expiryCause: 'OwnerRevocation',
      positionsSettled: [],
      positionsLeftOpen: [
        { kind: 'vault', vault: getAddress(assets.vault), shares: USDC(15).toString(), reason: expect.stringMatching(/^refused: /) },
        {
          kind: 'approval',
          token: getAddress(assets.usdc),
          spender: getAddress(assets.vault),
          allowance: USDC(5).toString(),
          reason: expect.stringMatching(/^refused: /),
        },
      ],
    })
    // The owner still holds both, and closes them from their own account.
    expect(await shares(owner.address)).toBe(USDC(15))
    expect(await allowance(owner.address)).toBe(USDC(5))
  })
})

describe('a wind-down step whose tick crashed right after the broadcast', () => {
  it('is settled from the chain by the next attempt, never sent twice', async () => {
    const owner = await env.devnet.createOwner({ usdc: USDC(100) })
    const golem = await provisionGolemIn(env, 'crashed', {
      owner,
      strategy: STRATEGY,
      runwayDays: 10,
    })
    await freshFeeds(env)
    const deps = { store: env.store, client, deployment: env.devnet.deployment, signers: env.signers, invocationId: 'test-crash' }
    const deposit = await executeAction(deps, {
      golemId: 'crashed',
      requestId: 'deposit-1',
      actions: [
        { kind: 'approve', token: assets.usdc, spender: assets.vault, amount: USDC(20) },
        { kind: 'deposit', vault: assets.vault, assets: USDC(15) },
      ],
    })
    expect(deposit.status).toBe('executed')
    const sentBefore = await client.getTransactionCount({ address: golem.golemKey })
    const signer = async () => (await env.signers.resolve(golem.profile)).signer
    const run = async (invocation: string, crash: boolean) => {
      const tickDeps = env.deps(invocation, crash ? { afterBroadcast: () => Promise.reject(new Error('crashed')) } : {})
      const nowMs = Number((await client.getBlock()).timestamp) * 1000
      return windDown(tickDeps, slotBaseOf(tickDeps, nowMs), 'crashed', golem.profile, {
        phase: Phase.Stable,
        scope: 'all',
        signer,
        describe: true,
      })
    }
    await expect(run('first', true)).rejects.toThrow('crashed')
    const redeemSlot = { golemId: 'crashed', period: 0n, step: windDownStep(redeemBase(assets.vault), 0) }
    expect(await env.store.getSlot(redeemSlot)).toMatchObject({ status: 'sent' })
    expect(await shares(owner.address)).toBe(0n)

    const resumed = await run('second', false)
    expect(resumed).toMatchObject({ settled: 2, leftOpen: [], pending: null })
    expect(resumed.positionsSettled).toMatchObject([
      { kind: 'vault', shares: USDC(15).toString(), assets: USDC(15).toString(), txHash: (await env.store.getSlot(redeemSlot))!.txHash },
      { kind: 'approval', token: getAddress(assets.usdc), spender: getAddress(assets.vault) },
    ])
    expect(await env.store.getSlot(redeemSlot)).toMatchObject({ status: 'confirmed' })
    expect(await env.store.getSlot({ golemId: 'crashed', period: 0n, step: windDownStep(redeemBase(assets.vault), 1) })).toBeNull()
    // One redemption and one revoke: nothing was sent twice.
    expect(await client.getTransactionCount({ address: golem.golemKey })).toBe(sentBefore + 2)
    expect(await allowance(owner.address)).toBe(0n)
  })
})

describe('a Golem whose grant ends before its next tick', () => {
  it('closes everything at the last tick it can, and dies at the end with every position settled', async () => {
    const owner = await env.devnet.createOwner({ usdc: USDC(200) })
    const start = await usdcBalance(client, assets.usdc, owner.address)
    await provisionGolemIn(env, 'expiring', {
      owner,
      strategy: STRATEGY,
      runwayDays: 2,
    })
    await freshFeeds(env)
    const deps = { store: env.store, client, deployment: env.devnet.deployment, signers: env.signers, invocationId: 'test-expiry' }
    const deposit = await executeAction(deps, {
      golemId: 'expiring',
      requestId: 'deposit-1',
      actions: [
        { kind: 'approve', token: assets.usdc, spender: assets.vault, amount: USDC(20) },
        { kind: 'deposit', vault: assets.vault, assets: USDC(15) },
      ],
    })
    expect(deposit.status).toBe('executed')
    // Ten days of runtime paid: its vitality stays high, so the grant's end, not its phase, ends its life.
    const record = (await env.store.getGolem('expiring'))!
    await creditGolem(env, 'expiring', { kind: 'extend', seconds: 10n * BigInt(DAY), amount: USDC(5), nonceByte: 'ab' })

    // Half an hour before the grant ends, with a tick every hour: the last tick that can still close.
    const profile = parseGolemProfile(record.profile)
    await env.devnet.increaseTime(Number(profile.runway.expiresAt - (await client.getBlock()).timestamp) - 1_800)
    await freshFeeds(env)
    const last = await runTick(env.deps('last-tick', { tickIntervalSeconds: 3_600 }), { golemId: 'expiring' })
    expect(last.outcome).toBe('ticked')
    expect(last.vitals?.phase).not.toBe('Declining')
    expect(last.windDown).toEqual({ settled: 2, leftOpen: [] })
    expect(await shares(owner.address)).toBe(0n)
    expect(await allowance(owner.address)).toBe(0n)

    await env.devnet.increaseTime(3_600)
    const dead = await runTick(env.deps('after-the-end', { tickIntervalSeconds: 3_600 }), { golemId: 'expiring' })
    expect(dead.outcome).toBe('died')
    const death = await env.store.getDeathSettlement('expiring')
    expect(death?.settlement).toMatchObject({
      expiryCause: 'NaturalExpiry',
      positionsSettled: [
        { kind: 'vault', vault: getAddress(assets.vault), shares: USDC(15).toString(), assets: USDC(15).toString() },
        { kind: 'approval', token: getAddress(assets.usdc), spender: getAddress(assets.vault) },
      ],
      positionsLeftOpen: [],
    })
    expect(await usdcBalance(client, assets.usdc, owner.address)).toBe(start)
  })
})
