// Reorg-safe sends on anvil, with a confirmation depth of 6 blocks (anvil's default is 1: a local chain
// reorgs only when asked). A Golem's first tick tops its key up with gas and redeems its runway; both
// transactions are mined one block deep, not final, and their slots stay `sent`. Then the chain loses
// them: an evm_revert to a snapshot taken before them (the blocks are gone, and the transactions with
// them), or an anvil_reorg that replaces their blocks. The next tick finds each gone with its nonce
// unused and broadcasts the same signed transaction again (same hash, same nonce, never a new
// signature); one transaction that someone else re-mined first is reconciled to its new receipt. Once
// 6 blocks deep the slots complete and each event is written once. Every
// case ends with the owner's USDC and gas moved to the key exactly once, to the unit.
import { parseEther, type Address, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runTick } from '../../app/tick/runTick.ts'
import type { TickDeps, TickResult } from '../../app/tick/types.ts'
import { gasPeriodAt } from '../../core/lifecycle/gasPlan.ts'
import { FinalityConfigError } from '../../core/finality.ts'
import type { OwnerAccount } from '../../local/devnet.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import {
  DAY,
  USDC,
  allEvents,
  passStaggerOffsets,
  periodAt,
  phaseTransitions,
  redemptionsBy,
  startHeartbeatEnv,
  usdcBalance,
  usdcTransfersFrom,
  type HeartbeatEnv,
  WHOLE_RUNWAY_ON_KEY,
} from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY =
  '---\nname: reorg-golem\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 5\n---\n\nSwap a little USDC into WETH every day.\n'
const GAS_PER_DAY = parseEther('0.01')
/** Below half a day's gas allowance: the first tick tops the key up from the grant. */
const BOOTSTRAP = parseEther('0.001')
/** Deep enough that no tick of a case makes a send final by the blocks it mines itself (anvil may mine a re-sent transaction and the one queued behind it in one block or two). */
const DEPTH = 6

let env: HeartbeatEnv
const deps = (id: string, overrides: Partial<TickDeps> = {}) => env.deps(id, { confirmations: { 31337: DEPTH }, ...overrides })
const rpc = (method: string, params: unknown[] = []) => env.client.request({ method: method as never, params: params as never })

beforeAll(async () => {
  env = await startHeartbeatEnv()
}, 120_000)

afterAll(async () => {
  await env?.stop()
})

type Provisioned = ProvisionedGolem & { owner: OwnerAccount }

async function provision(golemId: string): Promise<Provisioned> {
  const owner = await env.devnet.createOwner({ usdc: USDC(1_000) })
  const golem = await provisionGolemIn(env, golemId, {
    keyCeiling: WHOLE_RUNWAY_ON_KEY,
    owner,
    strategy: STRATEGY,
    runwayDays: 5,
    gas: { periodAmount: GAS_PER_DAY, bootstrap: BOOTSTRAP },
  })
  await passStaggerOffsets(env.devnet, [golemId])
  return { ...golem, owner }
}

type Balances = { ownerUsdc: bigint; keyUsdc: bigint; ownerEth: bigint }
async function balances(golem: Provisioned): Promise<Balances> {
  const usdc = env.devnet.deployment.assets.usdc
  return {
    ownerUsdc: await usdcBalance(env.client, usdc, golem.owner.address),
    keyUsdc: await usdcBalance(env.client, usdc, golem.golemKey),
    ownerEth: await env.client.getBalance({ address: golem.owner.address }),
  }
}

/** Mines until the head is `DEPTH - 1` blocks past the block of `txHash`: the receipt is then `DEPTH` deep. */
async function mineToDepth(txHash: Hex): Promise<void> {
  const { blockNumber } = await env.client.getTransactionReceipt({ hash: txHash })
  const head = await env.client.getBlockNumber({ cacheTime: 0 })
  const missing = blockNumber + BigInt(DEPTH - 1) - head
  if (missing > 0n) await rpc('anvil_mine', [`0x${missing.toString(16)}`])
}

/** The key's transactions to the DelegationManager mined on the canonical chain (every redemption it sent). */
async function redemptionCount(golem: Provisioned): Promise<number> {
  return (await redemptionsBy(env.client as never, env.devnet.deployment.environment.DelegationManager, golem.golemKey as Address)).length
}

