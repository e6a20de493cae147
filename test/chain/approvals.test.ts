// Approvals on anvil with the real MetaMask framework: a compiled swap strategy's grant approves only the
// pinned spender (AllowedCalldataEnforcer), the actions delegation cannot approve at all
// (AllowedMethodsEnforcer), a refused call changes no allowance, and a sub-delegation that drops the pin
// is refused off-chain and would not help on-chain.
import { createDelegation, type Delegation } from '@metamask/smart-accounts-kit'
import { erc20Abi, getAddress, type Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AttenuationError } from '../../core/caveats/index.ts'
import { APPROVE_SELECTOR, smartAccountSigner, type DelegationTree, type GolemGrant } from '../../core/delegations/index.ts'
import { buildPlanGrant, type PermissionPlan } from '../../core/permissions/index.ts'
import { startDevnet, type Devnet, type OwnerAccount } from '../../local/devnet.ts'
import {
  USDC,
  approveCall,
  compileLocalPlan,
  chainNow,
  expectRefused,
  keySigner,
  newKey,
  newTree,
  redeem,
  redeemAll,
  registerGolem,
  swapCall,
  usdcBalance,
} from './harness.ts'

let devnet: Devnet
let owner: OwnerAccount
let golemKey: { privateKey: `0x${string}`; account: PrivateKeyAccount }
let golem: PrivateKeyAccount
let tree: DelegationTree
let plan: PermissionPlan
let grant: GolemGrant
let actions: Delegation[]
let approvals: Delegation[]
const attacker = privateKeyToAccount(generatePrivateKey()).address

const allowance = (token: Address, spender: Address): Promise<bigint> =>
  devnet.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'allowance', args: [owner.address, spender] })

beforeAll(async () => {
  devnet = await startDevnet()
  owner = await devnet.createOwner()
  golemKey = await newKey(devnet)
  golem = golemKey.account
  await registerGolem(devnet, golem.address)
  const now = await chainNow(devnet)
  plan = compileLocalPlan(devnet, {
    text: 'Swap USDC for WETH on dips.\nbudget: $50/day',
    owner: owner.address,
    sessionKey: golem.address,
    now: now,
  })
  tree = newTree(devnet, now)
  grant = buildPlanGrant({ tree, plan, runway: false, unbounded: true }) // pins only; USD caps: planCaps.test.ts
  for (const a of grant.actions!) await tree.sign(a.hash, smartAccountSigner(owner.smartAccount))
  await tree.sign(grant.approvals![0]!.hash, smartAccountSigner(owner.smartAccount))
  // The exactInputSingle delegation (its recipient pinned to the owner).
  actions = tree.chain(grant.actions![0]!.hash)
  approvals = tree.chain(grant.approvals![0]!.hash)
})
afterAll(async () => devnet?.stop())

describe("a compiled swap strategy's approvals on-chain", () => {
  it('compiles to one approvals delegation, for the router, on USDC and WETH', () => {
    const { usdc, weth, router } = devnet.deployment.assets
    expect(plan.selectors).not.toContain(APPROVE_SELECTOR)
    // Devnet addresses come back lower-case from receipts; the compiler checksums.
    expect(grant.approvals!.map((a) => [a.spender, a.tokens])).toEqual([[getAddress(router), plan.approvals[0]!.tokens]])
    expect([...plan.approvals[0]!.tokens].sort()).toEqual([getAddress(usdc), getAddress(weth)].sort())
  })

  it('the Golem approves the pinned spender through its approvals delegation; the allowance is set', async () => {
    const { usdc, weth, router } = devnet.deployment.assets
    await redeem(devnet, golem, approvals, [approveCall(usdc, router, USDC(30))])
    await redeem(devnet, golem, approvals, [approveCall(weth, router, 10n ** 18n)])
    expect(await allowance(usdc, router)).toBe(USDC(30))
    expect(await allowance(weth, router)).toBe(10n ** 18n)
  })

  it('the same delegation naming another spender reverts in AllowedCalldataEnforcer; no allowance changes', async () => {
    const { usdc, router } = devnet.deployment.assets
    await expectRefused(devnet, golem, approvals, [approveCall(usdc, attacker, USDC(1_000))], 'Error', [
      'AllowedCalldataEnforcer:invalid-calldata',
    ])
    expect(await allowance(usdc, attacker)).toBe(0n)
    expect(await allowance(usdc, router)).toBe(USDC(30))
  })

  it('approve through an actions delegation reverts (USDC is not even its target), for any spender; no allowance changes', async () => {
    const { usdc, router } = devnet.deployment.assets
    await expectRefused(devnet, golem, actions, [approveCall(usdc, attacker, USDC(1_000))], 'Error', [
      'AllowedTargetsEnforcer:target-address-not-allowed',
    ])
    await expectRefused(devnet, golem, actions, [approveCall(usdc, router, USDC(1_000))], 'Error', [
      'AllowedTargetsEnforcer:target-address-not-allowed',
    ])
    // On the router itself (a target), approve is not a method.
    await expectRefused(devnet, golem, actions, [approveCall(router, attacker, USDC(1_000))], 'Error', [
      'AllowedMethodsEnforcer:method-not-allowed',
    ])
    expect(await allowance(usdc, attacker)).toBe(0n)
    expect(await allowance(usdc, router)).toBe(USDC(30))
  })

  it('the approval and the swap it enables go together in one transaction: the router pulls what was approved', async () => {
    const { usdc, weth, router } = devnet.deployment.assets
    const before = await usdcBalance(devnet, owner.address)
    await redeemAll(devnet, golem, [
      { chain: approvals, executions: [approveCall(usdc, router, USDC(20))] },
      {
        chain: actions,
        executions: [
          swapCall(devnet, { tokenIn: usdc, tokenOut: weth, amountIn: USDC(20), amountOutMinimum: 0n, recipient: owner.address }),
        ],
      },
    ])
    expect(await usdcBalance(devnet, owner.address)).toBe(before - USDC(20))
    expect(await allowance(usdc, router)).toBe(0n)
  })
})

describe('a sub-delegation of the approvals delegation', () => {
  let replicant: PrivateKeyAccount
  const unpinned = (): Delegation =>
    createDelegation({
      environment: devnet.deployment.environment,
      from: golem.address,
      to: replicant.address,
      parentDelegation: approvals[0]!,
      scope: { type: 'functionCall', targets: [devnet.deployment.assets.usdc], selectors: [APPROVE_SELECTOR] },
    })

  beforeAll(async () => {
    replicant = await devnet.fundedAccount()
  })

  it('that drops the spender pin is refused off-chain, naming the pin', () => {
    expect(() => tree.add(unpinned())).toThrow(AttenuationError)
    expect(() => tree.add(unpinned())).toThrow(
      `Child has no allowedCalldata at byte 4, so it drops parent allowedCalldata ${getAddress(devnet.deployment.assets.router)} at byte 4.`,
    )
  })

  it("built and signed with the raw kit anyway, cannot approve anyone else: the parent's pin reverts it", async () => {
    const draft = unpinned()
    const child = { ...draft, signature: await keySigner(devnet, golemKey.privateKey)(draft) }
    const { usdc } = devnet.deployment.assets
    await expectRefused(devnet, replicant, [child, ...approvals], [approveCall(usdc, attacker, USDC(1_000))], 'Error', [
      'AllowedCalldataEnforcer:invalid-calldata',
    ])
    expect(await allowance(usdc, attacker)).toBe(0n)
  })
})
