// Liquidity removal on anvil with the real MetaMask framework: a compiled LP strategy's grant lets the
// Golem open positions for the owner, remove liquidity from them and collect them to the owner. The
// removal has a delegation of its own, bound by MaxSlippage to the pool's price: a decreaseLiquidity
// passes only while the position's pool is priced within the bound of the feeds (a sandwich's first leg
// moves the pool's price before the removal, and the removal is refused), whatever its minimums say.
// No other delegation of the grant can remove liquidity. Through custody's action path a removal from a
// moved pool is refused before anything is sent, with the enforcer's own error and numbers, and custody's
// pool-price arithmetic agrees with the enforcer's removalPrice.
import type { Delegation, ExecutionStruct } from '@metamask/smart-accounts-kit'
import { encodeFunctionData, erc20Abi, getAddress, maxUint128, parseEther, type Address, type Hex, type PublicClient } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as artifacts from '../../contracts/artifacts/index.ts'
import { InMemoryStore } from '../../adapters/store/memoryStore.ts'
import { MemorySignerResolver } from '../../adapters/signers/memorySignerResolver.ts'
import { actionSlot, executeAction, type ExecuteActionDeps } from '../../app/actions/executeAction.ts'
import { encodeActionCall, grantedActions, removalPrice, type ActionRequest } from '../../core/actions/index.ts'
import { provisionGolem, type ProvisionedGolem } from '../../local/provision.ts'
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

