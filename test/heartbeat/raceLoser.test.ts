// A tick that loses a slot to another tick's transaction (a tick overtaken after its lease; the other
// signed first, for another amount, at another time) sends nothing of its own and settles the other's from
// the chain. It reports, and records once, what the chain did: the other's transaction, the amount that
// one's signed bytes move (not the amount it planned itself), at the time that one was recorded.
import type { ExecutionStruct } from '@metamask/smart-accounts-kit'
import { encodeExecutionCalldatas } from '@metamask/smart-accounts-kit/utils'
import { decodeFunctionData, encodeFunctionData, erc20Abi, parseEther, parseTransaction, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runTick } from '../../app/tick/runTick.ts'
import { DelegationManagerAbi } from '../../core/delegations/frameworkAbi.ts'
import { firstSingleExecution } from '../../core/delegations/redeem.ts'
import { parseGolemProfile } from '../../core/lifecycle/profile.ts'
import type { ClaimSlotWithTxInput, TickStore } from '../../core/store/index.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import { storeWith } from '../support/storeWith.ts'
import {
  allEvents,
  otherTickClaims,
  passStaggerOffsets,
  redemptionsBy,
  startHeartbeatEnv,
  unsignedOf,
  type HeartbeatEnv,
} from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY =
  '---\nname: race-loser\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 5\n---\n\nSwap a little USDC into WETH every day.\n'
const GAS_PER_DAY = parseEther('0.01')
/** Below half a day's gas allowance: the first tick tops the key up from the grant. */
const BOOTSTRAP = parseEther('0.001')
/** How much earlier than the loser the other tick recorded its transaction. */
const EARLIER_MS = 30_000

let env: HeartbeatEnv
const golems = new Map<string, ProvisionedGolem>()

beforeAll(async () => {
  env = await startHeartbeatEnv()
  for (const golemId of ['loses-runway', 'loses-gas'])
    golems.set(
      golemId,
      await provisionGolemIn(env, golemId, {
        owner: await env.devnet.createOwner(),
        strategy: STRATEGY,
        runwayDays: 5,
        gas: { periodAmount: GAS_PER_DAY, bootstrap: BOOTSTRAP },
      }),
    )
  await passStaggerOffsets(env.devnet, [...golems.keys()])
}, 120_000)
afterAll(async () => env?.stop())

/** The first execution of a signed redemption, and the same calldata with that execution rewritten. */
function firstExecution(rawTx: Hex) {
  const data = parseTransaction(rawTx).data!
  const [contexts, modes, executions] = decodeFunctionData({ abi: DelegationManagerAbi, data }).args as readonly [
    readonly Hex[],
    readonly Hex[],
    readonly Hex[],
  ]
  const with_ = (e: ExecutionStruct): Hex =>
    encodeFunctionData({
      abi: DelegationManagerAbi,
      functionName: 'redeemDelegations',
      args: [contexts, modes, [...encodeExecutionCalldatas([[e]]), ...executions.slice(1)]],
    })
  return { execution: firstSingleExecution(data)!, with: with_ }
}

/** The runway's ERC-20 transfer, halved. */
function halfTransfer(e: ExecutionStruct): { execution: ExecutionStruct; amount: bigint } {
  const [to, amount] = decodeFunctionData({ abi: erc20Abi, data: e.callData }).args as readonly [Hex, bigint]
  const half = amount / 2n
  return { execution: { ...e, callData: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, half] }) }, amount: half }
}

/** The gas top-up's native value, halved. */
const halfValue = (e: ExecutionStruct) => ({ execution: { ...e, value: e.value / 2n }, amount: e.value / 2n })

type Race = { planned: bigint; amount: bigint; txHash: Hex; sentAt: number }

/**
 * The tick's store, where just before this tick claims `step` another tick signs the same redemption for
 * half the amount at the same nonce, claims the slot with it (EARLIER_MS before this tick's time) and
 * broadcasts it.
 */
async function raced(
  golemId: string,
  step: 'runway' | 'gas',
  half: (e: ExecutionStruct) => { execution: ExecutionStruct; amount: bigint },
) {
  const record = await env.store.getGolem(golemId)
  const { signer } = await env.signers.resolve(parseGolemProfile(record!.profile))
  const race: { done?: Race } = {}
  const store = storeWith<TickStore>(env.store, {
    claimSlotWithTx: async (input: ClaimSlotWithTxInput) => {
      if (input.step === step && input.rawTx && !race.done) {
        const first = firstExecution(input.rawTx)
        const planned = step === 'runway' ? halfTransfer(first.execution).amount * 2n : first.execution.value
        const other = half(first.execution)
        const rawTx = await signer.signRedemptionTransaction(
          { ...unsignedOf(input.rawTx), data: first.with(other.execution) },
          { spent: other.amount },
        )
        race.done = { planned, amount: other.amount, ...(await otherTickClaims(env, input, rawTx, EARLIER_MS)) }
      }
      return env.store.claimSlotWithTx(input)
    },
  })
  return { store, race }
}

describe('a tick that loses a slot to another tick', () => {
  it("runway: reports and records the other's redemption with the amount its signed bytes move, and sends nothing", async () => {
    const golem = golems.get('loses-runway')!
    const { store, race } = await raced(golem.golemId, 'runway', halfTransfer)
    const result = await runTick(env.deps('the-loser', { store }), { golemId: golem.golemId })
    const other = race.done!
    expect(other.planned).toBeGreaterThan(other.amount)
    expect(result.redemption).toMatchObject({ status: 'confirmed', txHash: other.txHash, amount: other.amount })
    // One runway redemption on-chain besides the gas top-up, the other's; the loser's signature was dropped unsent.
    const onChain = await redemptionsBy(env.client, env.devnet.deployment.environment.DelegationManager, golem.golemKey)
    expect(onChain.map((r) => r.txHash)).toEqual([result.gas!.txHash, other.txHash])
    // Recorded once, with the other's amount, at the time the other recorded its transaction.
    const events = (await allEvents(env.store, golem.golemId)).filter((e) => e.type === 'RunwayRedeemed')
    expect(events.map((e) => [e.data.txHash, e.data.amount, Math.floor(e.at / 1000)])).toEqual([
      [other.txHash, other.amount.toString(), Math.floor(other.sentAt / 1000)],
    ])
  })

  it("gas: reports and records the other's top-up with the value its signed bytes move, at the other's time", async () => {
    const golem = golems.get('loses-gas')!
    const { store, race } = await raced(golem.golemId, 'gas', halfValue)
    const result = await runTick(env.deps('the-loser', { store }), { golemId: golem.golemId })
    const other = race.done!
    expect(other.planned).toBeGreaterThan(other.amount)
    expect(result.gas).toMatchObject({ status: 'confirmed', txHash: other.txHash, amount: other.amount })
    const events = (await allEvents(env.store, golem.golemId)).filter((e) => e.type === 'GasRedeemed')
    expect(events.map((e) => [e.data.txHash, e.data.amount, Math.floor(e.at / 1000)])).toEqual([
      [other.txHash, other.amount.toString(), Math.floor(other.sentAt / 1000)],
    ])
  })
})
