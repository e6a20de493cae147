// The owner's constitution binds on-chain, not only in custody: a Golem key that redeems its action grant
// itself (past custody's checks, as a leaked key would) is refused by the PolicyCageEnforcer on every
// rule it carries to the chain (constitutionHash, approvedAsset, maxConcentration, maxDrawdown), on anvil
// through the real DelegationManager, and nothing moves.
import type { Delegation, ExecutionStruct } from '@metamask/smart-accounts-kit'
import { erc20Abi, getAddress, type Address, type Hex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MockPriceFeedAbi } from '../../contracts/artifacts/index.ts'
import { constitutionHash, parseConstitution, type Constitution, type ConstitutionInput } from '../../core/policy/index.ts'
import { startDevnet, type Devnet, type OwnerAccount } from '../../local/devnet.ts'
import { signPlanActions } from '../../local/provision.ts'
import {
  USDC,
  approveCall,
  chainNow,
  compileLocalPlan,
  expectRefused,
  newGolem,
  redeemAll,
  refreshFeeds,
  swapCall,
  setConstitutionHash,
  waitOk,
} from './harness.ts'

const STRATEGY = 'Swap USDC for WETH on the router.\nbudget: $100/day'
/** The WETH `usd` (6 decimals) buys at `ethUsd` dollars an ether. */
const WETH = (usd: bigint, ethUsd = 3_000n) => (usd * 10n ** 18n) / ethUsd / 10n ** 6n

let devnet: Devnet
let owner: OwnerAccount

type Grant = { golem: PrivateKeyAccount; swap: Delegation[]; approve: Delegation[]; constitution: Constitution }

const balanceOf = (token: Address) =>
  devnet.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner.address] })
const balances = () => Promise.all([balanceOf(devnet.deployment.assets.usdc), balanceOf(devnet.deployment.assets.weth)])

const constitution = (over: Partial<ConstitutionInput> = {}): Constitution =>
  parseConstitution({
    v: 1,
    baseAsset: devnet.deployment.assets.usdc,
    assets: [{ address: devnet.deployment.assets.weth, maxConcentrationBps: 2_500 }],
    maxTransactionUsd: USDC(1_000).toString(),
    maxSessionUsd: USDC(1_000).toString(),
    maxDayUsd: USDC(1_000).toString(),
    maxDrawdownBps: 1_500,
    ...over,
  })

/** A fresh Golem key granted the swap strategy under `c`, its hash set in the PolicyCage by the operator. */
async function grantUnder(c: Constitution): Promise<Grant> {
  const golem = await newGolem(devnet)
  const now = await chainNow(devnet)
  const plan = compileLocalPlan(devnet, { text: STRATEGY, owner: owner.address, sessionKey: golem.address, now })
  const entries = await signPlanActions(devnet, {
    deployment: devnet.deployment,
    owner,
    plan,
    startDate: now,
    expiresAt: now + 86_400n,
    constitution: c,
    // Approvals up to $1,000 a day, so that only the constitution bounds these buys.
    options: { dailyUsd: USDC(1_000) },
  })
  await setCage(golem.address, constitutionHash(c))
  const swap = entries.find((e) => !e.label.startsWith('approvals'))
  const approve = entries.find((e) => e.label.startsWith('approvals'))
  if (!swap || !approve) throw new Error(`expected a swap and an approval delegation, got ${entries.map((e) => e.label).join(', ')}`)
  return { golem, swap: swap.chain, approve: approve.chain, constitution: c }
}

const setCage = (golem: Address, hash: Hex) => setConstitutionHash(devnet, golem, hash)

const approveRouter = (amount: bigint): ExecutionStruct =>
  approveCall(devnet.deployment.assets.usdc, devnet.deployment.assets.router, amount)
/** A buy of WETH for `usd` of USDC, at most 1% under the feed's price. */
const buy = (usd: bigint, ethUsd = 3_000n): ExecutionStruct =>
  swapCall(devnet, {
    tokenIn: devnet.deployment.assets.usdc,
    tokenOut: devnet.deployment.assets.weth,
    amountIn: usd,
    amountOutMinimum: (WETH(usd, ethUsd) * 99n) / 100n,
    recipient: owner.address,
  })

