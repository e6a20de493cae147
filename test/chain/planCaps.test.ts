// A compiled plan's grant bounded in USD on anvil (core/permissions/planGrant.ts): pinned receivers keep
// a swap's output in the owner's account but not its value, so the plan's daily budget bounds what the
// approvals delegation may approve (DailySpendLimit) and every swap must ask a minimum output close to
// the feed price (MaxSlippage). A refused call changes nothing.
import type { Delegation } from '@metamask/smart-accounts-kit'
import { erc20Abi, getAddress, type Address } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { smartAccountSigner, type GolemGrant } from '../../core/delegations/index.ts'
import { buildPlanGrant, DEFAULT_MAX_SLIPPAGE_BPS, type PermissionPlan } from '../../core/permissions/index.ts'
import { startDevnet, type Devnet, type OwnerAccount } from '../../local/devnet.ts'
import { readTokenDecimals } from '../../local/tokenDecimals.ts'
import {
  compileLocalPlan,
  USDC,
  approveCall,
  chainNow,
  expectRefused,
  newGolem,
  newTree,
  redeem,
  refreshFeeds,
  swapCall,
} from './harness.ts'

let devnet: Devnet
let owner: OwnerAccount
let golem: PrivateKeyAccount
let plan: PermissionPlan
let grant: GolemGrant
let approvals: Delegation[]
let swaps: Delegation[]

const allowance = (token: Address, spender: Address): Promise<bigint> =>
  devnet.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'allowance', args: [owner.address, spender] })
const balanceOf = (token: Address, who: Address): Promise<bigint> =>
  devnet.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [who] })

beforeAll(async () => {
  devnet = await startDevnet()
  owner = await devnet.createOwner({ usdc: USDC(10_000) })
  golem = await newGolem(devnet)
  await refreshFeeds(devnet)
  const now = await chainNow(devnet)
  const { usdc, weth, usdcUsdFeed, ethUsdFeed } = devnet.deployment.assets
  plan = compileLocalPlan(devnet, {
    text: 'Swap USDC for WETH on dips.\nbudget: $50/day',
    owner: owner.address,
    sessionKey: golem.address,
    now: now,
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
  const sign = (hash: `0x${string}`) => tree.sign(hash, smartAccountSigner(owner.smartAccount))
  await sign(grant.approvals![0]!.hash)
  approvals = tree.chain(grant.approvals![0]!.hash)
  const single = grant.actions!.find((a) => a.name === 'Swap: exactInputSingle')!
  await sign(single.hash)
  swaps = tree.chain(single.hash)
})
afterAll(async () => devnet?.stop())

describe("a compiled swap plan's grant, bounded by its budget", () => {
  it('lets the one spender be approved up to the $50 daily budget, and refuses the approval past it, allowance unchanged', async () => {
    const { usdc, router } = devnet.deployment.assets
    expect(grant.approvals!.map((a) => a.spender)).toEqual([getAddress(router)])
    await redeem(devnet, golem, approvals, [approveCall(usdc, router, USDC(30))])
    expect(await allowance(usdc, router)).toBe(USDC(30))
    const refused = await expectRefused(devnet, golem, approvals, [approveCall(usdc, router, USDC(25))], 'DailySpendLimitExceeded')
    expect(refused.args.slice(1)).toEqual([USDC(30), USDC(25), USDC(50)]) // spent, requested, limit ($, 6 decimals)
    expect(await allowance(usdc, router)).toBe(USDC(30))
    await redeem(devnet, golem, approvals, [approveCall(usdc, router, USDC(20))]) // exactly at the budget
    expect(await allowance(usdc, router)).toBe(USDC(20))
  })

  it('refuses a swap that accepts any price (minimum output 0), and passes one within the slippage bound to the owner', async () => {
    const { usdc, weth } = devnet.deployment.assets
    const before = await balanceOf(weth, owner.address)
    const refused = await expectRefused(
      devnet,
      golem,
      swaps,
      [swapCall(devnet, { tokenIn: usdc, tokenOut: weth, amountIn: USDC(10), amountOutMinimum: 0n, recipient: owner.address })],
      'SlippageExceeded',
    )
    expect(refused.args[3]).toBe(BigInt(DEFAULT_MAX_SLIPPAGE_BPS))
    expect(await balanceOf(weth, owner.address)).toBe(before)
    // $10 of USDC at $3,000 per WETH: 1/300 WETH at the feed price; ask for 0.5% less.
    const fair = 10n ** 18n / 300n
    await redeem(devnet, golem, swaps, [
      swapCall(devnet, {
        tokenIn: usdc,
        tokenOut: weth,
        amountIn: USDC(10),
        amountOutMinimum: (fair * 995n) / 1000n,
        recipient: owner.address,
      }),
    ])
    expect((await balanceOf(weth, owner.address)) - before).toBeGreaterThanOrEqual((fair * 995n) / 1000n)
  })

  it("refuses to build a grant whose WETH feed entry says 6 decimals when the token's own decimals() says 18", async () => {
    const { usdc, weth, usdcUsdFeed, ethUsdFeed } = devnet.deployment.assets
    const feeds = [
      { token: usdc, decimals: 6, feed: usdcUsdFeed },
      { token: weth, decimals: 6, feed: ethUsdFeed },
    ]
    const tokenDecimals = await readTokenDecimals(devnet.publicClient, [usdc, weth])
    expect(tokenDecimals).toEqual([
      { token: getAddress(usdc), decimals: 6 },
      { token: getAddress(weth), decimals: 18 },
    ])
    expect(() =>
      buildPlanGrant({ tree: newTree(devnet, BigInt(plan.startTime)), plan, usdCaps: { feeds, tokenDecimals, maxPriceAge: 3_600 } }),
    ).toThrow(`usdCaps.feeds[1].decimals: says 6 for ${getAddress(weth)}, but the token's decimals() is 18`)
  })
})
