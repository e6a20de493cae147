// A Replicant: spawned by a Thriving Golem (its own key signs a strictly narrower sub-delegation of the
// runway: $20 budget, 4 days, 5 USDC/day, 10 calls, redeemable by the Replicant only), it redeems through the
// chain [replicant, runway] and shares the parent's daily allowance. Once the parent is Stable the
// parent's GolemPhase caveat refuses every redemption through a sub-delegation; when the parent dies
// the death protocol disables the Replicant's delegation on-chain and the DeathSettlement lists it.
import { createWalletClient, encodeFunctionData, erc20Abi, http, type Hex } from 'viem'
import type { Delegation } from '@metamask/smart-accounts-kit'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DelegationManager as DelegationManagerAbi } from '@metamask/delegation-abis'
import { DelegationTree, buildReplicantDelegation, encodeRedemptions, signedDelegationSigner } from '../../core/delegations/index.ts'
import { parseGolemProfile, serializeGolemProfile } from '../../core/lifecycle/profile.ts'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import { decodeChainError, type DecodedChainError } from '../../adapters/chain/decodeChainError.ts'
import type { TickResult } from '../../app/tick/types.ts'
import type { OwnerAccount } from '../../local/devnet.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import {
  DAY,
  USDC,
  chainNow,
  passStaggerOffsets,
  redemptionsBy,
  startHeartbeatEnv,
  usdcBalance,
  type HeartbeatEnv,
  WHOLE_RUNWAY_ON_KEY,
} from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY =
  '---\nname: parent-golem\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 5\n---\n\nSwap a little USDC into WETH every day.\n'
const TRANSFER = '0xa9059cbb'

let env: HeartbeatEnv
let owner: OwnerAccount
let golem: ProvisionedGolem
let replicant: PrivateKeyAccount
let replicantDelegation: Delegation
let replicantHash: Hex
let invoker: LocalInvoker
const errors: unknown[] = []

const beat = async (): Promise<TickResult> => {
  const before = invoker.results.length
  await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
  expect(invoker.results.length - before).toBe(1)
  return invoker.results.at(-1)!
}

/** The Replicant's redemption: USDC from the owner's account to itself, through [replicant, runway]. */
const redemption = (amount: bigint) => ({
  to: env.devnet.deployment.environment.DelegationManager,
  data: encodeRedemptions([
    {
      chain: [replicantDelegation, golem.runway.delegation],
      executions: [
        {
          target: env.devnet.deployment.assets.usdc,
          value: 0n,
          callData: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [replicant.address, amount] }),
        },
      ],
    },
  ]),
})

async function replicantRedeems(amount: bigint): Promise<void> {
  const wallet = createWalletClient({ account: replicant, chain: env.devnet.chain, transport: http(env.devnet.rpcUrl) })
  const receipt = await env.client.waitForTransactionReceipt({ hash: await wallet.sendTransaction(redemption(amount)) })
  expect(receipt.status).toBe('success')
}

async function replicantRefusal(amount: bigint): Promise<DecodedChainError | undefined> {
  return env.client.call({ account: replicant.address, ...redemption(amount) }).then(
    () => undefined,
    (e: unknown) => decodeChainError(e),
  )
}

beforeAll(async () => {
  env = await startHeartbeatEnv()
  owner = await env.devnet.createOwner()
  golem = await provisionGolemIn(env, 'parent', {
    keyCeiling: WHOLE_RUNWAY_ON_KEY,
    owner,
    strategy: STRATEGY,
    runwayDays: 5,
  })
  // Whole days later each tick is past the Golem's stagger offset, so every period's tick redeems.
  await passStaggerOffsets(env.devnet, ['parent'])
  replicant = await env.devnet.fundedAccount()
  invoker = new LocalInvoker((id) => env.deps(id), { onError: (_id, e) => errors.push(e) })
})
afterAll(async () => env?.stop())

