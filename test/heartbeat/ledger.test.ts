// The whole-life ledger, per token, on anvil through the real DelegationManager: a Golem provisioned
// with a runway grant and a gas grant lives until it dies, and every unit the owner started with is
// accounted for. USDC: the owner ends where it started (the Golem paid no one), the key at 0. ETH: the
// owner's start = its end + the gas burned (onboarding and every transaction of the key) + the dust the
// return left on the key, which is at most one transaction's gas.
import { getAbiItem, parseEther, type Address, type Hex, type PublicClient } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import type { TickResult } from '../../app/tick/types.ts'
import type { OwnerAccount } from '../../local/devnet.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import { erc20Abi } from 'viem'
import { readGolems } from '../../adapters/chain/readGolems.ts'
import { gasPeriodAt } from '../../core/lifecycle/gasPlan.ts'
import { readRequestOf } from '../../core/lifecycle/observation.ts'
import { decodeTickPayload, encodeTickPayload } from '../../app/heartbeat/tickPayload.ts'
import { runTick } from '../../app/tick/runTick.ts'
import {
  DAY,
  USDC,
  passStaggerOffsets,
  startHeartbeatEnv,
  usdcBalance,
  usdcTransfersFrom,
  type HeartbeatEnv,
  WHOLE_RUNWAY_ON_KEY,
} from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY =
  '---\nname: ledger-golem\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 5\n---\n\nSwap a little USDC into WETH every day.\n'
const GAS_PER_DAY = parseEther('0.01')
/** Below half a day's gas allowance: the first tick tops the key up from the grant. */
const BOOTSTRAP = parseEther('0.001')

let env: HeartbeatEnv
let owner: OwnerAccount
let golem: ProvisionedGolem
const start = { usdc: 0n, eth: 0n }
const afterOnboarding = { eth: 0n }
const days: TickResult[] = []
const errors: unknown[] = []

/** Every mined transaction sent by `from`, with what its gas cost. */
async function transactionsFrom(
  client: PublicClient,
  from: Address,
  fromBlock: bigint,
): Promise<{ hash: Hex; to: Address | null; value: bigint; burned: bigint; gasLimit: bigint; maxFeePerGas: bigint }[]> {
  const latest = await client.getBlockNumber()
  const out = []
  for (let n = fromBlock; n <= latest; n++) {
    const block = await client.getBlock({ blockNumber: n, includeTransactions: true })
    for (const tx of block.transactions) {
      if (tx.from.toLowerCase() !== from.toLowerCase()) continue
      const receipt = await client.getTransactionReceipt({ hash: tx.hash })
      out.push({
        hash: tx.hash,
        to: tx.to,
        value: tx.value,
        burned: receipt.gasUsed * receipt.effectiveGasPrice,
        gasLimit: tx.gas,
        maxFeePerGas: tx.maxFeePerGas ?? tx.gasPrice ?? 0n,
      })
    }
  }
  return out
}

let firstBlock = 0n

beforeAll(async () => {
  env = await startHeartbeatEnv()
  owner = await env.devnet.createOwner()
  start.usdc = await usdcBalance(env.client, env.devnet.deployment.assets.usdc, owner.address)
  start.eth = await env.client.getBalance({ address: owner.address })
  firstBlock = (await env.client.getBlockNumber()) + 1n
  golem = await provisionGolemIn(env, 'ledger', {
    keyCeiling: WHOLE_RUNWAY_ON_KEY,
    owner,
    strategy: STRATEGY,
    runwayDays: 5,
    gas: { periodAmount: GAS_PER_DAY, bootstrap: BOOTSTRAP },
  })
  afterOnboarding.eth = await env.client.getBalance({ address: owner.address })
  // Whole days later each tick is past the Golem's stagger offset, so every period's tick redeems.
  await passStaggerOffsets(env.devnet, ['ledger'])
  const invoker = new LocalInvoker((id) => env.deps(id), { onError: (_id, e) => errors.push(e) })
  for (let day = 0; day < 10; day++) {
    await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
    days.push(invoker.results.at(-1)!)
    if ((await env.store.getGolem('ledger'))?.status === 'dead') break
    await env.devnet.increaseTime(DAY)
  }
})
afterAll(async () => env?.stop())