describe('a runway redemption and a gas top-up reorged out by evm_revert', () => {
  let golem: Provisioned
  let before: Balances
  let first: TickResult
  let second: TickResult
  let final: TickResult
  let runwayTx: Hex
  let gasTx: Hex

  it('the first tick mines both, one block deep: pending, slots left `sent`, no event yet', async () => {
    golem = await provision('reorg-revert')
    before = await balances(golem)
    const snapshot = await rpc('evm_snapshot')
    first = await runTick(deps('revert-1'), { golemId: golem.golemId })
    expect(first.redemption).toMatchObject({ status: 'pending' })
    expect(first.gas).toMatchObject({ status: 'pending', amount: GAS_PER_DAY })
    runwayTx = first.redemption!.txHash as Hex
    gasTx = first.gas!.txHash as Hex
    const amount = first.redemption!.amount!
    expect(amount).toBeGreaterThan(0n)
    expect((await balances(golem)).keyUsdc).toBe(before.keyUsdc + amount)
    const period = periodAt(golem.profile, await chainTime())
    expect(await env.store.getSlot({ golemId: golem.golemId, period, step: 'runway' })).toMatchObject({ status: 'sent', txHash: runwayTx })
    expect((await allEvents(env.store, golem.golemId)).map((e) => e.type)).not.toContain('RunwayRedeemed')
    expect(await redemptionCount(golem)).toBe(2)
    // The chain loses the blocks that carried both transactions.
    await rpc('evm_revert', [snapshot])
    expect(await balances(golem)).toEqual(before)
    expect(await redemptionCount(golem)).toBe(0)
  }, 120_000)

  it('the next tick finds both gone and broadcasts the same signed transactions again: same hashes, not final yet', async () => {
    await env.devnet.increaseTime(60)
    const nonceBefore = await env.client.getTransactionCount({ address: golem.golemKey, blockTag: 'latest' })
    second = await runTick(deps('revert-2'), { golemId: golem.golemId })
    expect(second.redemption).toMatchObject({ status: 'pending', txHash: runwayTx, reason: 'settled from an earlier tick' })
    // The gas slot was settled before the tick planned: the re-broadcast top-up is this period's, the plan sees it mined.
    expect(second.gas?.status).not.toBe('confirmed')
    expect(await env.client.getTransactionCount({ address: golem.golemKey, blockTag: 'latest' })).toBe(nonceBefore + 2)
    expect((await env.client.getTransaction({ hash: runwayTx })).blockNumber).not.toBeNull()
    expect((await env.client.getTransaction({ hash: gasTx })).blockNumber).not.toBeNull()
  }, 120_000)

  it('once 6 blocks deep a later tick completes both slots and writes each event once', async () => {
    await mineToDepth(runwayTx)
    final = await runTick(deps('revert-3'), { golemId: golem.golemId })
    expect(final.redemption).toMatchObject({ status: 'confirmed', txHash: runwayTx })
    const now = await chainTime()
    const period = periodAt(golem.profile, now)
    expect(await env.store.getSlot({ golemId: golem.golemId, period, step: 'runway' })).toMatchObject({
      status: 'confirmed',
      claims: 1,
      txHash: runwayTx,
    })
    const gasSlot = await env.store.getSlot({ golemId: golem.golemId, period: gasPeriodAt(golem.profile.gas!, now), step: 'gas' })
    expect(gasSlot).toMatchObject({ status: 'confirmed', claims: 1, txHash: gasTx })
    const events = await allEvents(env.store, golem.golemId)
    expect(events.filter((e) => e.type === 'RunwayRedeemed').map((e) => e.data.txHash)).toEqual([runwayTx])
    expect(events.filter((e) => e.type === 'GasRedeemed').map((e) => [e.data.txHash, BigInt(e.data.amount as string)])).toEqual([
      [gasTx, GAS_PER_DAY],
    ])
  }, 120_000)

  it('money moved exactly once: the runway and the gas, to the unit', async () => {
    const after = await balances(golem)
    const amount = first.redemption!.amount!
    expect(after.ownerUsdc).toBe(before.ownerUsdc - amount)
    expect(after.keyUsdc).toBe(before.keyUsdc + amount)
    expect(after.ownerEth).toBe(before.ownerEth - GAS_PER_DAY)
    expect(await redemptionCount(golem)).toBe(2)
    // Ticks on a final slot send nothing more.
    await env.devnet.increaseTime(60)
    const again = await runTick(deps('revert-4'), { golemId: golem.golemId })
    expect(again.redemption?.status).not.toBe('pending')
    expect(await redemptionCount(golem)).toBe(2)
    expect(await balances(golem)).toEqual(after)
  }, 120_000)
})

