// A paid feed (x402 /feed) asks for a reprieve: the operator's audited, evented phase reset on the
// VitalityOracle (errata 5) to the phase the fed vitality points to — never higher than that, never for
// a dying Golem. The API records the request in the profile; the tick serves it exactly once (a slot).
import { encodeFunctionData } from 'viem'
import { VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import { phaseForVitality, type Phase } from '../../core/lifecycle/phase.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'
import { sendOnce } from '../../adapters/chain/sendOnce.ts'
import type { ObservedGolem, TickDeps } from './types.ts'

export type ReprieveOutcome = { served: boolean; resetTo?: Phase }

export async function serveReprieve(
  deps: TickDeps,
  slotBase: { store: TickDeps['store']; client: TickDeps['client']; chainId: number; owner: string; now: number; leaseMs: number },
  golemId: string,
  profile: GolemProfile,
  read: ObservedGolem,
  vitality: number,
): Promise<ReprieveOutcome> {
  const request = profile.reprieve
  if (!request || !read.registered) return { served: false }
  const target = phaseForVitality(vitality)
  // Fed, but the fed vitality still points where the Golem is (or further on): nothing to reset.
  if (target >= read.phase) return { served: true }
  const sent = await sendOnce({
    ...slotBase,
    slot: { golemId, period: 0n, step: `reprieve-${request.requestedAt}` },
    build: async () => ({
      sender: deps.operator.address,
      to: deps.deployment.vitalityOracle,
      data: encodeFunctionData({
        abi: VitalityOracleAbi,
        functionName: 'resetPhase',
        args: [profile.golemKey, target, `reprieve: fed ${request.amount} by ${request.payer}`],
      }),
      sign: (tx) => deps.operator.signTransaction(tx),
    }),
  })
  if (sent.status !== 'confirmed' && !(sent.status === 'busy' && sent.reason === 'completed')) return { served: false }
  await deps.store.appendEvent({
    golemId,
    type: 'PhaseReset',
    at: slotBase.now,
    eventId: `PhaseReset:${request.requestedAt}`,
    data: { from: read.phase, to: target, reason: 'reprieve', payer: request.payer, amount: request.amount.toString() },
  })
  return { served: true, resetTo: target }
}
