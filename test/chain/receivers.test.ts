// Receivers on anvil with the real MetaMask framework: a compiled swap + vault strategy's actions
// delegations let the Golem swap and deposit/withdraw only with the owner's smart account as recipient,
// receiver and owner (AllowedCalldataEnforcer), refuse an attacker in any of those words with balances
// unchanged, refuse exactInput calldata that moves its tuple past the pinned bytes, and hold no transfer.
import type { Delegation, ExecutionStruct } from '@metamask/smart-accounts-kit'
import {
  concat,
  decodeFunctionData,
  encodeFunctionData,
  encodePacked,
  erc20Abi,
  getAddress,
  pad,
  slice,
  type Address,
  type Hex,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as artifacts from '../../contracts/artifacts/index.ts'
import { smartAccountSigner, type GolemGrant } from '../../core/delegations/index.ts'
import { buildPlanGrant, type PermissionPlan } from '../../core/permissions/index.ts'
import { startDevnet, type Devnet, type OwnerAccount } from '../../local/devnet.ts'
import {
  compileLocalPlan,
  USDC,
  approveCall,
  chainNow,
  expectRefused,
  newGolem,
  newTree,
  redeem,
  swapCall,
  transferCall,
  usdcBalance,
} from './harness.ts'

let devnet: Devnet
let owner: OwnerAccount
let golem: PrivateKeyAccount
let plan: PermissionPlan
let grant: GolemGrant
const chains = new Map<string, Delegation[]>()
const attacker = privateKeyToAccount(generatePrivateKey()).address
const CALLDATA_REFUSED = ['AllowedCalldataEnforcer:invalid-calldata']

const chainOf = (name: string): Delegation[] => {
  const chain = chains.get(name)
  if (chain === undefined) throw new Error(`no actions delegation named ${name}; have ${[...chains.keys()].join(', ')}`)
  return chain
}
const balanceOf = (token: Address, who: Address): Promise<bigint> =>
  devnet.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [who] })
/** Every balance a refused call could have moved: USDC, WETH and vault shares of the owner and the attacker. */
const snapshot = async () => {
  const { usdc, weth, vault } = devnet.deployment.assets
  return Promise.all([usdc, weth, vault].flatMap((t) => [balanceOf(t, owner.address), balanceOf(t, attacker)]))
}
const vaultCall = (fn: 'deposit' | 'mint', amount: bigint, receiver: Address): ExecutionStruct => ({
  target: devnet.deployment.assets.vault,
  value: 0n,
  callData: encodeFunctionData({ abi: artifacts.TestVaultAbi, functionName: fn, args: [amount, receiver] }),
})
const vaultExit = (fn: 'withdraw' | 'redeem', amount: bigint, receiver: Address, from: Address): ExecutionStruct => ({
  target: devnet.deployment.assets.vault,
  value: 0n,
  callData: encodeFunctionData({ abi: artifacts.TestVaultAbi, functionName: fn, args: [amount, receiver, from] }),
})
const exactInputData = (recipient: Address, amountIn: bigint): Hex => {
  const { usdc, weth } = devnet.deployment.assets
  return encodeFunctionData({
    abi: artifacts.TestSwapRouterAbi,
    functionName: 'exactInput',
    args: [{ path: encodePacked(['address', 'uint24', 'address'], [usdc, 500, weth]), recipient, amountIn, amountOutMinimum: 0n }],
  })
}
const routerCall = (callData: Hex): ExecutionStruct => ({ target: devnet.deployment.assets.router, value: 0n, callData })

beforeAll(async () => {
  devnet = await startDevnet()
  owner = await devnet.createOwner({ usdc: USDC(10_000) })
  golem = await newGolem(devnet)
  const now = await chainNow(devnet)
  plan = compileLocalPlan(devnet, {
    text: 'Swap USDC for WETH, and deposit the rest into the vault.\nbudget: $50/day',
    owner: owner.address,
    sessionKey: golem.address,
    now: now,
  })
  const tree = newTree(devnet, now)
  grant = buildPlanGrant({ tree, plan, unbounded: true }) // receivers and pins only; USD caps: planCaps.test.ts
  const sign = (hash: Hex) => tree.sign(hash, smartAccountSigner(owner.smartAccount))
  for (const a of grant.actions!) {
    await sign(a.hash)
    chains.set(a.name, tree.chain(a.hash))
  }
  // The owner's allowances to the router and the vault, through the pinned approvals delegations.
  const { usdc, router, vault } = devnet.deployment.assets
  for (const a of grant.approvals!) await sign(a.hash)
  const approvalsOf = (spender: Address) => tree.chain(grant.approvals!.find((a) => a.spender === getAddress(spender))!.hash)
  await redeem(devnet, golem, approvalsOf(router), [approveCall(usdc, router, USDC(1_000))])
  await redeem(devnet, golem, approvalsOf(vault), [approveCall(usdc, vault, USDC(1_000))])
})
afterAll(async () => devnet?.stop())