describe('a runway redemption re-mined by someone else after the reorg', () => {
  it('is reconciled to its new receipt, never sent again: the USDC moves once', async () => {
    const golem = await provision('reorg-remined')
    const before = await balances(golem)
    const snapshot = await rpc('evm_snapshot')
    const first = await runTick(deps('remined-1'), { golemId: golem.golemId })
    expect(first.redemption).toMatchObject({ status: 'pending' })
    const runwayTx = first.redemption!.txHash as Hex
    const now = await chainTime()
    const raws = [
      await rawOf(golem.golemId, gasPeriodAt(golem.profile.gas!, now), 'gas'),
      await rawOf(golem.golemId, periodAt(golem.profile, now), 'runway'),
    ]
    const firstBlock = (await env.client.getTransactionReceipt({ hash: runwayTx })).blockNumber
    await rpc('evm_revert', [snapshot])
    // A new chain of two empty blocks, then anyone re-broadcasts the public signed bytes into a later block.
    await rpc('anvil_mine', ['0x2'])
    for (const raw of raws) await env.client.sendRawTransaction({ serializedTransaction: raw })
    // anvil mines a sent transaction on its own schedule, not before answering the send: wait for it.
    const reMined = (await env.client.waitForTransactionReceipt({ hash: runwayTx })).blockNumber
    expect(reMined).toBeGreaterThan(firstBlock)
    await env.devnet.increaseTime(60)
    const nonce = await env.client.getTransactionCount({ address: golem.golemKey, blockTag: 'latest' })
    const second = await runTick(deps('remined-2'), { golemId: golem.golemId })
    expect(second.redemption).toMatchObject({ status: 'pending', txHash: runwayTx })
    expect(await env.client.getTransactionCount({ address: golem.golemKey, blockTag: 'latest' })).toBe(nonce)
    await mineToDepth(runwayTx)
    const third = await runTick(deps('remined-3'), { golemId: golem.golemId })
    expect(third.redemption).toMatchObject({ status: 'confirmed', txHash: runwayTx })
    const after = await balances(golem)
    const amount = first.redemption!.amount!
    expect(after.ownerUsdc).toBe(before.ownerUsdc - amount)
    expect(after.keyUsdc).toBe(before.keyUsdc + amount)
    expect(after.ownerEth).toBe(before.ownerEth - GAS_PER_DAY)
    expect(await redemptionCount(golem)).toBe(2)
  }, 120_000)
})

describe('a runway redemption dropped by anvil_reorg in a later period', () => {
  it('is broadcast again as signed and completes once: one redemption per period', async () => {
    const golem = await provision('reorg-shallow')
    const day1 = await runTick(deps('shallow-1'), { golemId: golem.golemId })
    expect(day1.redemption).toMatchObject({ status: 'pending' })
    await mineToDepth(day1.redemption!.txHash as Hex)
    await env.devnet.increaseTime(DAY)
    const before = await balances(golem)
    // The next period's tick settles day 1 (final now) and redeems day 2, one block deep.
    const day2 = await runTick(deps('shallow-2'), { golemId: golem.golemId })
    expect(day2.redemption).toMatchObject({ status: 'pending' })
    const day2Tx = day2.redemption!.txHash as Hex
    const events = await allEvents(env.store, golem.golemId)
    expect(events.filter((e) => e.type === 'RunwayRedeemed').map((e) => e.data.txHash)).toEqual([day1.redemption!.txHash])
    // Its block is replaced by an empty one.
    await rpc('anvil_reorg', [1, []])
    expect(await balances(golem)).toEqual(before)
    const nonce = await env.client.getTransactionCount({ address: golem.golemKey, blockTag: 'latest' })
    const again = await runTick(deps('shallow-3'), { golemId: golem.golemId })
    expect(again.redemption).toMatchObject({ status: 'pending', txHash: day2Tx })
    expect(await env.client.getTransactionCount({ address: golem.golemKey, blockTag: 'latest' })).toBe(nonce + 1)
    await mineToDepth(day2Tx)
    const done = await runTick(deps('shallow-4'), { golemId: golem.golemId })
    expect(done.redemption).toMatchObject({ status: 'confirmed', txHash: day2Tx })
    const amount = day2.redemption!.amount!
    const after = await balances(golem)
    expect(after.ownerUsdc).toBe(before.ownerUsdc - amount)
    expect(after.keyUsdc).toBe(before.keyUsdc + amount)
    const all = await allEvents(env.store, golem.golemId)
    expect(all.filter((e) => e.type === 'RunwayRedeemed').map((e) => e.data.txHash)).toEqual([day1.redemption!.txHash, day2Tx])
    // Day 1's top-up and runway, day 2's runway: three redemptions, each mined once.
    expect(await redemptionCount(golem)).toBe(3)
  }, 120_000)
})

