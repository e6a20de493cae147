// What every exactly-once send of one tick shares: the store, the chain, the tick's invocation as the
// owner of the slots it claims, the tick's time and how long a claim holds before a retry may take over.
import type { SendOnceParams } from '../../adapters/chain/sendOnce.ts'
import type { TickDeps } from './types.ts'

/** How long a tick owns its Golem and its slots before a retry may take over (ms). */
export const DEFAULT_LEASE_MS = 120_000

export type SlotBase = Pick<SendOnceParams, 'store' | 'client' | 'chainId' | 'owner' | 'now' | 'leaseMs' | 'fees'>

export function slotBaseOf(deps: TickDeps, nowMs: number): SlotBase {
  return {
    store: deps.store,
    client: deps.client,
    chainId: deps.deployment.chainId,
    owner: deps.invocationId,
    now: nowMs,
    leaseMs: deps.leaseMs ?? DEFAULT_LEASE_MS,
    ...(deps.fees ? { fees: deps.fees } : {}),
  }
}
