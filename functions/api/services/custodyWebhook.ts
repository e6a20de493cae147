// The Alchemy Notify webhook behind POST /api/v1/webhooks/alchemy: remembers each delivery id once, finds
// the Golems a block's custody signals concern (store lookups by owner and by session key, then
// core/webhooks' wake plan) and hands their ticks to the same invoker the heartbeat uses (in-process
// locally, asynchronous Lambda invocations when deployed).
import type { Store } from '../../../core/store/index.ts'
import { StoreConflictError } from '../../../core/store/errors.ts'
import {
  golemLookups,
  MAX_NOTIFICATION_AGE_MS,
  planWake,
  type AlchemySigningKey,
  type CustodyContracts,
  type CustodySignal,
  type WakeDecision,
} from '../../../core/webhooks/index.ts'
import type { TickInvoker } from '../../../app/heartbeat/handOver.ts'

export interface CustodyWebhook {
  readonly signingKey: AlchemySigningKey
  readonly contracts: CustodyContracts
  /** Records a delivery id; false when it was recorded before (a retry or a replay). */
  claimDelivery(id: string, nowMs: number): Promise<boolean>
  /** Ticks the Golems the signals concern, now; resolves once the ticks are handed over (or done, locally). */
  wake(signals: readonly CustodySignal[]): Promise<WakeDecision[]>
}

export type StoreCustodyWebhookOptions = {
  store: Store
  invoker: TickInvoker
  signingKey: AlchemySigningKey
  contracts: CustodyContracts
}

/** Delivery ids share the single-use nonce records with Clade, under their own prefix. */
const DELIVERY_PREFIX = 'alchemy-notify:'

export function storeCustodyWebhook(o: StoreCustodyWebhookOptions): CustodyWebhook {
  return {
    signingKey: o.signingKey,
    contracts: o.contracts,
    async claimDelivery(id, nowMs) {
      try {
        // Kept twice as long as a delivery is accepted: by then its age alone refuses it.
        await o.store.issueNonce({ nonce: `${DELIVERY_PREFIX}${id}`, issuedAt: nowMs, expiresAt: nowMs + 2 * MAX_NOTIFICATION_AGE_MS })
        return true
      } catch (error) {
        if (error instanceof StoreConflictError) return false
        throw error
      }
    },
    async wake(signals) {
      const { owners, sessionKeys } = golemLookups(signals)
      const found = await Promise.all([
        ...owners.map((owner) => o.store.findGolems({ owner })),
        ...sessionKeys.map((sessionKey) => o.store.findGolems({ sessionKey })),
      ])
      const decisions = planWake(signals, found.flat())
      if (decisions.length > 0) await o.invoker.invoke(decisions.map((d) => ({ golemId: d.golemId })))
      return decisions
    },
  }
}
