// The action path on anvil through the real DelegationManager: a provisioned Golem asks custody for a
// swap and a vault deposit/withdrawal for its owner, and is refused, by custody's pre-check and by the
// chain alike (the same caveat, error and numbers), for an over-budget approval, a swap below the
// slippage bound, a receiver that is not the owner, dreaming and a phase that forbids opening. A
// duplicated request redeems once.
import { encodeFunctionData, erc20Abi, getAddress, pad, type Address, type Hex, type PublicClient } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  DreamOracleAbi,
  MockPriceFeedAbi,
  MockPriceFeedBytecode,
  TestSwapRouterAbi,
  TestPositionManagerAbi,
  TestPositionManagerBytecode,
  TestTokenMessengerAbi,
  TestTokenMessengerBytecode,
  TestTokenAbi,
  TestTokenBytecode,
  TestVaultAbi,
  VitalityOracleAbi,
} from '../../contracts/artifacts/index.ts'
import { readFileSync } from 'node:fs'
import { Hono } from 'hono'
import { hexToBytes, type LocalAccount } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { postActionRequest, signActionHeaders } from '../../client/httpTransport.ts'
import { MemoryKey } from '../../core/custody/memoryKey.ts'
import { SessionKey } from '../../core/custody/sessionKey.ts'
import { actionRoutes } from '../../functions/api/routes/actions.ts'
import { dcaBeat } from '../../client/dcaBeat.ts'
import { golemActions, inProcessTransport, type GolemActions } from '../../client/golemActions.ts'
import { ActionRequestError, grantedActions, type ActionRequest } from '../../core/actions/index.ts'
import { parseGolemProfile } from '../../core/lifecycle/profile.ts'
import { executeAction, type ActionOutcome, type ExecuteActionDeps, type ExecuteActionInput } from '../../app/actions/executeAction.ts'
import { loadActionGrant } from '../../app/actions/actionGrantStore.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import type { OwnerAccount } from '../../local/devnet.ts'
import { redemptionsBy, startHeartbeatEnv, USDC, type HeartbeatEnv } from '../heartbeat/harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY = 'Swap USDC for WETH on the router and deposit USDC into the vault, withdraw it later.\nbudget: $50/day'
const OTHER: Address = getAddress('0x000000000000000000000000000000000000a77a')
// $10 of USDC at $3,000 per WETH is 1/300 WETH at the feed price.
const FAIR_WETH_FOR_10 = 10n ** 18n / 300n

let env: HeartbeatEnv
let owner: OwnerAccount
let golem: ProvisionedGolem
let deps: ExecuteActionDeps
let act: GolemActions
let client: PublicClient
let assets: HeartbeatEnv['devnet']['deployment']['assets']
let seq = 0
const rid = () => `req-${++seq}`

const balance = (token: Address, who: Address) =>
  client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [who] })
const shares = (who: Address) => client.readContract({ address: assets.vault, abi: TestVaultAbi, functionName: 'balanceOf', args: [who] })
const swap = (p: Partial<Extract<ActionRequest, { kind: 'swap' }>> = {}): Extract<ActionRequest, { kind: 'swap' }> => ({
  kind: 'swap',
  router: assets.router,
  tokenIn: assets.usdc,
  tokenOut: assets.weth,
  amountIn: USDC(10),
  amountOutMinimum: (FAIR_WETH_FOR_10 * 995n) / 1000n,
  ...p,
})

const chainNowOf = async () => (await client.getBlock()).timestamp

/** The Golem's own key calls one of its oracles (phase report, dream start and end). */
async function golemOracleCall(to: Address, data: Hex, golemId = 'g1'): Promise<void> {
  const profile = parseGolemProfile((await env.store.getGolem(golemId))!.profile)
  const { signer } = await env.signers.resolve(profile)
  const [nonce, fees, gas] = await Promise.all([
    client.getTransactionCount({ address: signer.address, blockTag: 'pending' }),
    client.estimateFeesPerGas(),
    client.estimateGas({ account: signer.address, to, data }),
  ])
  const raw = await signer.signOracleUpdate({
    type: 'eip1559',
    chainId: env.devnet.chain.id,
    nonce,
    to,
    data,
    gas: gas * 2n,
    value: 0n,
    ...fees,
  })
  const receipt = await client.waitForTransactionReceipt({ hash: await client.sendRawTransaction({ serializedTransaction: raw }) })
  expect(receipt.status).toBe('success')
}

/** The request refused by custody off-chain, then the same request sent to the chain without the pre-check: both refusals. */
async function refusedBothWays(actions: ActionRequest[], golemId = 'g1') {
  const offChain = await executeAction(deps, { golemId, requestId: rid(), actions })
  const onChain = await executeAction(deps, { golemId, requestId: rid(), actions, precheck: false })
  if (offChain.status !== 'refused' || onChain.status !== 'refused')
    throw new Error(`expected two refusals, got ${offChain.status} and ${onChain.status}`)
  expect(offChain.checkedBy).toBe('custody')
  expect(onChain.checkedBy).toBe('chain')
  expect(onChain.refusal.caveat).toBe(offChain.refusal.caveat)
  expect(onChain.refusal.error).toBe(offChain.refusal.error)
  return { offChain: offChain.refusal, onChain: onChain.refusal }
}