/** The Golem's key approves the router and swaps in one transaction, as it could without custody. */
const approveAndBuy = (g: Grant, usd: bigint) =>
  redeemAll(devnet, g.golem, [
    { chain: g.approve, executions: [approveRouter(usd)] },
    { chain: g.swap, executions: [buy(usd)] },
  ])

const setEthPrice = async (dollars: bigint) =>
  waitOk(
    devnet,
    devnet.deployer.writeContract({
      address: devnet.deployment.assets.ethUsdFeed,
      abi: MockPriceFeedAbi,
      functionName: 'setAnswer',
      args: [dollars * 10n ** 8n],
    }),
  )

beforeAll(async () => {
  devnet = await startDevnet()
  owner = await devnet.createOwner({ usdc: USDC(1_000) })
  await refreshFeeds(devnet)
}, 120_000)
afterAll(async () => devnet?.stop())

describe('the PolicyCageEnforcer refuses a Golem key that redeems past custody', () => {
  it('passes a buy inside every bound', async () => {
    const g = await grantUnder(constitution())
    const [usdc, weth] = await balances()
    await approveAndBuy(g, USDC(100))
    const [usdcAfter, wethAfter] = await balances()
    expect(usdc - usdcAfter).toBe(USDC(100))
    expect(wethAfter).toBeGreaterThan(weth)
  })

  it('approvedAsset: a buy of an asset the constitution does not list', async () => {
    const g = await grantUnder(constitution({ assets: [] }))
    await redeemAll(devnet, g.golem, [{ chain: g.approve, executions: [approveRouter(USDC(50))] }])
    const before = await balances()
    const refusal = await expectRefused(devnet, g.golem, g.swap, [buy(USDC(50))], 'ApprovedAsset')
    expect(getAddress(refusal.args[0] as Address)).toBe(getAddress(devnet.deployment.assets.weth))
    expect(await balances()).toEqual(before)
  })

  it('maxConcentration: a buy that leaves the asset above its share of the portfolio', async () => {
    const g = await grantUnder(constitution({ assets: [{ address: devnet.deployment.assets.weth, maxConcentrationBps: 2_500 }] }))
    await redeemAll(devnet, g.golem, [{ chain: g.approve, executions: [approveRouter(USDC(400))] }])
    const before = await balances()
    const refusal = await expectRefused(devnet, g.golem, g.swap, [buy(USDC(400))], 'MaxConcentration')
    expect(refusal.args[4]).toBe(2_500n)
    expect(await balances()).toEqual(before)
  })

  it('maxDrawdown: no new risk once the portfolio fell past the bound from its high-water mark', async () => {
    // Half the portfolio in WETH may be bought; then ETH halves and the portfolio falls ~25%.
    const g = await grantUnder(constitution({ assets: [{ address: devnet.deployment.assets.weth, maxConcentrationBps: 9_000 }] }))
    await approveAndBuy(g, USDC(300))
    await setEthPrice(1_500n)
    try {
      await redeemAll(devnet, g.golem, [{ chain: g.approve, executions: [approveRouter(USDC(10))] }])
      const before = await balances()
      const refusal = await expectRefused(devnet, g.golem, g.swap, [buy(USDC(10), 1_500n)], 'MaxDrawdown')
      expect(refusal.args[3]).toBe(1_500n)
      expect(refusal.args[2] as bigint).toBeGreaterThan(1_500n)
      expect(await balances()).toEqual(before)
    } finally {
      await setEthPrice(3_000n)
    }
  })

  it('constitutionHash: once the PolicyCage holds another constitution, every redemption carrying the old one is refused', async () => {
    const g = await grantUnder(constitution())
    const next = constitution({ maxDrawdownBps: 1_000 })
    await setCage(g.golem.address, constitutionHash(next))
    const before = await balances()
    await expectRefused(devnet, g.golem, g.approve, [approveRouter(USDC(10))], 'ConstitutionHash', [
      g.golem.address,
      constitutionHash(g.constitution),
      constitutionHash(next),
    ])
    expect(await balances()).toEqual(before)
  })
})
