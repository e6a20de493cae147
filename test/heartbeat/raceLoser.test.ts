// A tick that loses its runway slot to another tick's redemption (a tick overtaken after its lease; the
// other signed first, for another amount) sends nothing of its own and settles the other's from the chain.
// It reports, and records once, what the chain did: the other's transaction and the amount that one's
// signed bytes move, not the amount it planned itself.
import { concatHex, decodeFunctionData, encodeFunctionData, erc20Abi, keccak256, parseTransaction, slice, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runTick } from '../../app/tick/runTick.ts'
import { DelegationManagerAbi } from '../../core/delegations/frameworkAbi.ts'
import { parseGolemProfile } from '../../core/lifecycle/profile.ts'
import type { ClaimSlotWithTxInput, TickStore } from '../../core/store/index.ts'
import { provisionGolem, type ProvisionedGolem } from '../../local/provision.ts'
import { allEvents, chainNow, passStaggerOffsets, periodAt, redemptionsBy, startHeartbeatEnv, type HeartbeatEnv } from './harness.ts'

const STRATEGY =
  '---\nname: race-loser\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 5\n---\n\nSwap a little USDC into WETH every day.\n'
const GOLEM = 'race-loser'

let env: HeartbeatEnv
let golem: ProvisionedGolem

beforeAll(async () => {
  env = await startHeartbeatEnv()
  golem = await provisionGolem({
    clients: env.devnet,
    deployment: env.devnet.deployment,
    store: env.store,
    signers: env.signers,
    owner: await env.devnet.createOwner(),
    golemId: GOLEM,
    strategy: STRATEGY,
    runwayDays: 5,
  })
  await passStaggerOffsets(env.devnet, [GOLEM])
}, 120_000)
afterAll(async () => env?.stop())

/** The same redemption calldata, its first execution's ERC-20 transfer moving `amount` instead. */
function withTransferAmount(data: Hex, amount: bigint): Hex {
  const { args } = decodeFunctionData({ abi: DelegationManagerAbi, data })
  const [contexts, modes, executions] = args as readonly [readonly Hex[], readonly Hex[], readonly Hex[]]
  const execution = executions[0]!
  const call = decodeFunctionData({ abi: erc20Abi, data: slice(execution, 52) })
  const [to] = call.args as readonly [Hex, bigint]
  const transfer = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] })
  return encodeFunctionData({
    abi: DelegationManagerAbi,
    functionName: 'redeemDelegations',
    args: [contexts, modes, [concatHex([slice(execution, 0, 52), transfer]), ...executions.slice(1)]],
  })
}

/** The planned amount of a signed runway redemption. */
function transferAmountOf(rawTx: Hex): bigint {
  const { args } = decodeFunctionData({ abi: DelegationManagerAbi, data: parseTransaction(rawTx).data! })
  const execution = (args as readonly [readonly Hex[], readonly Hex[], readonly Hex[]])[2][0]!
  return (decodeFunctionData({ abi: erc20Abi, data: slice(execution, 52) }).args as readonly [Hex, bigint])[1]
}

describe('a tick that loses its runway slot to another tick', () => {
  it("reports and records the other's redemption with the amount its signed bytes move, and sends nothing", async () => {
    const period = periodAt(golem.profile, await chainNow(env.client))
    const record = await env.store.getGolem(GOLEM)
    const { signer } = await env.signers.resolve(parseGolemProfile(record!.profile))
    let planned: bigint | undefined
    let other: { txHash: Hex; amount: bigint } | undefined
    // Just before this tick's claim, another tick signs the same redemption for half the amount at the
    // same nonce, claims the slot with it and broadcasts it.
    const store = new Proxy(env.store, {
      get(target, key) {
        if (key === 'claimSlotWithTx')
          return async (input: ClaimSlotWithTxInput) => {
            if (input.step === 'runway' && input.rawTx && !other) {
              // The transaction's fields without the loser's signature.
              const { r: _r, s: _s, v: _v, yParity: _y, ...tx } = parseTransaction(input.rawTx)
              planned = transferAmountOf(input.rawTx)
              const amount = planned / 2n
              const rawTx = await signer.signRedemptionTransaction({ ...tx, data: withTransferAmount(tx.data!, amount) }, { spent: amount })
              const txHash = keccak256(rawTx)
              const claimed = await target.claimSlotWithTx({ ...input, owner: 'the-other-tick', txHash, rawTx })
              expect(claimed.claimed).toBe(true)
              await env.client.waitForTransactionReceipt({ hash: await env.client.sendRawTransaction({ serializedTransaction: rawTx }) })
              other = { txHash, amount }
            }
            return target.claimSlotWithTx(input)
          }
        const value = Reflect.get(target, key)
        return typeof value === 'function' ? value.bind(target) : value
      },
    }) as TickStore

    const result = await runTick(env.deps('the-loser', { store }), { golemId: GOLEM })
    expect(other).toBeDefined()
    expect(planned).toBeGreaterThan(other!.amount)
    expect(result.redemption).toMatchObject({ status: 'confirmed', txHash: other!.txHash, amount: other!.amount })

    // One redemption on-chain, the other's; the loser's signature was dropped unsent.
    const onChain = await redemptionsBy(env.client, env.devnet.deployment.environment.DelegationManager, golem.golemKey)
    expect(onChain.map((r) => r.txHash)).toEqual([other!.txHash])
    // Recorded once, with the other's amount.
    const events = (await allEvents(env.store, GOLEM)).filter((e) => e.type === 'RunwayRedeemed')
    expect(events).toHaveLength(1)
    expect(events[0]!.data).toMatchObject({ txHash: other!.txHash, amount: other!.amount.toString(), period: period.toString() })
  })
})
