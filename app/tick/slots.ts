// What every exactly-once send of one tick shares: the store, the chain, the tick's invocation as the
// owner of the slots it claims, the tick's time, how long a claim holds before a retry may take over,
// and how deep a receipt must be before its slot is final (the chain's confirmation depth).
import type { SendOnceParams } from '../../adapters/chain/sendOnce.ts'
import { confirmationDepth } from '../../core/finality.ts'
import type { TickDeps } from './types.ts'

/** How long a tick owns its Golem and its slots before a retry may take over (ms). */
export const DEFAULT_LEASE_MS = 120_000

export type SlotBase = Pick<SendOnceParams, 'store' | 'client' | 'chainId' | 'owner' | 'now' | 'leaseMs' | 'fees'> & {
  confirmations: number
}

export function slotBaseOf(deps: TickDeps, nowMs: number): SlotBase {
  return {
    store: deps.store,
    client: deps.client,
    chainId: deps.deployment.chainId,
    owner: deps.invocationId,
    now: nowMs,
    leaseMs: deps.leaseMs ?? DEFAULT_LEASE_MS,
    confirmations: confirmationDepth(deps.deployment.chainId, deps.confirmations),
    ...(deps.fees ? { fees: deps.fees } : {}),
  }
}
