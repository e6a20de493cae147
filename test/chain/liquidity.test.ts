// Liquidity removal on anvil with the real MetaMask framework: a compiled LP strategy's grant lets the
// Golem open positions for the owner, remove liquidity from them and collect them to the owner. The
// removal has a delegation of its own, bound by MaxSlippage to the pool's price: a decreaseLiquidity
// passes only while the position's pool is priced within the bound of the feeds (a sandwich's first leg
// moves the pool's price before the removal, and the removal is refused), whatever its minimums say.
// No other delegation of the grant can remove liquidity.
import type { Delegation, ExecutionStruct } from '@metamask/smart-accounts-kit'
import { encodeFunctionData, erc20Abi, getAddress, maxUint128, parseEther, type Address, type Hex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as artifacts from '../../contracts/artifacts/index.ts'
import { smartAccountSigner, type GolemGrant } from '../../core/delegations/index.ts'
import { buildPlanGrant, compileStrategy, localRegistry, SELECTORS, type PermissionPlan } from '../../core/permissions/index.ts'
import { startDevnet, type Devnet, type OwnerAccount } from '../../local/devnet.ts'
import { readTokenDecimals } from '../../local/tokenDecimals.ts'
import { encodeCall } from '../../local/ownerActions.ts'
import { USDC, approveCall, chainNow, newGolem, newTree, ownerCalls, redeem, redeemRefused, refreshFeeds, waitOk } from './harness.ts'

let devnet: Devnet
let owner: OwnerAccount
let golem: PrivateKeyAccount
let manager: Address
let plan: PermissionPlan
let grant: GolemGrant
let ownersPosition: bigint
const chains = new Map<string, Delegation[]>()
const abi = artifacts.TestPositionManagerAbi

const positionOf = async (tokenId: bigint) => {
  const [owner_, position] = await Promise.all([
    devnet.publicClient.readContract({ address: manager, abi, functionName: 'ownerOf', args: [tokenId] }),
    devnet.publicClient.readContract({ address: manager, abi, functionName: 'positions', args: [tokenId] }),
  ])
  return { owner: owner_, liquidity: position[7], owed0: position[10], owed1: position[11] }
}
/** A mint of `usdc` and `weth` (the manager takes its tokens sorted, as Uniswap's does). */
const mintData = (recipient: Address, usdcAmount: bigint, wethAmount: bigint): Hex => {
  const { usdc, weth } = devnet.deployment.assets
  const usdcFirst = BigInt(usdc) < BigInt(weth)
  return encodeFunctionData({
    abi,
    functionName: 'mint',
    args: [
      {
        token0: usdcFirst ? usdc : weth,
        token1: usdcFirst ? weth : usdc,
        fee: 500,
        tickLower: -600,
        tickUpper: 600,
        amount0Desired: usdcFirst ? usdcAmount : wethAmount,
        amount1Desired: usdcFirst ? wethAmount : usdcAmount,
        amount0Min: 0n,
        amount1Min: 0n,
        recipient,
        deadline: 2n ** 40n,
      },
    ],
  })
}
const decreaseData = (tokenId: bigint, liquidity: bigint): Hex =>
  encodeFunctionData({
    abi,
    functionName: 'decreaseLiquidity',
    args: [{ tokenId, liquidity, amount0Min: 0n, amount1Min: 0n, deadline: 2n ** 40n }],
  })
const collectData = (tokenId: bigint, recipient: Address): Hex =>
  encodeFunctionData({ abi, functionName: 'collect', args: [{ tokenId, recipient, amount0Max: maxUint128, amount1Max: maxUint128 }] })
const onManager = (callData: Hex): ExecutionStruct => ({ target: manager, value: 0n, callData })

beforeAll(async () => {
  devnet = await startDevnet()
  owner = await devnet.createOwner({ usdc: USDC(10_000) })
  golem = await newGolem(devnet)
  await refreshFeeds(devnet)
  const { usdc, weth, usdcUsdFeed, ethUsdFeed } = devnet.deployment.assets
  await waitOk(
    devnet,
    devnet.deployer.writeContract({
      address: weth,
      abi: artifacts.TestTokenAbi,
      functionName: 'mint',
      args: [owner.address, parseEther('10')],
    }),
  )
  manager = (await waitOk(devnet, devnet.deployer.deployContract({ abi, bytecode: artifacts.TestPositionManagerBytecode })))
    .contractAddress!
  // A position the owner minted from their own account, outside Bardo: it prices the pool at the feeds'
  // $3,000 per WETH.
  const approve = (token: Address) =>
    encodeCall(token, encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [manager, 2n ** 255n] }))
  await ownerCalls(devnet, owner, [
    approve(usdc),
    approve(weth),
    encodeCall(manager, mintData(owner.address, USDC(3_000), parseEther('1'))),
  ])
  ownersPosition = 1n
  const now = await chainNow(devnet)
  plan = compileStrategy({
    text: 'Provide liquidity to the USDC/WETH pool and collect fees.\nbudget: $50/day',
    chainId: devnet.chain.id,
    owner: owner.address,
    sessionKey: golem.address,
    now: Number(now),
    registry: localRegistry({ ...devnet.deployment.assets, positionManager: manager }),
  })
  const tree = newTree(devnet, now)
  const feeds = [
    { token: usdc, decimals: 6, feed: usdcUsdFeed },
    { token: weth, decimals: 18, feed: ethUsdFeed },
  ]
  grant = buildPlanGrant({
    tree,
    plan,
    usdCaps: {
      feeds,
      tokenDecimals: await readTokenDecimals(
        devnet.publicClient,
        feeds.map((f) => f.token),
      ),
      maxPriceAge: 3_600,
    },
  })
  const sign = (hash: Hex) => tree.sign(hash, smartAccountSigner(owner.smartAccount))
  for (const a of grant.actions!) {
    await sign(a.hash)
    chains.set(a.name, tree.chain(a.hash))
  }
  for (const a of grant.approvals!) {
    await sign(a.hash)
    chains.set(`approvals ${a.spender}`, tree.chain(a.hash))
  }
  await sign(grant.runway!.hash)
  chains.set('runway', tree.chain(grant.runway!.hash))
})
afterAll(async () => devnet?.stop())

