// A feed's reprieve served by two ticks of one Golem at once (a tick overtaken after its lease): the other
// tick sends the operator's phase reset first and records its PhaseReset; this one loses the reset's slot
// to it, sends nothing and settles the other's transaction. The reset happens once on-chain and its
// PhaseReset is recorded once, at the time of the tick that sent it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import { runTick } from '../../app/tick/runTick.ts'
import { tickEventTime } from '../../core/lifecycle/eventOrder.ts'
import { parseGolemProfile } from '../../core/lifecycle/profile.ts'
import type { ClaimSlotWithTxInput, TickStore } from '../../core/store/index.ts'
import { VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import { storeWith } from '../support/storeWith.ts'
import {
  DAY,
  USDC,
  allEvents,
  creditGolem,
  otherTickClaims,
  phaseTransitions,
  startHeartbeatEnv,
  unsignedOf,
  type HeartbeatEnv,
} from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY =
  '---\nname: fed-twice\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 30\n---\n\nSwap a little USDC into WETH every day.\n'
/** How much earlier than this tick the other one recorded its reset. */
const EARLIER_MS = 30_000

let env: HeartbeatEnv
let golem: ProvisionedGolem

beforeAll(async () => {
  env = await startHeartbeatEnv()
  golem = await provisionGolemIn(env, 'fed-twice', {
    owner: await env.devnet.createOwner(),
    strategy: STRATEGY,
    runwayDays: 30,
  })
  // A day a beat to Declining (day 26), as the reprieve suite lives it.
  const errors: unknown[] = []
  const invoker = new LocalInvoker((id) => env.deps(id), { onError: (_id, e) => errors.push(e) })
  const beat = () => runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
  await beat()
  for (let day = 1; day <= 26; day++) {
    await env.devnet.increaseTime(DAY)
    await beat()
  }
  expect(errors).toEqual([])
  expect((await phaseTransitions(env.client, env.devnet.deployment.vitalityOracle, golem.golemKey)).map((t) => t.to)).toEqual([1, 2, 3])
  // Fed 11 more days of runway: the next tick resets Declining -> Stable.
  await creditGolem(env, 'fed-twice', { kind: 'feed', seconds: 11n * BigInt(DAY), amount: USDC(12), nonceByte: 'cd' })
  await env.devnet.increaseTime(DAY)
}, 240_000)
afterAll(async () => env?.stop())

describe("a reprieve's reset lost to another tick", () => {
  it('is sent once and its PhaseReset recorded once, at the time of the tick that sent it', async () => {
    let other: { txHash: string; sentAt: number } | undefined
    const store = storeWith<TickStore>(env.store, {
      claimSlotWithTx: async (input: ClaimSlotWithTxInput) => {
        if (input.step.startsWith('reprieve-') && input.rawTx && !other) {
          // The other tick: the same reset, signed anew by the operator at the same nonce, claimed
          // EARLIER_MS before this tick's time, sent, and its PhaseReset recorded as it records it.
          const rawTx = await env.deps().operator.signTransaction(unsignedOf(input.rawTx))
          const { txHash, sentAt } = await otherTickClaims(env, input, rawTx, EARLIER_MS)
          const plan = parseGolemProfile((await env.store.getGolem('fed-twice'))!.profile).reprieve!
          await env.store.appendEvent({
            golemId: 'fed-twice',
            type: 'PhaseReset',
            at: tickEventTime(sentAt, 'PhaseReset'),
            eventId: `PhaseReset:${plan.requestedAt}`,
            data: { from: 3, to: 1, reason: 'reprieve', payer: plan.payer, amount: plan.amount.toString() },
          })
          other = { txHash, sentAt }
        }
        return env.store.claimSlotWithTx(input)
      },
    })

    const result = await runTick(env.deps('the-loser', { store }), { golemId: 'fed-twice' })
    expect(other).toBeDefined()
    expect(result.reprieve).toEqual({ from: 3, to: 1 })
    const resets = await env.client.getContractEvents({
      address: env.devnet.deployment.vitalityOracle,
      abi: VitalityOracleAbi,
      eventName: 'PhaseReset',
      args: { golem: golem.golemKey },
      fromBlock: 0n,
    })
    expect(resets.map((l) => l.transactionHash)).toEqual([other!.txHash])
    const recorded = (await allEvents(env.store, 'fed-twice')).filter((e) => e.type === 'PhaseReset')
    expect(recorded.map((e) => e.at)).toEqual([tickEventTime(other!.sentAt, 'PhaseReset')])
  })
})
