// Wind-down of liquidity positions whose pools are off the feeds, on anvil and dynalite. A Golem opens two
// USDC/WETH positions for its owner while Thriving (one in the 0.3% pool, one in the 0.05% pool), leaving
// part of its USDC approval unspent; then both pools' prices are moved to four times the feeds' (a
// sandwich's first leg). In Declining the tick's removal of each is refused by the chain (MaxSlippage:
// PoolPriceOffFeeds) before anything is sent: no transaction, no attempt spent, each listed as left open
// with the chain's reason. The 0.05% pool is then put back at the feeds' price, and the next tick removes
// and collects that position to the owner in its same slot. The other pool stays off: every Declining tick
// is refused again, and at death (Terminal, where the chain refuses decreaseLiquidity) the record lists it
// as left open for the owner to remove. Nothing else is broken: the allowance is revoked before
// Conservation, the Golem dies with an empty key, and the owner's balances are exact.
import { erc20Abi, getAddress, isAddressEqual, type Address, type Hex, type PublicClient } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TestPositionManagerAbi, TestUniswapV3PoolAbi } from '../../contracts/artifacts/index.ts'
import type { ActionRequest } from '../../core/actions/actionCall.ts'
import { executeAction, type ActionOutcome } from '../../app/actions/executeAction.ts'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import type { TickResult } from '../../app/tick/types.ts'
import { Phase } from '../../core/lifecycle/phase.ts'
import { LIQUIDITY_TOO_LATE, liquidityBase, revokeBase, windDownStep } from '../../core/lifecycle/windDownPlan.ts'
import type { OwnerAccount } from '../../local/devnet.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import { accountFlow, deployPositionManager, mintWeth, provideUsdcWeth, sortedPair } from './liquidity.ts'
import {
  DAY,
  USDC,
  freshFeeds,
  passStaggerOffsets,
  phaseTransitions,
  startHeartbeatEnv,
  usdcBalance,
  type HeartbeatEnv,
} from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY = 'Provide liquidity to the USDC/WETH pool and collect the fees.\nbudget: $50/day'
const ID = 'lp-off'
// $5 of USDC and $5 of WETH (at $3,000) per position.
const LP_USDC = USDC(5)
const LP_WETH = 10n ** 18n / 600n
const OWNER_WETH = 10n ** 18n
// The 0.3% pool stays off the feeds; the 0.05% pool is put back after the first Declining tick.
const STUCK = { fee: 3_000, tokenId: 1n }
const RETRIED = { fee: 500, tokenId: 2n }

let env: HeartbeatEnv
let client: PublicClient
let owner: OwnerAccount
let golem: ProvisionedGolem
let assets: HeartbeatEnv['devnet']['deployment']['assets']
let manager: Address
let opened: ActionOutcome
const start = { usdc: 0n, weth: 0n }
const days: TickResult[] = []
const errors: unknown[] = []
let declineDay = -1
/** The positions' liquidity right after the first Declining tick. */
let afterFirstDecline: { stuck: bigint; retried: bigint } | undefined

const balance = (token: Address, who: Address) =>
  client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [who] })
const sorted = () => sortedPair(assets)
const lpAmountOf = (token: Address) => (token === assets.usdc ? LP_USDC : LP_WETH)
const liquidityOf = async (tokenId: bigint) =>
  (await client.readContract({ address: manager, abi: TestPositionManagerAbi, functionName: 'positions', args: [tokenId] }))[7]
const poolOf = (fee: number) => {
  const [token0, token1] = sorted()
  return client.readContract({ address: manager, abi: TestPositionManagerAbi, functionName: 'getPool', args: [token0, token1, fee] })
}
const sqrtPriceOf = async (pool: Address) =>
  (await client.readContract({ address: pool, abi: TestUniswapV3PoolAbi, functionName: 'slot0' }))[0]
const movePrice = async (pool: Address, sqrtPriceX96: bigint) =>
  client.waitForTransactionReceipt({
    hash: await env.devnet.deployer.writeContract({
      address: pool,
      abi: TestUniswapV3PoolAbi,
      functionName: 'movePrice',
      args: [sqrtPriceX96],
    }),
  })
const provide = (fee: number): ActionRequest => provideUsdcWeth({ manager, assets, fee, usdc: LP_USDC, weth: LP_WETH, minBps: 10_000n })

/** What went out of (negative) or came into the owner's account in `token` by the transactions of `hashes`. */
const ownerFlow = (token: Address, hashes: readonly Hex[]) => accountFlow(client, owner.address, token, hashes)

const settlementOf = async () =>
  (await env.store.getDeathSettlement(ID))?.settlement as
    | { positionsSettled: { kind: string; txHash: Hex }[]; positionsLeftOpen: { kind: string }[] }
    | undefined

