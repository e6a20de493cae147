// The bridge grant on anvil with the real MetaMask framework: a compiled bridge strategy's depositForBurn
// delegation pins the mint recipient to the owner's account and the destination domain, burnt token,
// destination caller and maximum fee to the owner's configuration (AllowedCalldataEnforcer). A transfer
// to another domain, for another relayer, with a higher fee, to another recipient or of another token
// reverts and moves nothing; the configured one passes.
import type { Delegation } from '@metamask/smart-accounts-kit'
import { encodeFunctionData, erc20Abi, getAddress, pad, parseEther, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as artifacts from '../../contracts/artifacts/index.ts'
import { smartAccountSigner } from '../../core/delegations/index.ts'
import { buildPlanGrant, compileStrategy, localRegistry } from '../../core/permissions/index.ts'
import { startDevnet, type Devnet, type OwnerAccount } from '../../local/devnet.ts'
import { readTokenDecimals } from '../../local/tokenDecimals.ts'
import { USDC, approveCall, chainNow, expectRefused, newGolem, newTree, redeem, refreshFeeds, usdcBalance, waitOk } from './harness.ts'

const ARBITRUM = 3
const ETHEREUM = 0
const CALLDATA_REFUSED = ['AllowedCalldataEnforcer:invalid-calldata']

let devnet: Devnet
let owner: OwnerAccount
let golem: PrivateKeyAccount
let messenger: Address
let burns: Delegation[]
const attacker = privateKeyToAccount(generatePrivateKey()).address

type Burn = { amount: bigint; domain: number; recipient: Address; token: Address; caller: Address; maxFee: bigint }
const burnCall = (b: Partial<Burn>) => {
  const { usdc } = devnet.deployment.assets
  const p: Burn = {
    amount: USDC(10),
    domain: ARBITRUM,
    recipient: owner.address,
    token: usdc,
    caller: '0x0000000000000000000000000000000000000000',
    maxFee: 0n,
    ...b,
  }
  const callData: Hex = encodeFunctionData({
    abi: artifacts.TestTokenMessengerAbi,
    functionName: 'depositForBurn',
    args: [p.amount, p.domain, pad(p.recipient), p.token, pad(p.caller), p.maxFee, 2_000],
  })
  return [{ target: messenger, value: 0n, callData }]
}

beforeAll(async () => {
  devnet = await startDevnet()
  owner = await devnet.createOwner({ usdc: USDC(10_000) })
  golem = await newGolem(devnet)
  await refreshFeeds(devnet)
  const { usdc, usdcUsdFeed, weth } = devnet.deployment.assets
  await waitOk(
    devnet,
    devnet.deployer.writeContract({
      address: weth,
      abi: artifacts.TestTokenAbi,
      functionName: 'mint',
      args: [owner.address, parseEther('1')],
    }),
  )
  messenger = (
    await waitOk(
      devnet,
      devnet.deployer.deployContract({ abi: artifacts.TestTokenMessengerAbi, bytecode: artifacts.TestTokenMessengerBytecode }),
    )
  ).contractAddress!
  const now = await chainNow(devnet)
  const plan = compileStrategy({
    text: 'Bridge USDC cross-chain when yields are better there.\nbudget: $50/day',
    chainId: devnet.chain.id,
    owner: owner.address,
    sessionKey: golem.address,
    now: Number(now),
    registry: localRegistry({ ...devnet.deployment.assets, bridge: messenger }, { bridge: { destinationDomain: ARBITRUM } }),
  })
  const tree = newTree(devnet, now)
  const grant = buildPlanGrant({
    tree,
    plan,
    usdCaps: {
      feeds: [{ token: usdc, decimals: 6, feed: usdcUsdFeed }],
      tokenDecimals: await readTokenDecimals(devnet.publicClient, [usdc]),
      maxPriceAge: 3_600,
    },
  })
  const sign = (hash: Hex) => tree.sign(hash, smartAccountSigner(owner.smartAccount))
  const action = grant.actions!.find((a) => a.name === 'Bridge: depositForBurn')!
  await sign(action.hash)
  burns = tree.chain(action.hash)
  const approval = grant.approvals!.find((a) => a.spender === getAddress(messenger))!
  await sign(approval.hash)
  await redeem(devnet, golem, tree.chain(approval.hash), [approveCall(usdc, messenger, USDC(20))])
})
afterAll(async () => devnet?.stop())

describe('a compiled bridge grant on-chain', () => {
  it.each([
    ['another destination domain', { domain: ETHEREUM }],
    ["a destination caller of the attacker's", { caller: '0x000000000000000000000000000000000000dEaD' as Address }],
    ['a maximum fee above the configured 0', { maxFee: 1n }],
    ['the attacker as mint recipient', { recipient: attacker }],
  ] as const)('refuses a transfer with %s, nothing moves', async (_name, change) => {
    const before = await usdcBalance(devnet, owner.address)
    await expectRefused(devnet, golem, burns, burnCall(change), 'Error', CALLDATA_REFUSED)
    expect(await usdcBalance(devnet, owner.address)).toBe(before)
  })

  it('refuses burning another token than USDC, nothing moves', async () => {
    const { weth } = devnet.deployment.assets
    const before = await devnet.publicClient.readContract({
      address: weth,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [owner.address],
    })
    await expectRefused(devnet, golem, burns, burnCall({ token: weth, amount: 10n }), 'Error', CALLDATA_REFUSED)
    expect(await devnet.publicClient.readContract({ address: weth, abi: erc20Abi, functionName: 'balanceOf', args: [owner.address] })).toBe(
      before,
    )
  })

  it('passes the configured transfer: to the owner on the configured domain, anyone relays, no fee', async () => {
    const before = await usdcBalance(devnet, owner.address)
    await redeem(devnet, golem, burns, burnCall({}))
    expect(await usdcBalance(devnet, owner.address)).toBe(before - USDC(10))
    expect(await usdcBalance(devnet, messenger)).toBe(USDC(10))
  })
})