describe('a gas top-up, a phase post and a runway redemption of one tick, reorged out together', () => {
  it('each is broadcast again as signed, the phase post behind its missing nonce too, and each lands once', async () => {
    const golem = await provision('reorg-phase')
    const oracle = env.devnet.deployment.vitalityOracle
    await env.devnet.increaseTime(3 * DAY) // day 3 of a 5-day runway: Stable
    const before = await balances(golem)
    const snapshot = await rpc('evm_snapshot')
    const first = await runTick(deps('phase-1'), { golemId: golem.golemId })
    expect(first.gas).toMatchObject({ status: 'pending' })
    expect(first.phase).toMatchObject({ from: 0, to: 1, posted: false })
    expect(first.redemption).toMatchObject({ status: 'pending' })
    expect(await phaseTransitions(env.client, oracle, golem.golemKey)).toHaveLength(1)
    expect((await env.store.getGolem(golem.golemId))?.phase).toBe('Thriving')
    const nonce = await env.client.getTransactionCount({ address: golem.golemKey, blockTag: 'latest' })
    await rpc('evm_revert', [snapshot])
    expect(await phaseTransitions(env.client, oracle, golem.golemKey)).toEqual([])
    const reverted = await env.client.getTransactionCount({ address: golem.golemKey, blockTag: 'latest' })
    expect(reverted).toBe(nonce - 3)

    // Settling re-sends the top-up and the redemption (held behind the phase post's nonce); the plan posts
    // the phase again, which re-sends the post's signed bytes: all three land, none signed anew.
    await env.devnet.increaseTime(60)
    const second = await runTick(deps('phase-2'), { golemId: golem.golemId })
    expect(second.redemption).toMatchObject({ status: 'pending', txHash: first.redemption!.txHash })
    expect(await env.client.getTransactionCount({ address: golem.golemKey, blockTag: 'latest' })).toBe(nonce)
    for (const hash of [first.gas!.txHash, first.redemption!.txHash] as Hex[])
      expect((await env.client.getTransactionReceipt({ hash })).status).toBe('success')
    const transitions = await phaseTransitions(env.client, oracle, golem.golemKey)
    expect(transitions.map((t) => [t.from, t.to])).toEqual([[0, 1]])

    // One more tick before the post is final: the record takes the phase from the chain, the post's slot is still open.
    await env.devnet.increaseTime(60)
    await runTick(deps('phase-3'), { golemId: golem.golemId })
    expect((await env.store.getGolem(golem.golemId))?.phase).toBe('Stable')
    expect(await env.store.getSlot({ golemId: golem.golemId, period: 0n, step: 'phase-1' })).toMatchObject({ status: 'sent' })
    expect((await allEvents(env.store, golem.golemId)).map((e) => e.type)).not.toContain('PhaseChanged')

    await mineToDepth(transitions[0]!.txHash)
    await mineToDepth(first.redemption!.txHash as Hex)
    await env.devnet.increaseTime(60)
    const last = await runTick(deps('phase-4'), { golemId: golem.golemId })
    expect(last.outcome).toBe('ticked')
    expect(await env.store.getSlot({ golemId: golem.golemId, period: 0n, step: 'phase-1' })).toMatchObject({
      status: 'confirmed',
      claims: 1,
    })
    const events = await allEvents(env.store, golem.golemId)
    expect(events.filter((e) => e.type === 'PhaseChanged').map((e) => [e.data.from, e.data.to])).toEqual([[0, 1]])
    expect(events.filter((e) => e.type === 'RunwayRedeemed').map((e) => e.data.txHash)).toEqual([first.redemption!.txHash])
    expect(events.filter((e) => e.type === 'GasRedeemed').map((e) => e.data.txHash)).toEqual([first.gas!.txHash])
    const after = await balances(golem)
    const amount = first.redemption!.amount!
    expect(after.ownerUsdc).toBe(before.ownerUsdc - amount)
    expect(after.keyUsdc).toBe(before.keyUsdc + amount)
    expect(after.ownerEth).toBe(before.ownerEth - GAS_PER_DAY)
    expect(await redemptionCount(golem)).toBe(2)
    expect(await phaseTransitions(env.client, oracle, golem.golemKey)).toHaveLength(1)
  }, 180_000)
})

