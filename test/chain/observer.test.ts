// The read-only observer (the "Sleepwalker") on anvil, through the real DelegationManager: the
// owner grants its Golem publish-only authority (core/delegations buildObserverDelegation), the Golem
// passes it on to its Sleepwalker, and the Sleepwalker publishes to the Dream and Daimon oracles from
// the owner's account, while every value-moving call is refused by a framework caveat with its reason
// and no balance or allowance moves.
import { createDelegation, type Delegation, type ExecutionStruct } from '@metamask/smart-accounts-kit'
import { DelegationManager } from '@metamask/delegation-abis'
import { encodeFunctionData, erc20Abi, parseEther, parseEventLogs, type Address, type Hex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as artifacts from '../../contracts/artifacts/index.ts'
import { ObserverScopeError } from '../../core/caveats/index.ts'
import { buildObserverDelegation, smartAccountSigner, type DelegationTree } from '../../core/delegations/index.ts'
import { startDevnet, type Devnet, type OwnerAccount } from '../../local/devnet.ts'
import { disableDelegationCall } from '../../local/ownerActions.ts'
import {
  USDC,
  approveCall,
  chainNow,
  expectRefused,
  keySigner,
  newKey,
  newTree,
  redeem,
  registerGolem,
  revoke,
  transferCall,
  usdcBalance,
  waitOk,
  walletFor,
} from './harness.ts'

let devnet: Devnet
let owner: OwnerAccount
let golem: { privateKey: Hex; account: PrivateKeyAccount }
let sleepwalker: PrivateKeyAccount
let tree: DelegationTree
let grant: Delegation
let chain: Delegation[]
let attacker: Address

beforeAll(async () => {
  devnet = await startDevnet()
  owner = await devnet.createOwner()
  golem = await newKey(devnet)
  await registerGolem(devnet, golem.account.address)
  ;({ account: sleepwalker } = await newKey(devnet))
  attacker = (await devnet.fundedAccount(0n)).address
  tree = newTree(devnet, await chainNow(devnet))

  // The owner's grant to its Golem: publish only, then the Golem's re-delegation to its Sleepwalker.
  const parent = buildObserverDelegation({ tree, from: owner.address, observer: golem.account.address })
  grant = await tree.sign(parent.hash, smartAccountSigner(owner.smartAccount))
  const child = buildObserverDelegation({ tree, parent: parent.hash, observer: sleepwalker.address })
  await tree.sign(child.hash, keySigner(devnet, golem.privateKey))
  chain = tree.chain(child.hash)
})
afterAll(async () => devnet?.stop())

const daimon = () => devnet.deployment.daimonOracle
const dream = () => devnet.deployment.dreamOracle
const setPAD = (p: number, a: number, d: number, value = 0n): ExecutionStruct => ({
  target: daimon(),
  value,
  callData: encodeFunctionData({ abi: artifacts.DaimonOracleAbi, functionName: 'setPAD', args: [p, a, d] }),
})
const dreamCall = (functionName: 'startDream' | 'endDream'): ExecutionStruct => ({
  target: dream(),
  value: 0n,
  callData: encodeFunctionData({ abi: artifacts.DreamOracleAbi, functionName }),
})
const getPAD = (who: Address) =>
  devnet.publicClient.readContract({ address: daimon(), abi: artifacts.DaimonOracleAbi, functionName: 'getPAD', args: [who] })
const isDreaming = (who: Address) =>
  devnet.publicClient.readContract({ address: dream(), abi: artifacts.DreamOracleAbi, functionName: 'isDreaming', args: [who] })
const allowance = (spender: Address) =>
  devnet.publicClient.readContract({
    address: devnet.deployment.assets.usdc,
    abi: erc20Abi,
    functionName: 'allowance',
    args: [owner.address, spender],
  })
const ethBalance = (who: Address) => devnet.publicClient.getBalance({ address: who })

const TARGET_REFUSED = ['AllowedTargetsEnforcer:target-address-not-allowed']
const METHOD_REFUSED = ['AllowedMethodsEnforcer:method-not-allowed']
const VALUE_REFUSED = ['ValueLteEnforcer:value-too-high']

describe('the Sleepwalker observer on anvil', () => {
  it('publishes through the DelegationManager: setPAD, startDream and endDream write the owner account’s entries', async () => {
    expect(chain.map((d) => d.delegate)).toEqual([sleepwalker.address, golem.account.address])
    const receipt = await redeem(devnet, sleepwalker, chain, [setPAD(40, -20, 10)])
    expect(await getPAD(owner.address)).toEqual([40, -20, 10])
    // The oracles key by msg.sender and a redemption calls as the root delegator: the entry is the owner account's.
    expect(await getPAD(sleepwalker.address)).toEqual([0, 0, 0])
    const [event] = parseEventLogs({ abi: artifacts.DaimonOracleAbi, eventName: 'PADUpdated', logs: receipt.logs })
    expect(event?.args).toEqual({ golem: owner.address, pleasure: 40, arousal: -20, dominance: 10 })

    await redeem(devnet, sleepwalker, chain, [dreamCall('startDream')])
    expect(await isDreaming(owner.address)).toBe(true)
    await redeem(devnet, sleepwalker, chain, [dreamCall('endDream')])
    expect(await isDreaming(owner.address)).toBe(false)
  })

  it('publishes its own key’s entries directly, with no delegation (the oracles key by msg.sender)', async () => {
    await waitOk(
      devnet,
      walletFor(devnet, sleepwalker).writeContract({
        address: daimon(),
        abi: artifacts.DaimonOracleAbi,
        functionName: 'setPAD',
        args: [5, 5, 5],
      }),
    )
    expect(await getPAD(sleepwalker.address)).toEqual([5, 5, 5])
    expect(await getPAD(owner.address)).toEqual([40, -20, 10])
  })

  it('a publish selector sent to the other oracle passes the independent target and method caveats and reverts in the oracle', async () => {
    await expect(redeem(devnet, sleepwalker, chain, [{ ...setPAD(7, 7, 7), target: dream() }])).rejects.toThrow()
    expect(await getPAD(owner.address)).toEqual([40, -20, 10])
    expect(await isDreaming(owner.address)).toBe(false)
  })

  describe('refuses every value-moving call with the caveat’s reason, and nothing moves', () => {
    let before: { usdc: bigint; eth: bigint; attackerUsdc: bigint; attackerEth: bigint }
    beforeAll(async () => {
      before = {
        usdc: await usdcBalance(devnet, owner.address),
        eth: await ethBalance(owner.address),
        attackerUsdc: await usdcBalance(devnet, attacker),
        attackerEth: await ethBalance(attacker),
      }
    })

    it('an ERC-20 transfer (USDC is not a target; transfer is not a method even on an oracle)', async () => {
      const { usdc } = devnet.deployment.assets
      await expectRefused(devnet, sleepwalker, chain, [transferCall(usdc, attacker, USDC(1))], 'Error', TARGET_REFUSED)
      await expectRefused(
        devnet,
        sleepwalker,
        chain,
        [{ ...transferCall(usdc, attacker, USDC(1)), target: daimon() }],
        'Error',
        METHOD_REFUSED,
      )
    })

    it('an approve', async () => {
      const { usdc } = devnet.deployment.assets
      await expectRefused(devnet, sleepwalker, chain, [approveCall(usdc, attacker, USDC(1_000))], 'Error', TARGET_REFUSED)
      await expectRefused(devnet, sleepwalker, chain, [{ ...approveCall(usdc, attacker, 1n), target: dream() }], 'Error', METHOD_REFUSED)
    })

    it('a transferFrom', async () => {
      const { usdc } = devnet.deployment.assets
      const callData = encodeFunctionData({ abi: erc20Abi, functionName: 'transferFrom', args: [owner.address, attacker, USDC(1)] })
      await expectRefused(devnet, sleepwalker, chain, [{ target: usdc, value: 0n, callData }], 'Error', TARGET_REFUSED)
      await expectRefused(devnet, sleepwalker, chain, [{ target: daimon(), value: 0n, callData }], 'Error', METHOD_REFUSED)
    })

    it('a native value send: to another address, and riding on a publish call', async () => {
      await expectRefused(
        devnet,
        sleepwalker,
        chain,
        [{ target: attacker, value: parseEther('1'), callData: '0x' }],
        'Error',
        TARGET_REFUSED,
      )
      await expectRefused(devnet, sleepwalker, chain, [setPAD(1, 1, 1, 1n)], 'Error', VALUE_REFUSED)
    })

    it('a call to another target: the vault, the router, the VitalityOracle, the owner’s own account', async () => {
      const { vault, router } = devnet.deployment.assets
      const deposit = encodeFunctionData({ abi: artifacts.TestVaultAbi, functionName: 'deposit', args: [USDC(1), attacker] })
      await expectRefused(devnet, sleepwalker, chain, [{ target: vault, value: 0n, callData: deposit }], 'Error', TARGET_REFUSED)
      await expectRefused(devnet, sleepwalker, chain, [{ target: router, value: 0n, callData: deposit }], 'Error', TARGET_REFUSED)
      const updatePhase = encodeFunctionData({ abi: artifacts.VitalityOracleAbi, functionName: 'updatePhase', args: [4, 0] })
      await expectRefused(
        devnet,
        sleepwalker,
        chain,
        [{ target: devnet.deployment.vitalityOracle, value: 0n, callData: updatePhase }],
        'Error',
        TARGET_REFUSED,
      )
      await expectRefused(devnet, sleepwalker, chain, [{ target: owner.address, value: 0n, callData: '0x' }], 'Error', TARGET_REFUSED)
    })

    it('a call to the DelegationManager (disabling the grant from the owner’s account)', async () => {
      const target = devnet.deployment.environment.DelegationManager
      const { data: callData } = disableDelegationCall(target, grant)
      await expectRefused(devnet, sleepwalker, chain, [{ target, value: 0n, callData: callData! }], 'Error', TARGET_REFUSED)
      const disabled = await devnet.publicClient.readContract({
        address: target,
        abi: DelegationManager,
        functionName: 'disabledDelegations',
        args: [tree.hash(grant)],
      })
      expect(disabled).toBe(false)
    })

    it('a batch that hides a transfer behind a publish (the framework’s target and method caveats admit single calls only)', async () => {
      await expectRefused(
        devnet,
        sleepwalker,
        chain,
        [setPAD(2, 2, 2), transferCall(devnet.deployment.assets.usdc, attacker, USDC(1))],
        'Error',
        ['CaveatEnforcer:invalid-call-type'],
      )
    })

    it('and nothing moved: the owner’s USDC and ETH, the attacker’s balances, the owner’s allowances', async () => {
      expect(await usdcBalance(devnet, owner.address)).toBe(before.usdc)
      expect(await ethBalance(owner.address)).toBe(before.eth)
      expect(await usdcBalance(devnet, attacker)).toBe(before.attackerUsdc)
      expect(await ethBalance(attacker)).toBe(before.attackerEth)
      expect(await allowance(attacker)).toBe(0n)
      expect(await allowance(sleepwalker.address)).toBe(0n)
    })
  })

  it('the tree refuses, before signing, a re-delegation that could move value (what the chain would refuse)', () => {
    const parentHash = tree.hash(grant)
    const wider = createDelegation({
      environment: devnet.deployment.environment,
      from: golem.account.address,
      to: sleepwalker.address,
      parentDelegation: grant,
      scope: { type: 'functionCall', targets: [devnet.deployment.assets.usdc], selectors: ['0xa9059cbb'], valueLte: { maxValue: 0n } },
    })
    const count = tree.nodes().length
    expect(() => tree.add(wider)).toThrow(ObserverScopeError)
    expect(tree.nodes().length).toBe(count)
    expect(tree.children(parentHash).length).toBe(1)
  })

  it('the owner revokes the grant in one transaction and the Sleepwalker can no longer publish', async () => {
    await revoke(devnet, owner, grant)
    await expectRefused(devnet, sleepwalker, chain, [setPAD(9, 9, 9)], 'CannotUseADisabledDelegation', [])
    expect(await getPAD(owner.address)).toEqual([40, -20, 10])
  })
})