beforeAll(async () => {
  env = await startHeartbeatEnv()
  client = env.client
  assets = env.devnet.deployment.assets
  owner = await env.devnet.createOwner({ usdc: USDC(1_000) })
  golem = await provisionGolemIn(env, 'g1', {
    owner,
    strategy: STRATEGY,
    lifeSeconds: 3_600n,
  })
  deps = { store: env.store, client, deployment: env.devnet.deployment, signers: env.signers, invocationId: 'test-actions' }
  act = golemActions({ golemId: 'g1', transport: inProcessTransport(deps) })
  // Someone else's deposit, so the vault has shares outstanding; feeds fresh at chain time.
  const seeder = await env.devnet.fundedAccount()
  await env.devnet.mintUsdc(seeder.address, USDC(1_000))
  const { createWalletClient, http } = await import('viem')
  const wallet = createWalletClient({ account: seeder, chain: env.devnet.chain, transport: http(env.devnet.rpcUrl) })
  await client.waitForTransactionReceipt({
    hash: await wallet.writeContract({ address: assets.usdc, abi: erc20Abi, functionName: 'approve', args: [assets.vault, USDC(1_000)] }),
  })
  await client.waitForTransactionReceipt({
    hash: await wallet.writeContract({
      address: assets.vault,
      abi: TestVaultAbi,
      functionName: 'deposit',
      args: [USDC(1_000), seeder.address],
    }),
  })
  for (const [feed, answer] of [
    [assets.ethUsdFeed, 3_000n * 10n ** 8n],
    [assets.usdcUsdFeed, 10n ** 8n],
  ] as const) {
    await client.waitForTransactionReceipt({
      hash: await env.devnet.deployer.writeContract({ address: feed, abi: MockPriceFeedAbi, functionName: 'setAnswer', args: [answer] }),
    })
  }
})
afterAll(async () => env?.stop())

describe('provisioning grants the whole plan', () => {
  it('signs the runway, gas, every actions delegation and one approvals delegation per spender, and stores the action grant', async () => {
    expect(golem.profile.runway.chain[0]!.signature).not.toBe('0x')
    expect(golem.profile.gas!.chain[0]!.signature).not.toBe('0x')
    // Approvals come one per spender, in the plan's (address) order.
    expect(golem.actions.map((a) => a.label).sort()).toEqual(
      [
        'Swap: exactInputSingle',
        'Swap: exactInput',
        'VaultManagement: deposit, mint',
        'VaultManagement: withdraw, redeem',
        `approvals: ${getAddress(assets.router)}`,
        `approvals: ${getAddress(assets.vault)}`,
      ].sort(),
    )
    const stored = await loadActionGrant(env.store, 'g1')
    expect(stored?.delegations.map((d) => d.hash)).toEqual(golem.actions.map((a) => a.hash))
  })

  it('bounds them in USD with the local feeds (token decimals read on-chain), gates them by phase, life window and dreams', () => {
    const { deployment } = env.devnet
    const caveats = grantedActions({ v: 1, delegations: golem.actions }, deployment, deployment.environment)
    const feeds = [
      { token: getAddress(assets.usdc), decimals: 6, feed: getAddress(assets.usdcUsdFeed) },
      { token: getAddress(assets.weth), decimals: 18, feed: getAddress(assets.ethUsdFeed) },
    ]
    for (const g of caveats) {
      expect(g.chain[0]!.signature).not.toBe('0x')
      expect(g.chain[0]!.delegator).toBe(owner.address)
      expect(g.caveats).toContainEqual({
        type: 'golemPhase',
        golem: golem.golemKey,
        startTime: golem.profile.life.bornAt,
        endTime: golem.profile.runway.expiresAt,
      })
      expect(g.caveats).toContainEqual({ type: 'dreamMode', golem: golem.golemKey })
    }
    const bardoOf = (label: string) =>
      caveats.find((g) => g.label === label)!.caveats.filter((c) => c.type === 'maxSlippage' || c.type === 'dailySpendLimit')
    expect(bardoOf('Swap: exactInputSingle')).toEqual([{ type: 'maxSlippage', maxSlippageBps: 100, maxPriceAge: 3_600, feeds }])
    expect(bardoOf('VaultManagement: deposit, mint')).toEqual([])
    // $50/day split between the two spenders.
    expect(bardoOf(`approvals: ${getAddress(assets.vault)}`)).toEqual([
      { type: 'dailySpendLimit', dailyLimitUsd: USDC(25), maxPriceAge: 3_600, feeds },
    ])
  })

  it('grants runway and gas only when asked (`actions: false`), and stores no action grant', async () => {
    const other = await env.devnet.createOwner({ usdc: USDC(10) })
    const g2 = await provisionGolemIn(env, 'g2', {
      owner: other,
      strategy: STRATEGY,
      lifeSeconds: 3_600n,
      actions: false,
    })
    expect(g2.actions).toEqual([])
    expect(await loadActionGrant(env.store, 'g2')).toBeNull()
    const refused = await executeAction(deps, { golemId: 'g2', requestId: 'none-1', actions: [swap()] })
    expect(refused).toMatchObject({ status: 'refused', checkedBy: 'custody', refusal: { caveat: 'grant', error: 'NoDelegation' } })
  })
})