beforeAll(async () => {
  env = await startHeartbeatEnv()
  client = env.client
  assets = env.devnet.deployment.assets
  manager = await deployPositionManager(env)
  owner = await env.devnet.createOwner({ usdc: USDC(1_000) })
  await mintWeth(env, owner.address, OWNER_WETH)
  start.usdc = await balance(assets.usdc, owner.address)
  start.weth = await balance(assets.weth, owner.address)
  golem = await provisionGolemIn(env, ID, {
    owner,
    strategy: STRATEGY,
    runwayDays: 14,
    protocols: { positionManager: manager },
  })
  await passStaggerOffsets(env.devnet, [ID])
  await freshFeeds(env)
  // Thriving: two positions, each pool created at the feeds' price by its first mint; 2 USDC stay approved.
  opened = await executeAction(
    { store: env.store, client, deployment: env.devnet.deployment, signers: env.signers, invocationId: 'test-lp-off' },
    {
      golemId: ID,
      requestId: 'provide',
      actions: [
        { kind: 'approve', token: assets.usdc, spender: manager, amount: 2n * LP_USDC + USDC(2) },
        { kind: 'approve', token: assets.weth, spender: manager, amount: 2n * LP_WETH },
        provide(STUCK.fee),
        provide(RETRIED.fee),
      ],
    },
  )
  expect(opened.status).toBe('executed')
  // A sandwich's first leg in both pools: each priced at four times the feeds'.
  const stuckPool = await poolOf(STUCK.fee)
  const retriedPool = await poolOf(RETRIED.fee)
  const fair = await sqrtPriceOf(retriedPool)
  expect(await sqrtPriceOf(stuckPool)).toBe(fair)
  await movePrice(stuckPool, fair * 2n)
  await movePrice(retriedPool, fair * 2n)

  const invoker = new LocalInvoker((id) => env.deps(id), { onError: (_id, e) => errors.push(e) })
  let phase: number = Phase.Thriving
  for (let day = 0; day < 20; day++) {
    await freshFeeds(env)
    const before = invoker.results.length
    await runHeartbeat({ store: env.store, client, deployment: env.devnet.deployment, invoker })
    expect(invoker.results.length - before, `day ${day}: one tick`).toBe(1)
    const r = invoker.results.at(-1)!
    days.push(r)
    const next = r.phase ? r.phase.to : phase
    if (next === Phase.Declining && phase !== Phase.Declining) {
      declineDay = day
      afterFirstDecline = {
        stuck: await liquidityOf(STUCK.tokenId),
        retried: await liquidityOf(RETRIED.tokenId),
      }
      // The 0.05% pool is back at the feeds' price before the next tick.
      await movePrice(retriedPool, fair)
    }
    phase = next
    if ((await env.store.getGolem(ID))?.status === 'dead') break
    await env.devnet.increaseTime(DAY)
  }
}, 300_000)
afterAll(async () => env?.stop())