describe('a compiled swap + vault grant on-chain', () => {
  it('compiles to one actions delegation per receiver layout, every receiver word pinned to the owner', () => {
    const ownerWord = pad(owner.address.toLowerCase() as Hex)
    expect(grant.actions!.map((a) => [a.name, a.pins.map((p) => [p.startIndex, p.value === ownerWord ? 'owner' : p.value])])).toEqual([
      ['Swap: exactInputSingle', [[100, 'owner']]],
      [
        'Swap: exactInput',
        [
          [68, 'owner'],
          [4, pad('0x20')],
        ],
      ],
      ['VaultManagement: deposit, mint', [[36, 'owner']]],
      [
        'VaultManagement: withdraw, redeem',
        [
          [36, 'owner'],
          [68, 'owner'],
        ],
      ],
    ])
  })

  it('exactInputSingle: to the owner passes; to an attacker reverts in AllowedCalldataEnforcer, nothing moves', async () => {
    const { usdc, weth } = devnet.deployment.assets
    const chain = chainOf('Swap: exactInputSingle')
    const before = await snapshot()
    await expectRefused(
      devnet,
      golem,
      chain,
      [swapCall(devnet, { tokenIn: usdc, tokenOut: weth, amountIn: USDC(10), amountOutMinimum: 0n, recipient: attacker })],
      'Error',
      CALLDATA_REFUSED,
    )
    expect(await snapshot()).toEqual(before)
    const wethBefore = await balanceOf(weth, owner.address)
    await redeem(devnet, golem, chain, [
      swapCall(devnet, { tokenIn: usdc, tokenOut: weth, amountIn: USDC(10), amountOutMinimum: 0n, recipient: owner.address }),
    ])
    expect(await usdcBalance(devnet, owner.address)).toBe(before[0]! - USDC(10))
    expect(await balanceOf(weth, owner.address)).toBeGreaterThan(wethBefore)
    expect(await balanceOf(weth, attacker)).toBe(0n)
  })

  it('exactInput: to the owner passes; to an attacker reverts; so does a tuple moved past the pinned bytes with the owner as a decoy', async () => {
    const { weth } = devnet.deployment.assets
    const chain = chainOf('Swap: exactInput')
    const before = await snapshot()
    await expectRefused(devnet, golem, chain, [routerCall(exactInputData(attacker, USDC(5)))], 'Error', CALLDATA_REFUSED)
    // Offset word 0x60: the tuple starts at byte 100, and bytes 68-99 hold the owner, read by nobody.
    const honest = exactInputData(attacker, USDC(5))
    const crafted = concat([slice(honest, 0, 4), pad('0x60'), pad('0x00'), pad(owner.address.toLowerCase() as Hex), slice(honest, 36)])
    expect(slice(crafted, 68, 100)).toBe(pad(owner.address.toLowerCase() as Hex))
    const decoded = decodeFunctionData({ abi: artifacts.TestSwapRouterAbi, data: crafted })
    expect((decoded.args![0] as { recipient: Address }).recipient).toBe(attacker) // what the router would read
    await expectRefused(devnet, golem, chain, [routerCall(crafted)], 'Error', CALLDATA_REFUSED)
    expect(await snapshot()).toEqual(before)
    const wethBefore = await balanceOf(weth, owner.address)
    await redeem(devnet, golem, chain, [routerCall(exactInputData(owner.address, USDC(5)))])
    expect(await balanceOf(weth, owner.address)).toBeGreaterThan(wethBefore)
    expect(await balanceOf(weth, attacker)).toBe(0n)
  })

  it('deposit and mint: the owner as receiver passes; an attacker reverts, nothing moves', async () => {
    const { vault } = devnet.deployment.assets
    const chain = chainOf('VaultManagement: deposit, mint')
    const before = await snapshot()
    await expectRefused(devnet, golem, chain, [vaultCall('deposit', USDC(20), attacker)], 'Error', CALLDATA_REFUSED)
    await expectRefused(devnet, golem, chain, [vaultCall('mint', USDC(20), attacker)], 'Error', CALLDATA_REFUSED)
    expect(await snapshot()).toEqual(before)
    await redeem(devnet, golem, chain, [vaultCall('deposit', USDC(20), owner.address)])
    await redeem(devnet, golem, chain, [vaultCall('mint', USDC(5), owner.address)])
    expect(await balanceOf(vault, owner.address)).toBe(USDC(25))
    expect(await usdcBalance(devnet, owner.address)).toBe(before[0]! - USDC(25))
  })

  it("withdraw and redeem: receiver and owner both the owner's account passes; an attacker in either word reverts, nothing moves", async () => {
    const { vault } = devnet.deployment.assets
    const chain = chainOf('VaultManagement: withdraw, redeem')
    const before = await snapshot()
    for (const exit of ['withdraw', 'redeem'] as const) {
      await expectRefused(devnet, golem, chain, [vaultExit(exit, USDC(5), attacker, owner.address)], 'Error', CALLDATA_REFUSED)
      await expectRefused(devnet, golem, chain, [vaultExit(exit, USDC(5), owner.address, attacker)], 'Error', CALLDATA_REFUSED)
    }
    expect(await snapshot()).toEqual(before)
    await redeem(devnet, golem, chain, [vaultExit('withdraw', USDC(5), owner.address, owner.address)])
    await redeem(devnet, golem, chain, [vaultExit('redeem', USDC(5), owner.address, owner.address)])
    expect(await balanceOf(vault, owner.address)).toBe(before[4]! - USDC(10))
    expect(await usdcBalance(devnet, owner.address)).toBe(before[0]! + USDC(10))
  })

  it('no actions delegation can transfer: USDC is no target of any, and transfer is no method on the router or the vault (its shares)', async () => {
    const { usdc, router, vault } = devnet.deployment.assets
    const before = await snapshot()
    for (const a of grant.actions!) {
      const chain = chainOf(a.name)
      await expectRefused(devnet, golem, chain, [transferCall(usdc, attacker, USDC(1))], 'Error', [
        'AllowedTargetsEnforcer:target-address-not-allowed',
      ])
      const target = a.name.startsWith('Swap') ? router : vault
      await expectRefused(devnet, golem, chain, [transferCall(target, attacker, 1n)], 'Error', [
        'AllowedMethodsEnforcer:method-not-allowed',
      ])
    }
    expect(await snapshot()).toEqual(before)
  })
})
