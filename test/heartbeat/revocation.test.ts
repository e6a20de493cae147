// The owner revokes mid-life, in one transaction from the MetaMask smart account (a user operation
// through the EntryPoint, as a wallet sends it). The next tick sees the disabled delegation in its
// batched read, records RevokedByOwner once, stops redeeming and reports health `revoked` from then
// on; the Golem lives out its phases and its death record names the owner's revocation.
import { encodeFunctionData, erc20Abi, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DelegationManager as DelegationManagerAbi } from '@metamask/delegation-abis'
import { encodeRedemptions } from '../../core/delegations/index.ts'
import { toDelegations } from '../../core/lifecycle/profile.ts'
import { runHeartbeat } from '../../functions/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../../functions/heartbeat/invokers.ts'
import { decodeChainError } from '../../adapters/chain/decodeChainError.ts'
import type { TickResult } from '../../functions/tick/types.ts'
import type { OwnerAccount } from '../../local/devnet.ts'
import { disableDelegationCall, sendOwnerCalls } from '../../local/ownerActions.ts'
import { provisionGolem, type ProvisionedGolem } from '../../local/provision.ts'
import { DAY, USDC, allEvents, passStaggerOffsets, redemptionsBy, startHeartbeatEnv, usdcBalance, type HeartbeatEnv } from './harness.ts'

const STRATEGY =
  '---\nname: revoked-golem\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 5\n---\n\nSwap a little USDC into WETH every day.\n'

let env: HeartbeatEnv
let owner: OwnerAccount
let golem: ProvisionedGolem
let invoker: LocalInvoker
const errors: unknown[] = []
let revokeTx: Hex

const beat = async (): Promise<TickResult> => {
  const before = invoker.results.length
  await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
  expect(invoker.results.length - before).toBe(1)
  return invoker.results.at(-1)!
}

beforeAll(async () => {
  env = await startHeartbeatEnv()
  owner = await env.devnet.createOwner()
  golem = await provisionGolem({
    clients: env.devnet,
    deployment: env.devnet.deployment,
    store: env.store,
    signers: env.signers,
    owner,
    golemId: 'revoked',
    strategy: STRATEGY,
    runwayDays: 5,
  })
  // Whole days later each tick is past the Golem's stagger offset, so every period's tick redeems.
  await passStaggerOffsets(env.devnet, ['revoked'])
  invoker = new LocalInvoker((id) => env.deps(id), { onError: (_id, e) => errors.push(e) })
})
afterAll(async () => env?.stop())

describe('the owner revokes mid-life', () => {
  it('before: two days of ticks, two redemptions, the delegation Active', async () => {
    // A 5-day runway is `low` from the start (healthy needs > 7 days left), never `revoked`.
    expect(await beat()).toMatchObject({ health: 'low', revocation: 'Active', redemption: { status: 'confirmed' } })
    await env.devnet.increaseTime(DAY)
    expect((await beat()).redemption?.status).toBe('confirmed')
    expect(await redemptionsBy(env.client, env.devnet.deployment.environment.DelegationManager, golem.golemKey)).toHaveLength(2)
  })

  it('the owner disables the runway delegation in one user operation', async () => {
    const dm = env.devnet.deployment.environment.DelegationManager
    const receipt = await sendOwnerCalls({
      publicClient: env.client,
      submitter: env.devnet.deployer,
      smartAccount: owner.smartAccount,
      calls: [disableDelegationCall(dm, golem.runway.delegation)],
    })
    revokeTx = receipt.transactionHash
    expect(
      await env.client.readContract({
        address: dm,
        abi: DelegationManagerAbi,
        functionName: 'disabledDelegations',
        args: [golem.runway.hash],
      }),
    ).toBe(true)
  })

  it('the next tick sees it: health revoked, RevokedByOwner recorded, no redemption attempted', async () => {
    await env.devnet.increaseTime(DAY)
    const sentBefore = await env.client.getTransactionCount({ address: golem.golemKey })
    const r = await beat()
    expect(r).toMatchObject({
      outcome: 'ticked',
      health: 'revoked',
      revocation: 'RevokedByOwner',
      redemption: { status: 'skipped', reason: 'revoked' },
    })
    expect(r.events).toContain('DelegationRevoked')
    // Not even a reverted attempt: the key sent nothing this tick (a Stable phase post would be its own).
    expect(await env.client.getTransactionCount({ address: golem.golemKey })).toBe(sentBefore + (r.phase?.posted ? 1 : 0))
    const revoked = (await allEvents(env.store, 'revoked')).filter((e) => e.type === 'DelegationRevoked')
    expect(revoked).toHaveLength(1)
    expect(revoked[0]!.data).toMatchObject({ delegationHash: golem.runway.hash, cause: 'owner', revocation: 'RevokedByOwner' })
    expect((await env.store.getGolem('revoked'))?.lastTick?.outcome).toBe('skipped')
  })

  it('every later tick stays revoked, redeems nothing and reports the revocation only once; the owner keeps the rest', async () => {
    const ownerAfterRevoke = await usdcBalance(env.client, env.devnet.deployment.assets.usdc, owner.address)
    const keyHeld = await usdcBalance(env.client, env.devnet.deployment.assets.usdc, golem.golemKey)
    let died = false
    for (let day = 0; day < 4; day++) {
      await env.devnet.increaseTime(DAY)
      const r = await beat()
      died = r.outcome === 'died'
      if (died) break
      expect(r).toMatchObject({ health: 'revoked', redemption: { status: 'skipped', reason: 'revoked' } })
      expect(r.events ?? []).not.toContain('DelegationRevoked')
    }
    expect(errors).toEqual([])
    expect(await redemptionsBy(env.client, env.devnet.deployment.environment.DelegationManager, golem.golemKey)).toHaveLength(2)
    // Nothing more was redeemed; a death hands back what the key still held.
    expect(await usdcBalance(env.client, env.devnet.deployment.assets.usdc, owner.address)).toBe(ownerAfterRevoke + (died ? keyHeld : 0n))
    if (died) expect(await usdcBalance(env.client, env.devnet.deployment.assets.usdc, golem.golemKey)).toBe(0n)
    expect((await allEvents(env.store, 'revoked')).filter((e) => e.type === 'DelegationRevoked')).toHaveLength(1)
  })

  it('a redemption through the revoked delegation is refused on-chain: CannotUseADisabledDelegation', async () => {
    const data = encodeRedemptions([
      {
        chain: toDelegations(golem.profile.runway.chain),
        executions: [
          {
            target: env.devnet.deployment.assets.usdc,
            value: 0n,
            callData: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [golem.golemKey, USDC(1)] }),
          },
        ],
      },
    ])
    const refused = await env.client.call({ account: golem.golemKey, to: env.devnet.deployment.environment.DelegationManager, data }).then(
      () => null,
      (e: unknown) => decodeChainError(e),
    )
    expect(refused?.name).toMatch(/CannotUseADisabledDelegation|GolemNotRegistered/)
  })

  it('the Golem dies at the end of its runway; the DeathSettlement names the owner revocation', async () => {
    for (let i = 0; i < 3 && (await env.store.getGolem('revoked'))?.status !== 'dead'; i++) {
      await env.devnet.increaseTime(DAY)
      await beat()
    }
    expect((await env.store.getGolem('revoked'))?.status).toBe('dead')
    expect((await env.store.getDeathSettlement('revoked'))?.settlement).toMatchObject({
      expiryCause: 'OwnerRevocation',
      finalPhase: 'Terminal',
      sessionKeyZeroed: true,
    })
    expect(revokeTx).toMatch(/^0x[0-9a-f]{64}$/)
  })
})