describe('the action path carries out actions for the owner', () => {
  it('swaps USDC for WETH (approve + swap in one transaction): the WETH lands in the owner account, the Golem key holds nothing', async () => {
    const [usdcBefore, wethBefore] = await Promise.all([balance(assets.usdc, owner.address), balance(assets.weth, owner.address)])
    const out = await act.batch([{ kind: 'approve', token: assets.usdc, spender: assets.router, amount: USDC(10) }, swap()])
    expect(out.status).toBe('executed')
    if (out.status !== 'executed') return
    expect(out.receipt.status).toBe('success')
    expect(out.calls.map((c) => c.label)).toEqual([`approvals: ${getAddress(assets.router)}`, 'Swap: exactInputSingle'])
    expect(usdcBefore - (await balance(assets.usdc, owner.address))).toBe(USDC(10))
    expect((await balance(assets.weth, owner.address)) - wethBefore).toBeGreaterThanOrEqual((FAIR_WETH_FOR_10 * 995n) / 1000n)
    expect(await balance(assets.weth, golem.golemKey)).toBe(0n)
  })

  it('deposits USDC into the vault for the owner and withdraws it back to the owner', async () => {
    const usdcBefore = await balance(assets.usdc, owner.address)
    const deposited = await act.batch([
      { kind: 'approve', token: assets.usdc, spender: assets.vault, amount: USDC(20) },
      { kind: 'deposit', vault: assets.vault, assets: USDC(20) },
    ])
    expect(deposited.status).toBe('executed')
    expect(await shares(owner.address)).toBeGreaterThan(0n)
    expect(await shares(golem.golemKey)).toBe(0n)
    expect(usdcBefore - (await balance(assets.usdc, owner.address))).toBe(USDC(20))
    const withdrawn = await act.withdraw({ vault: assets.vault, assets: USDC(20) })
    expect(withdrawn.status).toBe('executed')
    expect(await balance(assets.usdc, owner.address)).toBe(usdcBefore)
    expect(await balance(assets.usdc, golem.golemKey)).toBe(0n)
  })
})

describe('a multi-hop swap (exactInput along a route)', () => {
  // A Golem of its own, so its approvals count against a day's budget no other test reads.
  let routed: ProvisionedGolem
  let routedOwner: OwnerAccount
  let routedAct: GolemActions
  beforeAll(async () => {
    routedOwner = await env.devnet.createOwner({ usdc: USDC(100) })
    routed = await provisionGolemIn(env, 'g5', {
      owner: routedOwner,
      strategy: STRATEGY,
      lifeSeconds: 3_600n,
    })
    routedAct = golemActions({ golemId: 'g5', transport: inProcessTransport(deps) })
  })

  /** A token the route passes through, priced by its own feed at $20, with the router holding some. */
  async function routeToken(): Promise<Address> {
    const deployer = env.devnet.deployer
    const mined = async (hash: Hex) => client.waitForTransactionReceipt({ hash })
    const token = (
      await mined(await deployer.deployContract({ abi: TestTokenAbi, bytecode: TestTokenBytecode, args: ['Chainlink', 'LINK', 18] }))
    ).contractAddress!
    const feed = (
      await mined(
        await deployer.deployContract({ abi: MockPriceFeedAbi, bytecode: MockPriceFeedBytecode, args: [8, 20n * 10n ** 8n, 'LINK / USD'] }),
      )
    ).contractAddress!
    await mined(
      await deployer.writeContract({ address: assets.router, abi: TestSwapRouterAbi, functionName: 'setFeed', args: [token, feed] }),
    )
    await mined(
      await deployer.writeContract({ address: token, abi: TestTokenAbi, functionName: 'mint', args: [assets.router, 10n ** 24n] }),
    )
    return token
  }

  it('swaps USDC for WETH through a third token: the WETH lands in the owner account, the route token nowhere of ours; a route below the bound is refused both ways', async () => {
    const link = await routeToken()
    const [usdcBefore, wethBefore] = await Promise.all([
      balance(assets.usdc, routedOwner.address),
      balance(assets.weth, routedOwner.address),
    ])
    const route = { via: [{ token: link, fee: 3_000 }] }
    const out = await routedAct.batch([{ kind: 'approve', token: assets.usdc, spender: assets.router, amount: USDC(10) }, swap(route)])
    expect(out.status).toBe('executed')
    if (out.status !== 'executed') return
    expect(out.receipt.status).toBe('success')
    expect(out.calls.map((c) => c.label)).toEqual([`approvals: ${getAddress(assets.router)}`, 'Swap: exactInput'])
    expect(usdcBefore - (await balance(assets.usdc, routedOwner.address))).toBe(USDC(10))
    // Two pools' fees (0.3% and 0.05%) below the feed price, within the 1% the grant allows.
    expect((await balance(assets.weth, routedOwner.address)) - wethBefore).toBeGreaterThanOrEqual(
      (FAIR_WETH_FOR_10 * 995n) / 1000n - FAIR_WETH_FOR_10 / 300n,
    )
    for (const who of [routedOwner.address, routed.golemKey]) expect(await balance(link, who)).toBe(0n)
    expect(await balance(assets.weth, routed.golemKey)).toBe(0n)

    const { offChain, onChain } = await refusedBothWays([swap({ ...route, amountOutMinimum: (FAIR_WETH_FOR_10 * 95n) / 100n })], 'g5')
    expect(offChain.caveat).toBe('maxSlippage')
    expect(offChain.error).toBe('SlippageExceeded')
    expect(offChain.args.slice(2)).toEqual([500n, 100n])
    expect(onChain.args).toEqual(offChain.args)
  })

  it('a route whose output goes to an account that is not the owner: allowedCalldata, at exactInput’s recipient word', async () => {
    const link = await routeToken()
    const { offChain } = await refusedBothWays([swap({ via: [{ token: link }], recipient: OTHER })], 'g5')
    expect(offChain.caveat).toBe('allowedCalldata')
    expect(offChain.reason).toContain(`byte 68 must be the owner's account ${getAddress(routedOwner.address)}; the call names ${OTHER}`)
  })

  it('a malformed route is refused by name and redeems nothing', async () => {
    const requestId = rid()
    await expect(
      executeAction(deps, { golemId: 'g5', requestId, actions: [swap({ via: [{ token: assets.usdc }] })] }),
    ).rejects.toThrowError('actions[0].via[0].token must differ from the token before it on the route')
    expect(await env.store.getSlot({ golemId: 'g5', period: 0n, step: `action_${requestId}` })).toBeNull()
  })
})