describe('a Replicant spawned in Thriving', () => {
  it("is signed by the Golem's own key as a narrower slice of the runway and recorded in the Golem's profile", async () => {
    const now = await chainNow(env.client)
    const tree = new DelegationTree({ environment: env.devnet.deployment.environment, deployment: env.devnet.deployment, now: () => now })
    expect(tree.addGranted([golem.runway.delegation])).toBe(golem.runway.hash)
    const usdc = env.devnet.deployment.assets.usdc
    const draft = buildReplicantDelegation({
      tree,
      parent: golem.runway.hash,
      replicant: replicant.address,
      budget: {
        maxBudgetUsd: USDC(20),
        maxLifespanSeconds: 4n * BigInt(DAY),
        maxPriceAge: 400 * DAY,
        feeds: [{ token: usdc, decimals: 6, feed: env.devnet.deployment.assets.usdcUsdFeed }],
      },
      maxCalls: 10,
      runway: { token: usdc, periodAmount: USDC(5), periodDuration: DAY, startDate: Number(now) },
    })
    const { signer } = await env.signers.resolve(golem.profile)
    replicantDelegation = await tree.sign(draft.hash, signedDelegationSigner(signer))
    replicantHash = draft.hash
    expect(replicantDelegation.delegator).toBe(golem.golemKey)

    const record = (await env.store.getGolem('parent'))!
    const profile = parseGolemProfile(record.profile)
    const updated = await env.store.updateGolem({
      golemId: 'parent',
      expectedVersion: record.version,
      patch: {
        profile: serializeGolemProfile({
          ...profile,
          replicants: [...profile.replicants, { hash: replicantHash, delegation: replicantDelegation }],
        }),
      },
      now: Number(now) * 1000,
    })
    expect(updated.updated).toBe(true)
  })

  it("redeems through [replicant, runway] while the parent thrives, sharing the parent's daily allowance", async () => {
    await replicantRedeems(USDC(3))
    expect(await usdcBalance(env.client, env.devnet.deployment.assets.usdc, replicant.address)).toBe(USDC(3))
    // Above the Replicant's own 5 USDC/day it is refused, whatever the parent allows.
    expect((await replicantRefusal(USDC(3)))?.name).toMatch(/TransferAmountExceeded|transfer-amount-exceeded|Error/)
    // The parent's tick takes what is left of the day: 20 - 3.
    const r = await beat()
    expect(r.redemption).toMatchObject({ status: 'confirmed', amount: USDC(17) })
  })

  it("is refused once the parent is Stable: ActionNotAllowedInPhase(golem, Stable) from the parent's GolemPhase caveat", async () => {
    let stable: TickResult | undefined
    for (let day = 1; day <= 4 && !stable; day++) {
      await env.devnet.increaseTime(DAY)
      // Before the day's tick (which takes the whole day's allowance) the Thriving parent lets it through.
      const allowed = await replicantRefusal(USDC(1))
      expect(allowed, `day ${day}: ${JSON.stringify(allowed?.args)}`).toBeUndefined()
      const r = await beat()
      if (r.phase?.to === 1) stable = r
    }
    expect(stable?.phase).toMatchObject({ from: 0, to: 1, posted: true })
    const refusal = await replicantRefusal(USDC(1))
    expect(refusal?.name).toBe('ActionNotAllowedInPhase')
    expect(refusal?.args.slice(0, 3)).toEqual([golem.golemKey, 1, TRANSFER])
    // The parent itself still redeems in Stable (the multiplier, not the phase gate, applies to it).
    expect(stable?.redemption).toMatchObject({ status: 'confirmed', amount: USDC(15) })
  })

  it('dies with its parent: the death protocol disables its delegation on-chain and the DeathSettlement lists it', async () => {
    for (let i = 0; i < 4 && (await env.store.getGolem('parent'))?.status !== 'dead'; i++) {
      await env.devnet.increaseTime(DAY)
      await beat()
    }
    expect(errors).toEqual([])
    expect((await env.store.getGolem('parent'))?.status).toBe('dead')
    const dm = env.devnet.deployment.environment.DelegationManager
    expect(
      await env.client.readContract({ address: dm, abi: DelegationManagerAbi, functionName: 'disabledDelegations', args: [replicantHash] }),
    ).toBe(true)
    expect((await env.store.getDeathSettlement('parent'))?.settlement).toMatchObject({
      subDelegationsDisabled: [replicantHash],
      finalPhase: 'Terminal',
    })
    expect((await replicantRefusal(USDC(1)))?.name).toMatch(/CannotUseADisabledDelegation|GolemNotRegistered/)
    // One redemption by the Replicant in its whole life (two RedeemedDelegation logs: one per link).
    const byReplicant = await redemptionsBy(env.client, dm, replicant.address)
    expect(byReplicant.map((r) => r.delegationHashes)).toEqual([2])
  })
})