describe('removeLiquidity through custody’s action path', () => {
  let store: InMemoryStore
  let deps: ExecuteActionDeps
  let lpOwner: OwnerAccount
  let lp: ProvisionedGolem
  let tokenId: bigint
  let pool: Address
  let fair: bigint
  const LIQUIDITY = USDC(10)
  const removal = (liquidity = LIQUIDITY): ActionRequest => ({ kind: 'removeLiquidity', positionManager: manager, tokenId, liquidity })
  const nonceOf = (who: Address) => devnet.publicClient.getTransactionCount({ address: who, blockTag: 'pending' })
  /** The removal delegation's MaxSlippage terms, as the enforcer reads them. */
  const slippageTerms = (): Hex => {
    const grants = grantedActions({ v: 1, delegations: lp.actions }, devnet.deployment, devnet.deployment.environment)
    const removalGrant = grants.find((g) => g.label === 'ProvideLiquidity: decreaseLiquidity')!
    const enforcer = devnet.deployment.enforcers.maxSlippage.toLowerCase()
    return removalGrant.chain[0]!.caveats.find((c) => c.enforcer.toLowerCase() === enforcer)!.terms
  }

  beforeAll(async () => {
    store = new InMemoryStore()
    const signers = new MemorySignerResolver(devnet.deployment)
    lpOwner = await devnet.createOwner({ usdc: USDC(100) })
    lp = await provisionGolem({
      clients: devnet,
      deployment: devnet.deployment,
      store,
      signers,
      owner: lpOwner,
      golemId: 'lp',
      strategy: 'Provide liquidity to the USDC/WETH pool and collect the fees.\nbudget: $50/day',
      lifeSeconds: 3_600n,
      protocols: { positionManager: manager },
    })
    deps = { store, client: devnet.publicClient as PublicClient, deployment: devnet.deployment, signers, invocationId: 'liquidity' }
    await refreshFeeds(devnet)
    const { usdc, weth } = devnet.deployment.assets
    const usdcFirst = BigInt(usdc) < BigInt(weth)
    // A USDC-only position in the owner's pool (fee 500), opened through custody.
    const opened = await executeAction(deps, {
      golemId: 'lp',
      requestId: 'open',
      actions: [
        { kind: 'approve', token: usdc, spender: manager, amount: LIQUIDITY },
        {
          kind: 'provideLiquidity',
          positionManager: manager,
          token0: usdcFirst ? usdc : weth,
          token1: usdcFirst ? weth : usdc,
          fee: 500,
          tickLower: -600,
          tickUpper: 600,
          amount0Desired: usdcFirst ? LIQUIDITY : 0n,
          amount1Desired: usdcFirst ? 0n : LIQUIDITY,
          amount0Min: 0n,
          amount1Min: 0n,
        },
      ],
    })
    if (opened.status !== 'executed')
      throw new Error(`opening the position: ${JSON.stringify(opened, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}`)
    tokenId = (await devnet.publicClient.readContract({ address: manager, abi, functionName: 'nextId' })) - 1n
    expect((await positionOf(tokenId)).owner).toBe(lpOwner.address)
    pool = await poolOf()
    fair = await sqrtPriceOf(pool)
  })
  afterAll(async () => {
    if (pool) await movePrice(pool, fair)
  })

  it('agrees with the enforcer’s removalPrice on the pool’s and the feeds’ price and the deviation, wherever the pool is', async () => {
    const terms = slippageTerms()
    const callData = encodeActionCall(removal(), lpOwner.address).callData
    const { usdc, weth, usdcUsdFeed, ethUsdFeed } = devnet.deployment.assets
    const feedOf = async (feed: Address) =>
      (await devnet.publicClient.readContract({ address: feed, abi: artifacts.IPriceFeedAbi, functionName: 'latestRoundData' }))[1]
    const usdcSide = { decimals: 6, price: await feedOf(usdcUsdFeed), feedDecimals: 8 }
    const wethSide = { decimals: 18, price: await feedOf(ethUsdFeed), feedDecimals: 8 }
    const [t0, t1] = BigInt(usdc) < BigInt(weth) ? [usdcSide, wethSide] : [wethSide, usdcSide]
    for (const sqrtPriceX96 of [fair, fair + 1n, (fair * 1_005n) / 1_000n, (fair * 995n) / 1_000n, fair * 2n, fair / 3n, 1n]) {
      await movePrice(pool, sqrtPriceX96)
      const [onChainPool, poolPriceX96, feedPriceX96, deviationBps] = await devnet.publicClient.readContract({
        address: devnet.deployment.enforcers.maxSlippage,
        abi: artifacts.MaxSlippageEnforcerAbi,
        functionName: 'removalPrice',
        args: [terms, manager, callData],
      })
      expect(onChainPool).toBe(pool)
      expect(removalPrice(sqrtPriceX96, t0, t1), `sqrtPriceX96 ${sqrtPriceX96}`).toEqual({ poolPriceX96, feedPriceX96, deviationBps })
    }
    await movePrice(pool, fair)
  })

  it('refuses a removal from a moved pool before sending anything: maxSlippage, PoolPriceOffFeeds, the enforcer’s numbers; nothing written', async () => {
    await refreshFeeds(devnet)
    await movePrice(pool, fair * 2n)
    const before = { nonce: await nonceOf(lp.golemKey), position: await positionOf(tokenId) }
    const eventsBefore = (await store.listEvents({ golemId: 'lp' })).events.length
    const out = await executeAction(deps, { golemId: 'lp', requestId: 'moved', actions: [removal()] })
    expect(out.status).toBe('refused')
    if (out.status !== 'refused') return
    expect(out.checkedBy).toBe('custody')
    expect(out.refusal.caveat).toBe('maxSlippage')
    expect(out.refusal.error).toBe('PoolPriceOffFeeds')
    const [, poolPriceX96, feedPriceX96, deviationBps] = await devnet.publicClient.readContract({
      address: devnet.deployment.enforcers.maxSlippage,
      abi: artifacts.MaxSlippageEnforcerAbi,
      functionName: 'removalPrice',
      args: [slippageTerms(), manager, encodeActionCall(removal(), lpOwner.address).callData],
    })
    expect(out.refusal.args).toEqual([pool, poolPriceX96, feedPriceX96, deviationBps, 100n])
    expect(out.refusal.reason).toMatch(/^maxSlippage: the position's pool 0x[0-9a-fA-F]{40} is priced [\d.]+% off the price feeds/)
    expect(await nonceOf(lp.golemKey)).toBe(before.nonce)
    expect(await store.getSlot(actionSlot('lp', 'moved'))).toBeNull()
    expect((await store.listEvents({ golemId: 'lp' })).events.length).toBe(eventsBefore)
    expect(await positionOf(tokenId)).toEqual(before.position)
  })

  it('without the pre-check the chain refuses the same removal with the same error and numbers', async () => {
    const before = await positionOf(tokenId)
    const offChain = await executeAction(deps, { golemId: 'lp', requestId: 'moved-2', actions: [removal()] })
    const onChain = await executeAction(deps, { golemId: 'lp', requestId: 'moved-3', actions: [removal()], precheck: false })
    if (offChain.status !== 'refused' || onChain.status !== 'refused')
      throw new Error(`expected two refusals, got ${offChain.status} and ${onChain.status}`)
    expect(onChain.checkedBy).toBe('chain')
    expect(onChain.refusal.caveat).toBe('maxSlippage')
    expect(onChain.refusal.error).toBe('PoolPriceOffFeeds')
    expect(onChain.refusal.args).toEqual(offChain.refusal.args)
    expect(onChain.refusal.reason).toBe(offChain.refusal.reason)
    expect(await positionOf(tokenId)).toEqual(before)
  })

  it('back at the feeds’ price the same removal goes through, and collect pays the owner', async () => {
    await movePrice(pool, fair)
    await refreshFeeds(devnet)
    const removed = await executeAction(deps, { golemId: 'lp', requestId: 'fair', actions: [removal()] })
    expect(removed.status).toBe('executed')
    expect((await positionOf(tokenId)).liquidity).toBe(0n)
    const usdcBefore = await usdcOf(lpOwner.address)
    const collected = await executeAction(deps, {
      golemId: 'lp',
      requestId: 'collect',
      actions: [{ kind: 'collect', positionManager: manager, tokenId }],
    })
    expect(collected.status).toBe('executed')
    expect((await usdcOf(lpOwner.address)) - usdcBefore).toBe(LIQUIDITY)
  })
})