describe('bridging the owner’s USDC (CCTP depositForBurn)', () => {
  const ARBITRUM = 3
  let messenger: Address
  let bridgeOwner: OwnerAccount
  let bridgeAct: GolemActions
  const bridge = (p: Partial<Extract<ActionRequest, { kind: 'bridge' }>> = {}): Extract<ActionRequest, { kind: 'bridge' }> => ({
    kind: 'bridge',
    messenger,
    token: assets.usdc,
    amount: USDC(10),
    destinationDomain: ARBITRUM,
    ...p,
  })
  beforeAll(async () => {
    const deployed = await client.waitForTransactionReceipt({
      hash: await env.devnet.deployer.deployContract({ abi: TestTokenMessengerAbi, bytecode: TestTokenMessengerBytecode }),
    })
    messenger = deployed.contractAddress!
    bridgeOwner = await env.devnet.createOwner({ usdc: USDC(100) })
    await provisionGolemIn(env, 'g6', {
      owner: bridgeOwner,
      strategy: 'Bridge USDC to Arbitrum when yields there are higher.\nbudget: $50/day',
      lifeSeconds: 3_600n,
      protocols: { bridge: { messenger, destinationDomain: ARBITRUM } },
    })
    bridgeAct = golemActions({ golemId: 'g6', transport: inProcessTransport(deps) })
  })

  it('burns the owner’s USDC here for a mint to the owner’s own account on the configured chain', async () => {
    const before = await balance(assets.usdc, bridgeOwner.address)
    const out = await bridgeAct.batch([{ kind: 'approve', token: assets.usdc, spender: messenger, amount: USDC(10) }, bridge()])
    expect(out.status).toBe('executed')
    if (out.status !== 'executed') return
    expect(out.calls.map((c) => c.label)).toEqual([`approvals: ${getAddress(messenger)}`, expect.stringMatching(/depositForBurn/)])
    expect(before - (await balance(assets.usdc, bridgeOwner.address))).toBe(USDC(10))
    const [burn] = await client.getContractEvents({
      address: messenger,
      abi: TestTokenMessengerAbi,
      eventName: 'DepositForBurn',
      fromBlock: out.receipt.blockNumber,
    })
    expect(burn?.args).toMatchObject({
      amount: USDC(10),
      destinationDomain: ARBITRUM,
      mintRecipient: pad(bridgeOwner.address.toLowerCase() as Hex),
    })
  })

  it('a transfer to another chain, or minted to someone else, is refused both ways at the pinned word', async () => {
    const elsewhere = await refusedBothWays([bridge({ destinationDomain: 0 })], 'g6')
    expect(elsewhere.offChain.caveat).toBe('allowedCalldata')
    expect(elsewhere.offChain.reason).toContain('byte 36')
    const stranger = await refusedBothWays([bridge({ mintRecipient: OTHER })], 'g6')
    expect(stranger.offChain.caveat).toBe('allowedCalldata')
    expect(stranger.offChain.reason).toContain(
      `byte 68 must be the owner's account ${getAddress(bridgeOwner.address)}; the call names ${OTHER}`,
    )
  })

  it('a transfer that would be all fee is refused by name and redeems nothing', async () => {
    const requestId = rid()
    await expect(executeAction(deps, { golemId: 'g6', requestId, actions: [bridge({ maxFee: USDC(10) })] })).rejects.toThrowError(
      'actions[0].maxFee must be below amount',
    )
    expect(await env.store.getSlot({ golemId: 'g6', period: 0n, step: `action_${requestId}` })).toBeNull()
  })
})

