// Wind-down over a whole (short) life, on anvil and dynalite: a Golem deposits the owner's USDC into the
// local vault while Thriving, leaving part of its approval unspent; just before it falls to Conservation
// the tick revokes that allowance; in Conservation a new deposit is refused; in Declining the tick
// redeems every share to the owner's account, once; and the death record lists each settled position
// with its transaction. The owner ends with exactly the USDC they started with.
import { erc20Abi, getAbiItem, getAddress, type Address, type PublicClient } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TestVaultAbi } from '../../contracts/artifacts/index.ts'
import { executeAction, type ActionOutcome, type ExecuteActionDeps } from '../../app/actions/executeAction.ts'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import { slotBaseOf } from '../../app/tick/slots.ts'
import type { TickResult } from '../../app/tick/types.ts'
import { windDown } from '../../app/tick/windDown.ts'
import { Phase } from '../../core/lifecycle/phase.ts'
import { redeemBase, revokeBase, windDownStep } from '../../core/lifecycle/windDownPlan.ts'
import type { OwnerAccount } from '../../local/devnet.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import {
  DAY,
  USDC,
  passStaggerOffsets,
  phaseTransitions,
  startHeartbeatEnv,
  usdcBalance,
  type HeartbeatEnv,
  freshFeeds,
} from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY = 'Swap USDC for WETH on the router and deposit USDC into the vault, withdraw it later.\nbudget: $50/day'
const ID = 'wd'

let env: HeartbeatEnv
let client: PublicClient
let owner: OwnerAccount
let golem: ProvisionedGolem
let assets: HeartbeatEnv['devnet']['deployment']['assets']
let actionDeps: ExecuteActionDeps
let ownerStart: bigint
const days: TickResult[] = []
const errors: unknown[] = []
let conservationRefusal: ActionOutcome | undefined
let conservationBalances: { before: bigint[]; after: bigint[] } | undefined
let declineDay = -1
let allowanceAfterDeposit = -1n

const shares = () => client.readContract({ address: assets.vault, abi: TestVaultAbi, functionName: 'balanceOf', args: [owner.address] })
const allowance = (spender: Address) =>
  client.readContract({ address: assets.usdc, abi: erc20Abi, functionName: 'allowance', args: [owner.address, spender] })
const ownerUsdc = () => usdcBalance(client, assets.usdc, owner.address)

const phaseAfter = (r: TickResult, before: number) => (r.phase ? r.phase.to : before)

beforeAll(async () => {
  env = await startHeartbeatEnv()
  client = env.client
  assets = env.devnet.deployment.assets
  owner = await env.devnet.createOwner({ usdc: USDC(1_000) })
  ownerStart = await ownerUsdc()
  golem = await provisionGolemIn(env, ID, {
    owner,
    strategy: STRATEGY,
    runwayDays: 14,
  })
  await passStaggerOffsets(env.devnet, [ID])
  await freshFeeds(env)
  actionDeps = { store: env.store, client, deployment: env.devnet.deployment, signers: env.signers, invocationId: 'test-winddown' }
  // Thriving: approve 20 USDC to the vault and deposit 15 of it; 5 stay approved.
  const deposit = await executeAction(actionDeps, {
    golemId: ID,
    requestId: 'deposit-1',
    actions: [
      { kind: 'approve', token: assets.usdc, spender: assets.vault, amount: USDC(20) },
      { kind: 'deposit', vault: assets.vault, assets: USDC(15) },
    ],
  })
  expect(deposit.status).toBe('executed')
  allowanceAfterDeposit = await allowance(assets.vault)

  const invoker = new LocalInvoker((id) => env.deps(id), { onError: (_id, e) => errors.push(e) })
  let phase: number = Phase.Thriving
  for (let day = 0; day < 20; day++) {
    await freshFeeds(env)
    if (phase === Phase.Conservation && !conservationRefusal) {
      const before = [await ownerUsdc(), await shares()]
      conservationRefusal = await executeAction(actionDeps, {
        golemId: ID,
        requestId: 'deposit-2',
        actions: [{ kind: 'deposit', vault: assets.vault, assets: USDC(1) }],
      })
      conservationBalances = { before, after: [await ownerUsdc(), await shares()] }
    }
    const before = invoker.results.length
    await runHeartbeat({ store: env.store, client, deployment: env.devnet.deployment, invoker })
    expect(invoker.results.length - before, `day ${day}: one tick`).toBe(1)
    const r = invoker.results.at(-1)!
    days.push(r)
    const next = phaseAfter(r, phase)
    if (next === Phase.Declining && phase !== Phase.Declining) declineDay = day
    phase = next
    if ((await env.store.getGolem(ID))?.status === 'dead') break
    await env.devnet.increaseTime(DAY)
  }
}, 300_000)
afterAll(async () => env?.stop())