describe('wind-down of liquidity in pools off the feeds', () => {
  const open = (tokenId: bigint, reason: string) => {
    const [token0, token1] = sorted()
    return {
      kind: 'liquidity',
      manager: getAddress(manager),
      tokenId: tokenId.toString(),
      token0: getAddress(token0),
      token1: getAddress(token1),
      liquidity: (LP_USDC + LP_WETH).toString(),
      tokensOwed0: '0',
      tokensOwed1: '0',
      reason,
    }
  }

  it('falls through every phase to death with no failed tick, the allowance revoked before Conservation', async () => {
    expect(errors).toEqual([])
    const onChain = await phaseTransitions(client, env.devnet.deployment.vitalityOracle, golem.golemKey)
    expect(onChain.map((t) => t.to)).toEqual([1, 2, 3, 4])
    expect(days.at(-1)?.outcome).toBe('died')
    expect(declineDay).toBeGreaterThan(0)
    expect(days.find((r) => r.phase?.to === Phase.Conservation)?.windDown).toEqual({ settled: 1, leftOpen: [] })
    for (const token of [assets.usdc, assets.weth])
      expect(await client.readContract({ address: token, abi: erc20Abi, functionName: 'allowance', args: [owner.address, manager] })).toBe(
        0n,
      )
  })

  it('is refused both removals in the first Declining tick: nothing sent, no attempt spent, each left open with the reason', async () => {
    expect(days[declineDay]?.windDown).toEqual({
      settled: 1,
      leftOpen: [open(STUCK.tokenId, 'refused: PoolPriceOffFeeds'), open(RETRIED.tokenId, 'refused: PoolPriceOffFeeds')],
    })
    expect(afterFirstDecline).toEqual({ stuck: LP_USDC + LP_WETH, retried: LP_USDC + LP_WETH })
  })

  it('removes and collects the position whose pool is back at the feeds in the next tick, in the same slot', async () => {
    expect(days[declineDay + 1]?.windDown).toEqual({ settled: 2, leftOpen: [open(STUCK.tokenId, 'refused: PoolPriceOffFeeds')] })
    expect(await liquidityOf(RETRIED.tokenId)).toBe(0n)
    const base = liquidityBase(manager, RETRIED.tokenId)
    const slot = await env.store.getSlot({ golemId: ID, period: 0n, step: windDownStep(base, 0) })
    // The refused attempt wrote nothing: the slot is the one transaction's, claimed once with it.
    expect(slot).toMatchObject({ status: 'confirmed', claims: 1 })
    expect(await env.store.getSlot({ golemId: ID, period: 0n, step: windDownStep(base, 1) })).toBeNull()
    // One transaction, signed by the Golem's key: decreaseLiquidity then collect, the whole position to the owner.
    const receipt = await client.getTransactionReceipt({ hash: slot!.txHash! })
    expect(isAddressEqual(receipt.from, golem.golemKey)).toBe(true)
    expect(receipt.status).toBe('success')
    const [token0, token1] = sorted()
    expect(await ownerFlow(token0, [slot!.txHash!])).toBe(lpAmountOf(token0))
    expect(await ownerFlow(token1, [slot!.txHash!])).toBe(lpAmountOf(token1))
  })

  it('keeps being refused the other, spends no attempt on it, and lists it as left open at death', async () => {
    const declining = days.slice(declineDay + 1, -1)
    expect(declining.length).toBeGreaterThan(0)
    for (const r of declining) expect(r.windDown?.leftOpen).toEqual([open(STUCK.tokenId, 'refused: PoolPriceOffFeeds')])
    expect(await liquidityOf(STUCK.tokenId)).toBe(LP_USDC + LP_WETH)
    const base = liquidityBase(manager, STUCK.tokenId)
    // Each refusal wrote nothing: no slot for its first attempt, nor for a second.
    expect(await env.store.getSlot({ golemId: ID, period: 0n, step: windDownStep(base, 0) })).toBeNull()
    expect(await env.store.getSlot({ golemId: ID, period: 0n, step: windDownStep(base, 1) })).toBeNull()
    const settlement = await settlementOf()
    expect(settlement?.positionsLeftOpen).toEqual([open(STUCK.tokenId, LIQUIDITY_TOO_LATE)])
    const retried = await env.store.getSlot({ golemId: ID, period: 0n, step: windDownStep(liquidityBase(manager, RETRIED.tokenId), 0) })
    const revoked = await env.store.getSlot({ golemId: ID, period: 0n, step: windDownStep(revokeBase(assets.usdc, manager), 0) })
    const [token0, token1] = sorted()
    expect(settlement?.positionsSettled).toEqual([
      {
        kind: 'liquidity',
        manager: getAddress(manager),
        tokenId: RETRIED.tokenId.toString(),
        token0: getAddress(token0),
        token1: getAddress(token1),
        liquidity: (LP_USDC + LP_WETH).toString(),
        amount0: lpAmountOf(token0).toString(),
        amount1: lpAmountOf(token1).toString(),
        txHash: retried!.txHash,
      },
      { kind: 'approval', token: getAddress(assets.usdc), spender: getAddress(manager), txHash: revoked!.txHash },
    ])
  })

  it("dies with an empty key and leaves the owner's balances exact, the stuck position's tokens still in it", async () => {
    expect(await usdcBalance(client, assets.usdc, golem.golemKey)).toBe(0n)
    const hashes = [
      ...(opened.status === 'executed' ? [opened.receipt.transactionHash] : []),
      ...((await settlementOf())?.positionsSettled ?? []).map((p) => p.txHash),
    ]
    expect(await balance(assets.usdc, owner.address)).toBe(start.usdc + (await ownerFlow(assets.usdc, hashes)))
    expect(await balance(assets.weth, owner.address)).toBe(start.weth + (await ownerFlow(assets.weth, hashes)))
    // The owner is short exactly the stuck position, which their account still holds.
    expect(await balance(assets.usdc, owner.address)).toBe(start.usdc - LP_USDC)
    expect(await balance(assets.weth, owner.address)).toBe(start.weth - LP_WETH)
    expect(await balance(assets.usdc, manager)).toBe(LP_USDC)
    expect(await balance(assets.weth, manager)).toBe(LP_WETH)
    expect(
      await client.readContract({ address: manager, abi: TestPositionManagerAbi, functionName: 'ownerOf', args: [STUCK.tokenId] }),
    ).toBe(owner.address)
  })
})