describe('providing liquidity (Uniswap V3 positions)', () => {
  let manager: Address
  let lpOwner: OwnerAccount
  let lpAct: GolemActions
  const sorted = () =>
    (BigInt(assets.usdc) < BigInt(assets.weth) ? [assets.usdc, assets.weth] : [assets.weth, assets.usdc]) as [Address, Address]
  const amountOf = (token: Address) => (token === assets.usdc ? USDC(10) : FAIR_WETH_FOR_10)
  const provide = (
    p: Partial<Extract<ActionRequest, { kind: 'provideLiquidity' }>> = {},
  ): Extract<ActionRequest, { kind: 'provideLiquidity' }> => {
    const [token0, token1] = sorted()
    return {
      kind: 'provideLiquidity',
      positionManager: manager,
      token0,
      token1,
      fee: 3_000,
      tickLower: -600,
      tickUpper: 600,
      amount0Desired: amountOf(token0),
      amount1Desired: amountOf(token1),
      amount0Min: (amountOf(token0) * 99n) / 100n,
      amount1Min: (amountOf(token1) * 99n) / 100n,
      ...p,
    }
  }
  beforeAll(async () => {
    const deployed = await client.waitForTransactionReceipt({
      hash: await env.devnet.deployer.deployContract({ abi: TestPositionManagerAbi, bytecode: TestPositionManagerBytecode }),
    })
    manager = deployed.contractAddress!
    lpOwner = await env.devnet.createOwner({ usdc: USDC(100) })
    await client.waitForTransactionReceipt({
      hash: await env.devnet.deployer.writeContract({
        address: assets.weth,
        abi: TestTokenAbi,
        functionName: 'mint',
        args: [lpOwner.address, 10n ** 18n],
      }),
    })
    await provisionGolemIn(env, 'g7', {
      owner: lpOwner,
      strategy: 'Provide liquidity to the USDC/WETH pool and collect the fees.\nbudget: $50/day',
      lifeSeconds: 3_600n,
      protocols: { positionManager: manager },
    })
    lpAct = golemActions({ golemId: 'g7', transport: inProcessTransport(deps) })
  })

  it('mints a position of the owner’s USDC and WETH, held by the owner’s account, and collects what it owes to the owner', async () => {
    const before = await Promise.all([balance(assets.usdc, lpOwner.address), balance(assets.weth, lpOwner.address)])
    const out = await lpAct.batch([
      { kind: 'approve', token: assets.usdc, spender: manager, amount: USDC(10) },
      { kind: 'approve', token: assets.weth, spender: manager, amount: FAIR_WETH_FOR_10 },
      provide(),
    ])
    expect(out.status).toBe('executed')
    if (out.status !== 'executed') return
    const [minted] = await client.getContractEvents({
      address: manager,
      abi: TestPositionManagerAbi,
      eventName: 'IncreaseLiquidity',
      fromBlock: out.receipt.blockNumber,
    })
    const tokenId = minted!.args.tokenId!
    const positionOwner = await client.readContract({
      address: manager,
      abi: TestPositionManagerAbi,
      functionName: 'ownerOf',
      args: [tokenId],
    })
    expect(positionOwner).toBe(getAddress(lpOwner.address))
    expect(before[0] - (await balance(assets.usdc, lpOwner.address))).toBe(USDC(10))
    expect(before[1] - (await balance(assets.weth, lpOwner.address))).toBe(FAIR_WETH_FOR_10)
    const collected = await lpAct.collect({ positionManager: manager, tokenId })
    expect(collected.status).toBe('executed')
  })

  it('a position minted to someone else is refused both ways at the pinned recipient', async () => {
    const { offChain } = await refusedBothWays([provide({ recipient: OTHER })], 'g7')
    expect(offChain.caveat).toBe('allowedCalldata')
    expect(offChain.reason).toContain(`byte 292 must be the owner's account ${getAddress(lpOwner.address)}; the call names ${OTHER}`)
  })

  it('a mint it cannot make is refused by name and redeems nothing: unsorted tokens, an empty range, a bound above the amount', async () => {
    const [token0, token1] = sorted()
    for (const [patch, message] of [
      [{ token0: token1, token1: token0 }, 'actions[0].token1 must sort after token0'],
      [{ tickLower: 600, tickUpper: 600 }, 'actions[0].tickUpper must be above tickLower'],
      [{ amount0Min: amountOf(token0) + 1n }, 'actions[0].amount0Min must not exceed amount0Desired'],
    ] as const) {
      const requestId = rid()
      await expect(executeAction(deps, { golemId: 'g7', requestId, actions: [provide(patch)] })).rejects.toThrowError(message)
      expect(await env.store.getSlot({ golemId: 'g7', period: 0n, step: `action_${requestId}` })).toBeNull()
    }
  })
})

describe('exactly once', () => {
  it('a request sent three times (two at once, one after) redeems once; the repeats answer with the first receipt or as in flight', async () => {
    const manager = env.devnet.deployment.environment.DelegationManager
    const before = (await redemptionsBy(client, manager, golem.golemKey)).length
    const [usdcBefore, sharesBefore] = await Promise.all([balance(assets.usdc, owner.address), shares(owner.address)])
    const request = {
      golemId: 'g1',
      requestId: 'dup-1',
      actions: [
        { kind: 'approve', token: assets.usdc, spender: assets.vault, amount: USDC(2) },
        { kind: 'deposit', vault: assets.vault, assets: USDC(2) },
      ] as ActionRequest[],
    }
    const [a, b] = await Promise.all([executeAction(deps, request), executeAction({ ...deps, invocationId: 'another-process' }, request)])
    const c = await executeAction(deps, request)
    const first = [a, b].find((o): o is Extract<ActionOutcome, { status: 'executed' }> => o.status === 'executed' && !o.duplicate)
    expect(first).toBeDefined()
    const other = a === first ? b : a
    expect(other.status === 'pending' || (other.status === 'executed' && other.duplicate && other.txHash === first!.txHash)).toBe(true)
    expect(c).toMatchObject({ status: 'executed', duplicate: true, txHash: first!.txHash })
    expect((await redemptionsBy(client, manager, golem.golemKey)).length - before).toBe(1)
    expect(usdcBefore - (await balance(assets.usdc, owner.address))).toBe(USDC(2))
    expect(await shares(owner.address)).toBeGreaterThan(sharesBefore)
  })
})