describe('wind-down over a short life', () => {
  it('falls through every phase to death with no failed tick', async () => {
    expect(errors).toEqual([])
    const onChain = await phaseTransitions(client, env.devnet.deployment.vitalityOracle, golem.golemKey)
    expect(onChain.map((t) => t.to)).toEqual([1, 2, 3, 4])
    expect(days.at(-1)?.outcome).toBe('died')
    expect(declineDay).toBeGreaterThan(0)
  })

  it('revokes the unspent allowance just before the fall to Conservation, while the chain still allows approve', async () => {
    const fall = days.find((r) => r.phase?.to === Phase.Conservation)!
    expect(fall.windDown).toEqual({ settled: 1, leftOpen: [] })
    expect(await allowance(assets.vault)).toBe(0n)
    const slot = await env.store.getSlot({ golemId: ID, period: 0n, step: windDownStep(revokeBase(assets.usdc, assets.vault), 0) })
    expect(slot).toMatchObject({ status: 'confirmed', claims: 1 })
    const revoke = await client.getTransactionReceipt({ hash: slot!.txHash! })
    const fallTx = (await phaseTransitions(client, env.devnet.deployment.vitalityOracle, golem.golemKey)).find((t) => t.to === 2)!
    expect(revoke.blockNumber).toBeLessThanOrEqual(fallTx.blockNumber)
    const approvals = await client.getLogs({
      address: assets.usdc,
      event: getAbiItem({ abi: erc20Abi, name: 'Approval' }),
      args: { owner: owner.address, spender: assets.vault },
      fromBlock: 0n,
      toBlock: 'latest',
    })
    expect(allowanceAfterDeposit).toBe(USDC(5))
    expect(approvals.map((l) => [l.args.value, l.transactionHash])).toEqual([
      [USDC(20), expect.anything()],
      [0n, slot!.txHash],
    ])
  })

  it('refuses a new deposit in Conservation, moving nothing', () => {
    expect(conservationRefusal).toMatchObject({
      status: 'refused',
      checkedBy: 'custody',
      refusal: { caveat: 'golemPhase', error: 'ActionNotAllowedInPhase' },
    })
    expect(conservationBalances!.after).toEqual(conservationBalances!.before)
  })

  it("redeems every share to the owner's account in Declining, exactly, once", async () => {
    const declining = days[declineDay]!
    expect(declining.windDown).toEqual({ settled: 2, leftOpen: [] })
    expect(await shares()).toBe(0n)
    const base = redeemBase(assets.vault)
    const slot = await env.store.getSlot({ golemId: ID, period: 0n, step: windDownStep(base, 0) })
    expect(slot).toMatchObject({ status: 'confirmed', claims: 1 })
    expect(await env.store.getSlot({ golemId: ID, period: 0n, step: windDownStep(base, 1) })).toBeNull()
    const withdrawals = await client.getLogs({
      address: assets.vault,
      event: getAbiItem({ abi: TestVaultAbi, name: 'Withdraw' }),
      fromBlock: 0n,
      toBlock: 'latest',
    })
    expect(withdrawals).toHaveLength(1)
    expect(withdrawals[0]!.args).toMatchObject({ receiver: owner.address, owner: owner.address, assets: USDC(15), shares: USDC(15) })
    expect(withdrawals[0]!.transactionHash).toBe(slot!.txHash)
    // Later Declining ticks, and one more wind-down now, find nothing open and send nothing.
    const later = days.slice(declineDay + 1, -1)
    expect(later.length).toBeGreaterThan(0)
    for (const r of later) expect(r.windDown).toEqual({ settled: 2, leftOpen: [] })
    const sentBefore = await client.getTransactionCount({ address: golem.golemKey })
    const deps = env.deps('again')
    const block = await client.getBlock()
    const again = await windDown(deps, slotBaseOf(deps, Number(block.timestamp) * 1000), ID, golem.profile, {
      phase: Phase.Declining,
      scope: 'all',
      signer: () => Promise.reject(new Error('nothing is open: no step may be signed')),
    })
    expect(again.settled).toBe(2)
    expect(again.leftOpen).toEqual([])
    expect(await client.getTransactionCount({ address: golem.golemKey })).toBe(sentBefore)
  })

  it('lists every settled position with its transaction in the death record', async () => {
    const revokeSlot = await env.store.getSlot({ golemId: ID, period: 0n, step: windDownStep(revokeBase(assets.usdc, assets.vault), 0) })
    const redeemSlot = await env.store.getSlot({ golemId: ID, period: 0n, step: windDownStep(redeemBase(assets.vault), 0) })
    const death = await env.store.getDeathSettlement(ID)
    expect(death?.settlement).toMatchObject({
      positionsSettled: [
        {
          kind: 'vault',
          vault: getAddress(assets.vault),
          shares: USDC(15).toString(),
          assets: USDC(15).toString(),
          txHash: redeemSlot!.txHash,
        },
        { kind: 'approval', token: getAddress(assets.usdc), spender: getAddress(assets.vault), txHash: revokeSlot!.txHash },
      ],
      positionsLeftOpen: [],
    })
  })

  it('leaves the owner with exactly the USDC they started with, no shares and no allowance', async () => {
    expect(await ownerUsdc()).toBe(ownerStart)
    expect(await shares()).toBe(0n)
    expect(await allowance(assets.vault)).toBe(0n)
    expect(await allowance(assets.router)).toBe(0n)
    expect(await usdcBalance(client, assets.usdc, golem.golemKey)).toBe(0n)
  })
})
