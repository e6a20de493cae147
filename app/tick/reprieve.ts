// Serves a paid feed's reprieve that core/lifecycle/reprievePlan.ts planned: the operator's audited
// phase reset on the VitalityOracle, exactly once (a slot), then its PhaseReset event.
import { encodeFunctionData } from 'viem'
import { VitalityOracleTickAbi } from '../../adapters/chain/oracleAbi.ts'
import type { Phase } from '../../core/lifecycle/phase.ts'
import { tickEventTime } from '../../core/lifecycle/eventOrder.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'
import type { ReprievePlan } from '../../core/lifecycle/reprievePlan.ts'
import type { SlotRef } from '../../core/store/index.ts'
import { sendOnce } from '../../adapters/chain/sendOnce.ts'
import { sentAtOf, type SlotBase } from './slots.ts'
import type { TickDeps } from './types.ts'

/** The phase the Golem was reset to, or undefined when nothing was reset this tick. */
export async function serveReprieve(
  deps: TickDeps,
  slotBase: SlotBase,
  golemId: string,
  profile: GolemProfile,
  plan: ReprievePlan,
): Promise<Phase | undefined> {
  if (plan.kind !== 'reset') return undefined
  const slot: SlotRef = { golemId, period: 0n, step: plan.step }
  const sent = await sendOnce({
    ...slotBase,
    slot,
    build: async () => ({
      sender: deps.operator.address,
      to: deps.deployment.vitalityOracle,
      data: encodeFunctionData({ abi: VitalityOracleTickAbi, functionName: 'resetPhase', args: [profile.golemKey, plan.to, plan.reason] }),
      sign: (tx) => deps.operator.signTransaction(tx),
    }),
  })
  if (sent.status !== 'confirmed' && !(sent.status === 'busy' && sent.reason === 'completed')) return undefined
  // Timed as the tick that sent the reset (the slot's send time), whichever tick records it: a tick that
  // lost the reset to another one writes the same event, recorded once.
  const sentAt = await sentAtOf(deps.store, sent, slot, slotBase.now)
  await deps.store.appendEvent({
    golemId,
    type: 'PhaseReset',
    at: tickEventTime(sentAt, 'PhaseReset'),
    eventId: plan.eventId,
    data: { from: plan.from, to: plan.to, reason: 'reprieve', payer: plan.request.payer, amount: plan.request.amount.toString() },
  })
  return plan.to
}