describe('refusals, by custody and by the chain alike', () => {
  it('an approval over what is left of the spender’s daily USD budget: dailySpendLimit, with the dollars', async () => {
    // $50/day split between two spenders: $25 each; $10 went to the router above.
    const { offChain, onChain } = await refusedBothWays([{ kind: 'approve', token: assets.usdc, spender: assets.router, amount: USDC(20) }])
    expect(offChain.caveat).toBe('dailySpendLimit')
    expect(offChain.error).toBe('DailySpendLimitExceeded')
    expect(offChain.args.slice(1)).toEqual([USDC(10), USDC(20), USDC(25)])
    expect(onChain.args).toEqual(offChain.args)
    expect(offChain.reason).toBe("dailySpendLimit: this call is worth $20.00, but only $15.00 of today's $25.00 is left ($10.00 spent)")
    expect(onChain.reason).toBe(offChain.reason)
  })

  it('a swap whose minimum output is below the slippage bound: maxSlippage, with the outputs and bps', async () => {
    const { offChain, onChain } = await refusedBothWays([swap({ amountOutMinimum: (FAIR_WETH_FOR_10 * 95n) / 100n })])
    expect(offChain.caveat).toBe('maxSlippage')
    expect(offChain.error).toBe('SlippageExceeded')
    expect(offChain.args.slice(2)).toEqual([500n, 100n])
    expect(onChain.args).toEqual(offChain.args)
    expect(offChain.reason).toMatch(
      /^maxSlippage: the swap's minimum output \d+ is 5% below the \d+ the price feeds imply; at most 1% is allowed$/,
    )
    expect(onChain.reason).toBe(offChain.reason)
  })

  it('a swap whose output goes to an account that is not the owner: allowedCalldata, naming the byte and both accounts', async () => {
    const wethBefore = await balance(assets.weth, OTHER)
    const { offChain, onChain } = await refusedBothWays([swap({ recipient: OTHER })])
    expect(offChain.caveat).toBe('allowedCalldata')
    expect(offChain.error).toBe('AllowedCalldataEnforcer:invalid-calldata')
    expect(offChain.reason).toContain(`byte 100 must be the owner's account ${getAddress(owner.address)}; the call names ${OTHER}`)
    expect(onChain.reason).toBe('allowedCalldata: the call names an argument the delegation pins to another value')
    expect(await balance(assets.weth, OTHER)).toBe(wethBefore)
  })

  it('any action while the Golem dreams: dreamMode, with the time it fell asleep', async () => {
    await golemOracleCall(env.devnet.deployment.dreamOracle, encodeFunctionData({ abi: DreamOracleAbi, functionName: 'startDream' }))
    const { offChain, onChain } = await refusedBothWays([swap()])
    expect(offChain.caveat).toBe('dreamMode')
    expect(offChain.error).toBe('GolemDreaming')
    expect(offChain.args[0]).toBe(getAddress(golem.golemKey))
    expect(onChain.args).toEqual(offChain.args)
    expect(offChain.reason).toMatch(
      /^dreamMode: the Golem 0x[0-9a-fA-F]{40} has been dreaming since .+, and nothing executes while it dreams$/,
    )
    await golemOracleCall(env.devnet.deployment.dreamOracle, encodeFunctionData({ abi: DreamOracleAbi, functionName: 'endDream' }))
  })

  it('opening in Conservation: golemPhase refuses the swap, naming the phase and the class; closing (withdraw) still goes through', async () => {
    await golemOracleCall(
      env.devnet.deployment.vitalityOracle,
      encodeFunctionData({ abi: VitalityOracleAbi, functionName: 'updatePhase', args: [2, 3_000] }),
    )
    const { offChain, onChain } = await refusedBothWays([swap()])
    expect(offChain.caveat).toBe('golemPhase')
    expect(offChain.error).toBe('ActionNotAllowedInPhase')
    expect(offChain.args).toEqual([getAddress(golem.golemKey), 2, '0x04e45aaf', 1])
    expect(onChain.args).toEqual(offChain.args)
    expect(offChain.reason).toBe('golemPhase: the Golem is in Conservation (phase 2), which does not allow exactInputSingle (OPEN)')
    const usdcBefore = await balance(assets.usdc, owner.address)
    // The exactly-once deposit above left 2 USDC in the vault for the owner.
    expect((await act.withdraw({ vault: assets.vault, assets: USDC(2) })).status).toBe('executed')
    expect((await balance(assets.usdc, owner.address)) - usdcBefore).toBe(USDC(2))
  })
})

describe('bad input changes nothing', () => {
  it.each([
    ['a request id with spaces', { requestId: 'two words' }, 'requestId must be 1-40 letters, digits, - or _'],
    ['no actions', { actions: [] }, 'actions must hold 1 to 8 actions'],
    [
      'an unknown kind',
      { actions: [{ kind: 'borrow' }] },
      'actions[0].kind must be one of swap, deposit, withdraw, redeem, approve, bridge, provideLiquidity, collect, removeLiquidity',
    ],
    ['a zero amount', { actions: [{ kind: 'withdraw', vault: OTHER, assets: 0n }] }, 'actions[0].assets must be greater than 0'],
    ['an unknown Golem', { golemId: 'nobody' }, 'golemId names no Golem (nobody)'],
  ])('refuses %s, naming the field', async (_name, patch, message) => {
    const input = { golemId: 'g1', requestId: 'bad-1', actions: [swap()], ...patch } as never
    await expect(executeAction(deps, input)).rejects.toThrowError(ActionRequestError)
    await expect(executeAction(deps, input)).rejects.toThrowError(message)
    expect(await env.store.getSlot({ golemId: 'g1', period: 0n, step: 'action_bad-1' })).toBeNull()
  })
})

