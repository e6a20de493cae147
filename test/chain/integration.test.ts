// The integration list, on anvil: the deployment, a Golem registered by the operator
// and reporting its own phase, and a Golem grant built by core/delegations (buildGolemDelegation,
// signed by the owner's smart account) refused out of phase, after its life window (GolemPhase's own
// terms, as Bardo builds it; and a separate MortalityTimeWindow, as delegations signed before), while
// dreaming, and over the VaultNAV limit.
import { parseEventLogs, type Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as artifacts from '../../contracts/artifacts/index.ts'
import { buildGolemDelegation, smartAccountSigner } from '../../core/delegations/index.ts'
import { startDevnet, type Devnet, type OwnerAccount } from '../../local/devnet.ts'
import {
  PHASE,
  SELECTOR,
  USDC,
  chainNow,
  depositCall,
  expectRefused,
  newGolem,
  newTree,
  redeem,
  refusal,
  seedVault,
  transferCall,
  updatePhase,
  waitOk,
  walletFor,
} from './harness.ts'

let devnet: Devnet
let owner: OwnerAccount
const oracle = () => ({ address: devnet.deployment.vitalityOracle, abi: artifacts.VitalityOracleAbi }) as const

beforeAll(async () => {
  devnet = await startDevnet()
  owner = await devnet.createOwner({ usdc: USDC(100_000) })
  await seedVault(devnet, owner, USDC(100_000))
})
afterAll(async () => devnet?.stop())

/**
 * The owner grants a Golem its USDC runway (transfers, period-capped) and its vault deposits (receiver
 * pinned to the owner's account) with the S14 caveats, signed: two sibling delegations. The life window
 * rides on golemPhase (Bardo's shape) or, `previous`, on a separate mortalityTimeWindow.
 */
async function grant(golem: Address, lifetimeSeconds = 30n * 86_400n, previous = false) {
  const now = await chainNow(devnet)
  const tree = newTree(devnet, now)
  const { usdc, vault } = devnet.deployment.assets
  const endTime = now + lifetimeSeconds
  const { runway, actions } = buildGolemDelegation({
    tree,
    owner: owner.address,
    golem,
    bardo: [
      ...(previous
        ? [{ type: 'golemPhase', golem } as const, { type: 'mortalityTimeWindow', startTime: now, endTime } as const]
        : [{ type: 'golemPhase', golem, startTime: now, endTime } as const]),
      { type: 'dreamMode', golem },
    ],
    runway: { token: usdc, periodAmount: USDC(1_000), periodDuration: 86_400, startDate: Number(now) },
    actions: [{ targets: [vault], selectors: [SELECTOR.deposit], receivers: [36], bardo: [{ type: 'vaultNav', vault, maxNavBps: 1_000 }] }],
  })
  const signed = await tree.sign(actions![0]!.hash, smartAccountSigner(owner.smartAccount))
  await tree.sign(runway!.hash, smartAccountSigner(owner.smartAccount))
  return { chain: tree.chain(actions![0]!.hash), runway: tree.chain(runway!.hash), signed, endTime }
}

const pay = (amount: bigint) => [transferCall(devnet.deployment.assets.usdc, owner.signer.address, amount)]

describe('integration on anvil', () => {
  let golem: PrivateKeyAccount

  it('deploys VitalityOracle, GolemPhaseEnforcer and MortalityTimeWindowEnforcer: the oracle owned by the operator, the phase table by its own key', async () => {
    const { vitalityOracle, enforcers } = devnet.deployment
    for (const address of [vitalityOracle, enforcers.golemPhase, enforcers.mortalityTimeWindow]) {
      expect((await devnet.publicClient.getCode({ address }))?.length ?? 0).toBeGreaterThan(2)
    }
    const read = <T>(functionName: 'vitalityOracle' | 'owner') =>
      devnet.publicClient.readContract({ address: enforcers.golemPhase, abi: artifacts.GolemPhaseEnforcerAbi, functionName }) as Promise<T>
    expect((await read<Address>('vitalityOracle')).toLowerCase()).toBe(vitalityOracle.toLowerCase())
    expect(await read<Address>('owner')).toBe(devnet.phaseTableAdmin.account.address)
    expect(devnet.phaseTableAdmin.account.address).not.toBe(devnet.operator.account.address)
    expect(await devnet.publicClient.readContract({ ...oracle(), functionName: 'owner' })).toBe(devnet.operator.account.address)
  })

  it('keeps the two platform roles apart: the operator cannot reclassify a selector, the table admin cannot register a Golem', async () => {
    const { enforcers } = devnet.deployment
    const setClass = {
      address: enforcers.golemPhase,
      abi: artifacts.GolemPhaseEnforcerAbi,
      functionName: 'setActionClass',
      args: ['0x12345678', 1],
    } as const
    const byOperator = await refusal(devnet.operator.writeContract(setClass))
    expect(byOperator).toMatchObject({ name: 'NotOwner', args: [devnet.operator.account.address] })
    const stranger = privateKeyToAccount(generatePrivateKey()).address
    const byAdmin = await refusal(devnet.phaseTableAdmin.writeContract({ ...oracle(), functionName: 'registerGolem', args: [stranger] }))
    expect(byAdmin).toMatchObject({ name: 'NotOwner', args: [devnet.phaseTableAdmin.account.address] })
  })

  it('registers a Golem (operator only); it starts Thriving', async () => {
    golem = await devnet.fundedAccount()
    const byGolem = await refusal(
      walletFor(devnet, golem).writeContract({ ...oracle(), functionName: 'registerGolem', args: [golem.address] }),
    )
    expect(byGolem).toMatchObject({ name: 'NotOwner', args: [golem.address] })
    const receipt = await waitOk(
      devnet,
      devnet.operator.writeContract({ ...oracle(), functionName: 'registerGolem', args: [golem.address] }),
    )
    expect(parseEventLogs({ abi: artifacts.VitalityOracleAbi, logs: receipt.logs, eventName: 'GolemRegistered' })[0]?.args.golem).toBe(
      golem.address,
    )
    expect(await devnet.publicClient.readContract({ ...oracle(), functionName: 'getPhase', args: [golem.address] })).toEqual([
      true,
      PHASE.Thriving,
    ])
  })

  it('updates the phase from the Golem key; phases only move forward', async () => {
    await updatePhase(devnet, golem, PHASE.Stable, 7_000)
    expect(await devnet.publicClient.readContract({ ...oracle(), functionName: 'getPhase', args: [golem.address] })).toEqual([
      true,
      PHASE.Stable,
    ])
    const back = await refusal(
      walletFor(devnet, golem).writeContract({ ...oracle(), functionName: 'updatePhase', args: [PHASE.Thriving, 9_000] }),
    )
    expect(back).toMatchObject({ name: 'PhaseNotMonotonic', args: [PHASE.Stable, PHASE.Thriving] })
    const stranger = await devnet.fundedAccount()
    const notGolem = await refusal(
      walletFor(devnet, stranger).writeContract({ ...oracle(), functionName: 'updatePhase', args: [PHASE.Terminal, 0] }),
    )
    expect(notGolem).toMatchObject({ name: 'GolemNotRegistered', args: [stranger.address] })
  })

  it('an out-of-phase action reverts (Conservation: no deposits), an in-phase one passes', async () => {
    const { chain, runway } = await grant(golem.address)
    await redeem(devnet, golem, chain, [depositCall(devnet, USDC(100), owner.address)]) // Stable still opens positions
    await updatePhase(devnet, golem, PHASE.Conservation, 4_000)
    await expectRefused(devnet, golem, chain, [depositCall(devnet, USDC(100), owner.address)], 'ActionNotAllowedInPhase', [
      golem.address,
      PHASE.Conservation,
      SELECTOR.deposit,
      0x01,
    ])
    await redeem(devnet, golem, runway, pay(USDC(1)))
  })

  it.each([
    ['the golemPhase window (as Bardo builds it)', false],
    ['a separate MortalityTimeWindow (delegations signed before)', true],
  ])('an action after %s expires reverts', async (_shape, previous) => {
    const mortal = await newGolem(devnet)
    const { chain, runway, endTime } = await grant(mortal.address, 600n, previous)
    await redeem(devnet, mortal, runway, pay(USDC(1)))
    await redeem(devnet, mortal, chain, [depositCall(devnet, USDC(1), owner.address)])
    await devnet.increaseTime(601 + 60)
    const e = await expectRefused(devnet, mortal, runway, pay(USDC(1)), 'DelegationExpired')
    await expectRefused(devnet, mortal, chain, [depositCall(devnet, USDC(1), owner.address)], 'DelegationExpired')
    expect(e.args[1]).toBe(endTime)
    expect(e.args[0] as bigint).toBeGreaterThan(endTime)
  })

  it('DreamMode: once the Golem sets dreaming, its actions revert', async () => {
    const dreamer = await newGolem(devnet)
    const { chain, runway } = await grant(dreamer.address)
    await redeem(devnet, dreamer, runway, pay(USDC(1)))
    const { dreamOracle } = devnet.deployment
    await waitOk(
      devnet,
      walletFor(devnet, dreamer).writeContract({ address: dreamOracle, abi: artifacts.DreamOracleAbi, functionName: 'startDream' }),
    )
    const since = await devnet.publicClient.readContract({
      address: dreamOracle,
      abi: artifacts.DreamOracleAbi,
      functionName: 'dreamingSince',
      args: [dreamer.address],
    })
    await expectRefused(devnet, dreamer, runway, pay(USDC(1)), 'GolemDreaming', [dreamer.address, since])
    await expectRefused(devnet, dreamer, chain, [depositCall(devnet, USDC(1), owner.address)], 'GolemDreaming', [dreamer.address, since])
  })

  it('VaultNAV: a deposit over 10% of the vault reverts, one within passes', async () => {
    const saver = await newGolem(devnet)
    const { chain } = await grant(saver.address)
    const { vault } = devnet.deployment.assets
    const totalAssets = await devnet.publicClient.readContract({ address: vault, abi: artifacts.TestVaultAbi, functionName: 'totalAssets' })
    const max = totalAssets / 10n
    await expectRefused(devnet, saver, chain, [depositCall(devnet, max + 1n, owner.address)], 'ExceedsVaultNAV', [
      vault,
      max + 1n,
      max,
      totalAssets,
    ])
    await redeem(devnet, saver, chain, [depositCall(devnet, max, owner.address)])
  })
})