describe("the death protocol's return of the key's USDC to the owner, reorged out", () => {
  it('is broadcast again as signed and lands once: the owner gets what the key held, exactly once', async () => {
    const golem = await provision('reorg-death')
    const usdc = env.devnet.deployment.assets.usdc
    // Day one at anvil's own depth of 1: the runway and the gas are on the key, final.
    const day1 = await runTick(deps('death-day1', { confirmations: { 31337: 1 } }), { golemId: golem.golemId })
    expect(day1.redemption).toMatchObject({ status: 'confirmed' })
    const held = await usdcBalance(env.client, usdc, golem.golemKey)
    expect(held).toBeGreaterThan(0n)
    const ownerBefore = await usdcBalance(env.client, usdc, golem.owner.address)
    await env.devnet.increaseTime(5 * DAY + 60) // the runway has ended: Terminal, the Golem dies
    let returnTx: Hex | null = null
    let last: TickResult | null = null
    for (let i = 0; i < 20 && last?.outcome !== 'died'; i++) {
      const snapshot = await rpc('evm_snapshot')
      last = await runTick(deps(`death-${i}`), { golemId: golem.golemId })
      const returned = await usdcTransfersFrom(env.client, usdc, golem.golemKey)
      if (returnTx === null && returned.length === 1) {
        // The block that carried the return is taken away; its transfer goes with it.
        returnTx = returned[0]!.txHash
        expect(last.outcome).not.toBe('died')
        await rpc('evm_revert', [snapshot])
        expect(await usdcTransfersFrom(env.client, usdc, golem.golemKey)).toEqual([])
        expect(await usdcBalance(env.client, usdc, golem.golemKey)).toBe(held)
      } else {
        await rpc('anvil_mine', [`0x${(DEPTH - 1).toString(16)}`])
      }
      // Past the tick's lease: a dying Golem's next tick may take it.
      await env.devnet.increaseTime(150)
    }
    expect(returnTx).not.toBeNull()
    expect(last?.outcome).toBe('died')
    const returned = await usdcTransfersFrom(env.client, usdc, golem.golemKey)
    expect(returned).toHaveLength(1)
    expect(returned[0]).toMatchObject({ txHash: returnTx, to: golem.owner.address, value: held })
    expect(await usdcBalance(env.client, usdc, golem.golemKey)).toBe(0n)
    expect(await usdcBalance(env.client, usdc, golem.owner.address)).toBe(ownerBefore + held)
    const settlement = (await env.store.getDeathSettlement(golem.golemId))?.settlement as {
      fundsReturned: { asset: string; status: string; txHash: string | null }[]
    }
    expect(settlement.fundsReturned.find((f) => f.asset === usdc)).toMatchObject({ status: 'returned', txHash: returnTx })
  }, 180_000)
})

describe('a bad confirmation depth', () => {
  it('fails the tick naming the field and the rule, and changes nothing', async () => {
    const golem = await provision('reorg-badconfig')
    const record = await env.store.getGolem(golem.golemId)
    const before = await balances(golem)
    await expect(runTick(deps('bad-1', { confirmations: { 31337: 0 } }), { golemId: golem.golemId })).rejects.toThrowError(
      FinalityConfigError,
    )
    await expect(runTick(deps('bad-2', { confirmations: { 31337: 0 } }), { golemId: golem.golemId })).rejects.toThrowError(
      'confirmations[31337]: must be a whole number of blocks from 1 to 1000, got 0',
    )
    expect(await env.store.getGolem(golem.golemId)).toEqual(record)
    expect(await balances(golem)).toEqual(before)
  }, 120_000)
})

async function chainTime(): Promise<bigint> {
  return (await env.client.getBlock({ blockTag: 'latest' })).timestamp
}

/** The signed bytes a slot recorded: public data, what anyone who saw the transaction can broadcast again. */
async function rawOf(golemId: string, period: bigint, step: string): Promise<Hex> {
  const slot = await env.store.getSlot({ golemId, period, step })
  if (!slot?.rawTx) throw new Error(`no signed transaction recorded in ${golemId}/${period}/${step}`)
  return slot.rawTx
}