const poolOf = async (): Promise<Address> => {
  const { usdc, weth } = devnet.deployment.assets
  const [token0, token1] = BigInt(usdc) < BigInt(weth) ? [usdc, weth] : [weth, usdc]
  return devnet.publicClient.readContract({ address: manager, abi, functionName: 'getPool', args: [token0, token1, 500] })
}
const sqrtPriceOf = async (pool: Address) =>
  (await devnet.publicClient.readContract({ address: pool, abi: artifacts.TestUniswapV3PoolAbi, functionName: 'slot0' }))[0]
const movePrice = async (pool: Address, sqrtPriceX96: bigint) =>
  waitOk(
    devnet,
    devnet.deployer.writeContract({ address: pool, abi: artifacts.TestUniswapV3PoolAbi, functionName: 'movePrice', args: [sqrtPriceX96] }),
  )
const usdcOf = (who: Address) =>
  devnet.publicClient.readContract({ address: devnet.deployment.assets.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [who] })

describe('a compiled LP grant on-chain', () => {
  it('grants removal only in a delegation of its own, bound by MaxSlippage', () => {
    expect(grant.actions!.map((a) => a.name).sort()).toEqual([
      'ProvideLiquidity: collect',
      'ProvideLiquidity: decreaseLiquidity',
      'ProvideLiquidity: mint',
    ])
    expect(plan.selectors).toContain(SELECTORS.decreaseLiquidity)
  })

  it('refuses decreaseLiquidity through every other delegation of the grant; nothing moves', async () => {
    const before = await positionOf(ownersPosition)
    expect(before.liquidity).toBeGreaterThan(0n)
    for (const [name, chain] of chains) {
      if (name === 'ProvideLiquidity: decreaseLiquidity') continue
      const refused = await redeemRefused(devnet, golem, chain, [onManager(decreaseData(ownersPosition, before.liquidity))])
      expect(refused.name, name).toBe('Error')
      expect(refused.args[0], name).toMatch(
        /AllowedMethodsEnforcer:method-not-allowed|AllowedTargetsEnforcer:target-address-not-allowed|ERC20PeriodTransferEnforcer/,
      )
    }
    expect(await positionOf(ownersPosition)).toEqual(before)
  })

  it("opens a position for the owner, is refused its removal while the pool is priced off the feeds, and removes and collects it to the owner at the feeds' price", async () => {
    const { usdc } = devnet.deployment.assets
    await refreshFeeds(devnet)
    await redeem(devnet, golem, chains.get(`approvals ${getAddress(manager)}`)!, [approveCall(usdc, manager, USDC(20))])
    await redeem(devnet, golem, chains.get('ProvideLiquidity: mint')!, [onManager(mintData(owner.address, USDC(20), 0n))])
    const opened = await positionOf(2n)
    expect(opened.owner).toBe(owner.address)
    expect(opened.liquidity).toBe(USDC(20))

    // A sandwich's first leg: the pool's price moved to a quarter of the feeds'.
    const pool = await poolOf()
    const fair = await sqrtPriceOf(pool)
    await movePrice(pool, fair * 2n)
    const removal = chains.get('ProvideLiquidity: decreaseLiquidity')!
    const refused = await redeemRefused(devnet, golem, removal, [onManager(decreaseData(2n, USDC(20)))])
    expect(refused.name).toBe('PoolPriceOffFeeds')
    expect((await positionOf(2n)).liquidity).toBe(USDC(20))

    // Back at the feeds' price the same removal, with free minimums, passes; collect pays the owner.
    await movePrice(pool, fair)
    await refreshFeeds(devnet)
    await redeem(devnet, golem, removal, [onManager(decreaseData(2n, USDC(20)))])
    expect((await positionOf(2n)).liquidity).toBe(0n)
    const usdcBefore = await usdcOf(owner.address)
    await redeem(devnet, golem, chains.get('ProvideLiquidity: collect')!, [onManager(collectData(2n, owner.address))])
    expect((await usdcOf(owner.address)) - usdcBefore).toBe(USDC(20))
  })
})
