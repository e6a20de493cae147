// Executes the gas step core/lifecycle/gasPlan.ts plans: one redemption of the owner's native-token gas
// grant to the Golem's own key, through the period's `gas` slot (sendOnce), so duplicate or retried
// ticks top up at most once a period; one that reverted or was never mined goes on under the period's
// next attempt, at most MAX_REDEMPTION_ATTEMPTS.
import type { GolemSigner } from '../../core/custody/golemSigner.ts'
import { encodeRedemptions, signedExecutionValue } from '../../core/delegations/redeem.ts'
import type { CustodyEvent } from '../../core/lifecycle/custodyEvents.ts'
import type { GasStep } from '../../core/lifecycle/gasPlan.ts'
import { ATTEMPTS_SPENT, MAX_REDEMPTION_ATTEMPTS } from '../../core/lifecycle/tickPlan.ts'
import { isSpent, type SlotRef } from '../../core/store/index.ts'
import { toDelegations, type GolemProfile } from '../../core/lifecycle/profile.ts'
import { sendOnce } from '../../adapters/chain/sendOnce.ts'
import { attemptsOf, movedAmount, sendAttempts, sentAtSeconds, type SlotBase } from './slots.ts'
import type { TickDeps, TickResult } from './types.ts'

export async function topUpGas(
  deps: TickDeps,
  slotBase: SlotBase,
  golemId: string,
  profile: GolemProfile,
  step: GasStep,
  signer: GolemSigner,
): Promise<{ result: NonNullable<TickResult['gas']>; event?: CustodyEvent }> {
  if (step.kind === 'none' || !profile.gas)
    return { result: { status: 'skipped', reason: step.kind === 'none' ? step.reason : 'no gas grant' } }
  const chain = toDelegations(profile.gas.chain)
  const first = { golemId, ...step.slot }
  // The period's attempts up to the first not spent (one read when none was): a top-up that reverted once
  // mined (the owner moved the ETH after the simulation) or was never mined goes on under the next.
  const attempts = await attemptsOf(deps.store, first, MAX_REDEMPTION_ATTEMPTS)
  if (isSpent(attempts.at(-1)?.slot?.status))
    return {
      result: {
        status: ATTEMPTS_SPENT,
        reason: `this period's ${MAX_REDEMPTION_ATTEMPTS} top-up attempts were sent and none landed: the next period tops up again`,
      },
    }
  const sendAttempt = (slot: SlotRef) =>
    sendOnce({
      ...slotBase,
      slot,
      afterBroadcast: () => deps.afterBroadcast?.('gas'),
      build: async () => ({
        sender: signer.address,
        to: deps.deployment.environment.DelegationManager,
        // The kit's native-token periodic shape: a plain value transfer to the key, no calldata.
        data: encodeRedemptions([{ chain, executions: [{ target: step.recipient, value: step.amount, callData: '0x' }] }]),
        sign: (tx) => signer.signRedemptionTransaction(tx),
      }),
    })
  const { sent } = await sendAttempts(deps.store, {
    first,
    from: attempts.length,
    max: MAX_REDEMPTION_ATTEMPTS,
    send: sendAttempt,
  })
  const txHash = 'txHash' in sent ? sent.txHash : null
  // A tick that lost the slot to an earlier one reports that one's top-up: the value its signed bytes move.
  const amount = movedAmount(sent, signedExecutionValue, step.amount)
  const result = { status: sent.status, amount, txHash, ...('reason' in sent ? { reason: sent.reason } : {}) }
  if (sent.status !== 'confirmed') return { result }
  // At the time the slot's transaction was recorded, as a later tick settling the slot writes it: the
  // same event, written once whoever writes it.
  return { result, event: { type: 'GasRedeemed', at: sentAtSeconds(sent.sentAt), amount, txHash: sent.txHash, period: step.slot.period } }
}