describe('the example strategy (examples/STRATEGY.md) through the client', () => {
  it('a DCA beat swaps within the bound, a beat asking too little is refused for slippage, and after the phase falls opening is refused', async () => {
    const owner3 = await env.devnet.createOwner({ usdc: USDC(100) })
    const g3 = await provisionGolemIn(env, 'g3', {
      owner: owner3,
      strategy: readFileSync(new URL('../../examples/STRATEGY.md', import.meta.url), 'utf8'),
      lifeSeconds: 3_600n,
    })
    const actions = golemActions({ golemId: 'g3', transport: inProcessTransport(deps) })
    const beat = (slippageBps: number) =>
      dcaBeat({
        actions,
        router: assets.router,
        usdc: assets.usdc,
        weth: assets.weth,
        sliceUsdc: USDC(5),
        wethPerUsdc: 10n ** 18n / 3_000n,
        slippageBps,
      })
    const wethBefore = await balance(assets.weth, owner3.address)
    const ok = await beat(50)
    expect(ok.outcome.status).toBe('executed')
    expect(ok.line).toMatch(/^swap 5 USDC -> WETH \(min out 50 bps under the feed\): executed in 0x[0-9a-f]{64} \(block \d+\)$/)
    expect(await balance(assets.weth, owner3.address)).toBeGreaterThan(wethBefore)
    if (ok.outcome.status === 'executed' && ok.outcome.timings) {
      const { checkMs, redeemMs } = ok.outcome.timings
      // A measurement, not an assertion: the pre-check's cost per action beside the redemption's own.
      console.log(
        `[bench] action pre-check ${(checkMs / 2).toFixed(1)} ms per action (2 actions, one observation) vs redemption ${redeemMs.toFixed(1)} ms (sign, send, receipt on anvil)`,
      )
    }
    const slipped = await beat(300)
    expect(slipped.outcome).toMatchObject({
      status: 'refused',
      checkedBy: 'custody',
      refusal: { caveat: 'maxSlippage', error: 'SlippageExceeded', call: 1 },
    })
    expect(slipped.line).toMatch(/refused by custody before sending: maxSlippage: the swap's minimum output \d+ is 3% below/)
    const fall = encodeFunctionData({ abi: VitalityOracleAbi, functionName: 'updatePhase', args: [2, 3_000] })
    await golemOracleCall(env.devnet.deployment.vitalityOracle, fall, 'g3')
    const late = await beat(50)
    expect(late.outcome).toMatchObject({ status: 'refused', refusal: { caveat: 'golemPhase', error: 'ActionNotAllowedInPhase', call: 0 } })
    expect(late.line).toContain('golemPhase: the Golem is in Conservation (phase 2), which does not allow approve (OPEN)')
    expect(g3.actions.map((a) => a.label)).toEqual([
      'Swap: exactInputSingle',
      'Swap: exactInput',
      `approvals: ${getAddress(assets.router)}`,
    ])
  })
})

describe('POST /api/v1/golems/:id/actions', () => {
  let app: Hono
  let key: Hex
  let send: (input: ExecuteActionInput, account?: LocalAccount) => ReturnType<typeof postActionRequest>

  beforeAll(async () => {
    key = generatePrivateKey()
    const sessionKey = SessionKey.fromMemoryKey(MemoryKey.fromBytes(hexToBytes(key)), {
      expiresAt: Number(await chainNowOf()) + 3_600,
      initialBudget: 0n,
    })
    await provisionGolemIn(env, 'g4', {
      owner: await env.devnet.createOwner({ usdc: USDC(100) }),
      strategy: STRATEGY,
      lifeSeconds: 3_600n,
      sessionKey,
    })
    const router = actionRoutes({ store: env.store, chainId: env.devnet.chain.id, execute: (input) => executeAction(deps, input) })
    const documented = router.openAPIRegistry.definitions.flatMap((d) => (d.type === 'route' ? [[d.route.method, d.route.path]] : []))
    expect(documented).toEqual([['post', '/api/v1/golems/{id}/actions']])
    app = new Hono()
    app.route('/', router)
    const fetchApp = ((url: string, init: RequestInit) => app.request(url, init)) as typeof fetch
    send = (input, account = privateKeyToAccount(key)) =>
      postActionRequest({ baseUrl: 'http://custody.local', account, chainId: env.devnet.chain.id, fetch: fetchApp }, input)
  })

  const approveRouter = (requestId: string): ExecuteActionInput => ({
    golemId: 'g4',
    requestId,
    actions: [{ kind: 'approve', token: assets.usdc, spender: assets.router, amount: USDC(1) }],
  })

  it('carries out a request signed by the Golem’s own key', async () => {
    const answer = await send(approveRouter('http-1'))
    expect(answer.httpStatus).toBe(200)
    expect(answer.body).toMatchObject({ status: 'executed', requestId: 'http-1', duplicate: false })
  })

  it('answers a refusal with 422 and the caveat in words', async () => {
    const answer = await send({
      ...approveRouter('http-2'),
      actions: [{ kind: 'approve', token: assets.usdc, spender: assets.router, amount: USDC(1_000) }],
    })
    expect(answer.httpStatus).toBe(422)
    expect(answer.body).toMatchObject({
      status: 'refused',
      checkedBy: 'custody',
      refusal: { caveat: 'dailySpendLimit', error: 'DailySpendLimitExceeded' },
    })
  })

  it('refuses an unsigned request, changing nothing', async () => {
    const res = await app.request('/api/v1/golems/g4/actions', {
      method: 'POST',
      body: JSON.stringify({ requestId: 'http-3', actions: [] }),
    })
    expect(res.status).toBe(401)
    expect(await res.json()).toMatchObject({ code: 'ACTION_AUTH_REQUIRED' })
    expect(await env.store.getSlot({ golemId: 'g4', period: 0n, step: 'action_http-3' })).toBeNull()
  })

  it('refuses a route it cannot take, naming the field: more than three tokens between, a hop back to the token before it', async () => {
    const via = [{ token: OTHER }, { token: assets.vault }, { token: OTHER }, { token: assets.vault }]
    const long = await send({ golemId: 'g4', requestId: 'http-r1', actions: [swap({ via })] })
    expect(long.httpStatus).toBe(400)
    expect(long.body).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('body.actions.0.via: ') })
    const back = await send({ golemId: 'g4', requestId: 'http-r2', actions: [swap({ via: [{ token: assets.usdc }] })] })
    expect(back.httpStatus).toBe(400)
    expect(back.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('must differ from the token before it on the route'),
      details: { field: 'actions[0].via[0].token' },
    })
    for (const id of ['http-r1', 'http-r2']) expect(await env.store.getSlot({ golemId: 'g4', period: 0n, step: `action_${id}` })).toBeNull()
  })

  it('refuses a replayed request (same signature, same nonce): no second redemption', async () => {
    const path = '/api/v1/golems/g4/actions'
    const body = JSON.stringify({
      requestId: 'http-4',
      actions: [{ kind: 'approve', token: assets.usdc, spender: assets.router, amount: '1000000' }],
    })
    const headers = {
      'content-type': 'application/json',
      ...(await signActionHeaders({ account: privateKeyToAccount(key), chainId: env.devnet.chain.id }, { method: 'POST', path, body })),
    }
    const first = await app.request(path, { method: 'POST', headers, body })
    expect(first.status).toBe(200)
    const replay = await app.request(path, { method: 'POST', headers, body })
    expect(replay.status).toBe(401)
    expect(await replay.json()).toMatchObject({ code: 'ACTION_NONCE_REUSED' })
  })

  it('refuses a request signed by another key, or a signed request whose body was changed', async () => {
    const foreign = await send(approveRouter('http-5'), privateKeyToAccount(generatePrivateKey()))
    expect(foreign.httpStatus).toBe(401)
    expect(foreign.body).toMatchObject({ code: 'ACTION_BAD_SIGNATURE' })
    const path = '/api/v1/golems/g4/actions'
    const body = JSON.stringify({
      requestId: 'http-6',
      actions: [{ kind: 'approve', token: assets.usdc, spender: assets.router, amount: '1' }],
    })
    const headers = await signActionHeaders(
      { account: privateKeyToAccount(key), chainId: env.devnet.chain.id },
      { method: 'POST', path, body },
    )
    const tampered = await app.request(path, { method: 'POST', headers, body: body.replace('"1"', '"5000000"') })
    expect(tampered.status).toBe(401)
    expect(await tampered.json()).toMatchObject({ code: 'ACTION_BAD_SIGNATURE' })
    // Signed for g4 but sent to g1's path: the path is under the signature too.
    const elsewhere = await app.request('/api/v1/golems/g1/actions', { method: 'POST', headers, body })
    expect(elsewhere.status).toBe(401)
    for (const id of ['http-5', 'http-6']) expect(await env.store.getSlot({ golemId: 'g4', period: 0n, step: `action_${id}` })).toBeNull()
  })

  it('refuses a request signed too long ago', async () => {
    const stale = await postActionRequest(
      {
        baseUrl: 'http://custody.local',
        account: privateKeyToAccount(key),
        chainId: env.devnet.chain.id,
        fetch: ((url: string, init: RequestInit) => app.request(url, init)) as typeof fetch,
        now: () => Date.now() - 600_000,
      },
      approveRouter('http-7'),
    )
    expect(stale.httpStatus).toBe(401)
    expect(stale.body).toMatchObject({ code: 'ACTION_REQUEST_EXPIRED' })
  })
})

describe('a Golem the heartbeat anomaly halted', () => {
  it('acts no more: custody refuses its requests before anything is sent', async () => {
    const record = (await env.store.getGolem('g1'))!
    await env.store.updateGolem({
      golemId: 'g1',
      expectedVersion: record.version,
      patch: { lastTick: { at: Date.now(), period: 0n, outcome: 'halted', txHash: null, failures: 5 } },
      now: Date.now(),
    })
    const actions = [{ kind: 'approve' as const, token: assets.usdc, spender: assets.router, amount: USDC(1) }]
    await expect(executeAction(deps, { golemId: 'g1', requestId: 'halted-1', actions })).rejects.toThrow(
      'golemId names a Golem the heartbeat anomaly halted',
    )
    expect(await env.store.getSlot({ golemId: 'g1', period: 0n, step: 'action_halted-1' })).toBeNull()
  })
})