describe('the whole-life ledger', () => {
  it('lives and dies without a failed tick; the first tick tops the key up from the gas grant, once', async () => {
    expect(errors).toEqual([])
    expect(days.at(-1)!.outcome).toBe('died')
    expect(days[0]!.gas).toMatchObject({ status: 'confirmed', amount: GAS_PER_DAY })
    expect(days.slice(1).filter((d) => d.gas?.status === 'confirmed')).toEqual([])
  })

  it('USDC: the owner ends where it started and the key at 0; every redeemed unit came back in one transfer to the owner', async () => {
    const usdc = env.devnet.deployment.assets.usdc
    expect(await usdcBalance(env.client, usdc, golem.golemKey)).toBe(0n)
    const redeemed = (await usdcTransfersFrom(env.client, usdc, owner.address)).reduce((a, t) => a + t.value, 0n)
    expect(redeemed).toBeGreaterThan(USDC(20))
    const back = await usdcTransfersFrom(env.client, usdc, golem.golemKey)
    expect(back).toHaveLength(1)
    expect(back[0]!.to.toLowerCase()).toBe(owner.address.toLowerCase())
    expect(back[0]!.value).toBe(redeemed)
    // Paid to payees: nothing (this Golem bought nothing), so the owner's start is its end.
    expect(await usdcBalance(env.client, usdc, owner.address)).toBe(start.usdc)
  })

  it('ETH: owner before = owner after + gas burned (onboarding and the key) + the dust of one transaction left on the key', async () => {
    const ownerEnd = await env.client.getBalance({ address: owner.address })
    const keyEnd = await env.client.getBalance({ address: golem.golemKey })
    const keyTxs = await transactionsFrom(env.client, golem.golemKey, firstBlock)
    const keyBurned = keyTxs.reduce((a, t) => a + t.burned, 0n)
    const onboardingBurned = start.eth - afterOnboarding.eth - BOOTSTRAP
    expect(onboardingBurned).toBeGreaterThan(0n)
    expect(start.eth).toBe(ownerEnd + onboardingBurned + keyBurned + keyEnd)
    // The last transaction of the key is its ETH return to the owner; what it left is under its own gas bound.
    const last = keyTxs.at(-1)!
    expect(last.to?.toLowerCase()).toBe(owner.address.toLowerCase())
    expect(last.value).toBeGreaterThan(0n)
    expect(keyEnd).toBeLessThanOrEqual(last.gasLimit * last.maxFeePerGas - last.burned)
  })

  it('records the returns in the DeathSettlement record: amounts and transaction hashes, token first, ETH last', async () => {
    const death = await env.store.getDeathSettlement('ledger')
    const usdc = env.devnet.deployment.assets.usdc
    const back = await usdcTransfersFrom(env.client, usdc, golem.golemKey)
    const keyTxs = await transactionsFrom(env.client, golem.golemKey, firstBlock)
    const ethReturn = keyTxs.at(-1)!
    expect(death?.settlement).toMatchObject({
      owner: owner.address,
      fundsReturned: [
        { asset: usdc, status: 'returned', amount: back[0]!.value.toString(), txHash: back[0]!.txHash },
        { asset: 'native', status: 'returned', amount: ethReturn.value.toString(), txHash: ethReturn.hash },
      ],
    })
    // Both returns were signed before the key was zeroed: the token return precedes the ETH return.
    expect(keyTxs.findIndex((t) => t.hash === back[0]!.txHash)).toBe(keyTxs.length - 2)
    expect(getAbiItem({ abi: erc20Abi, name: 'transfer' })).toBeDefined()
  })
})

describe('the gas top-up under duplicate deliveries', () => {
  let dup: ProvisionedGolem
  let observedAt = 0n
  const results: TickResult[] = []

  beforeAll(async () => {
    const other = await env.devnet.createOwner()
    dup = await provisionGolemIn(env, 'gas-dup', {
      keyCeiling: WHOLE_RUNWAY_ON_KEY,
      owner: other,
      strategy: STRATEGY,
      runwayDays: 5,
      gas: { periodAmount: GAS_PER_DAY, bootstrap: BOOTSTRAP },
    })
    // One observation, delivered three times at once and once more after they finished (stale by then).
    const batch = await readGolems(env.client, env.devnet.deployment, [readRequestOf('gas-dup', dup.profile)])
    const [request] = decodeTickPayload(
      encodeTickPayload([{ golemId: 'gas-dup', observed: { ...batch.golems[0]!, timestamp: batch.timestamp } }]),
    )
    expect(request!.observed?.ethBalance).toBe(BOOTSTRAP)
    observedAt = batch.timestamp
    results.push(...(await Promise.all([0, 1, 2].map((copy) => runTick(env.deps(`gas-dup-${copy}`), request!)))))
    await env.devnet.increaseTime(300)
    results.push(await runTick(env.deps('gas-dup-late'), request!))
  })

  it('redeems the gas grant exactly once: one confirmed top-up, the late stale copy finds the slot completed', async () => {
    expect(
      results
        .slice(0, 3)
        .map((r) => r.outcome)
        .sort(),
    ).toEqual(['busy', 'busy', 'ticked'])
    expect(results.filter((r) => r.gas?.status === 'confirmed')).toHaveLength(1)
    expect(results[3]!.gas).toMatchObject({ status: 'busy' })
    const topUps = (await transactionsFrom(env.client, dup.golemKey, 0n)).filter(
      (t) => t.to?.toLowerCase() === env.devnet.deployment.environment.DelegationManager.toLowerCase(),
    )
    // One runway redemption and one gas redemption, each once.
    expect(topUps).toHaveLength(2)
    const slot = await env.store.getSlot({ golemId: 'gas-dup', period: gasPeriodAt(dup.profile.gas!, observedAt), step: 'gas' })
    expect(slot).toMatchObject({ status: 'confirmed', claims: 1 })
    const burned = (await transactionsFrom(env.client, dup.golemKey, 0n)).reduce((a, t) => a + t.burned, 0n)
    expect(await env.client.getBalance({ address: dup.golemKey })).toBe(BOOTSTRAP + GAS_PER_DAY - burned)
  })

  it('a tick above the threshold does not top up', async () => {
    await env.devnet.increaseTime(DAY)
    const next = await runTick(env.deps('gas-dup-next-day'), { golemId: 'gas-dup' })
    expect(next.gas?.status).toBe('skipped')
    expect(next.gas?.reason).toMatch(/at or above the threshold/)
  })
})
