// The heartbeat: lists the Golems that are due, reads all of them from the chain in one batch (one
// block read and one multicall per page), and hands each Golem with its observation to a tick. The
// invoker decides how: in-process locally, asynchronous Lambda invocations on AWS.
import type { PublicClient } from 'viem'
import type { BardoDeployment } from '../../core/deployment.ts'
import type { TickFees } from '../../core/fees.ts'
import { parseGolemProfile } from '../../core/lifecycle/profile.ts'
import type { Store } from '../../core/store/index.ts'
import { readGolems } from '../../adapters/chain/readGolems.ts'
import { readRequestOf, type ObservedGolem } from '../../core/lifecycle/observation.ts'

/** `fees`: the heartbeat block's fee data, so a tick prices its transactions without reading fees itself. */
export type TickRequest = { golemId: string; observed?: ObservedGolem; fees?: TickFees }

export interface TickInvoker {
  /** Hands a batch of ticks over. Returns once they are handed over (Lambda) or done (local). */
  invoke(requests: readonly TickRequest[]): Promise<void>
}

export type HeartbeatDeps = {
  store: Store
  client: PublicClient
  deployment: BardoDeployment
  invoker: TickInvoker
  /** Golems per store page and per multicall. */
  pageSize?: number
  /** Golems per invocation handed to the invoker. */
  batchSize?: number
}

export type HeartbeatResult = { due: number; invoked: number; skipped: number; blockNumber: bigint; timestamp: bigint }

export async function runHeartbeat(deps: HeartbeatDeps): Promise<HeartbeatResult> {
  const block = await deps.client.getBlock({ blockTag: 'latest' })
  // Chain time is the clock: an accelerated local life and a real chain behave the same way.
  const nowMs = Number(block.timestamp) * 1000
  const pageSize = deps.pageSize ?? 200
  const batchSize = deps.batchSize ?? 10
  let cursor: string | null = null
  let due = 0
  let invoked = 0
  let skipped = 0
  let fees: Promise<TickFees | undefined> | undefined
  do {
    const page = await deps.store.listDueGolems({ now: nowMs, limit: pageSize, cursor })
    cursor = page.cursor
    due += page.golems.length
    const records = await Promise.all(page.golems.map((g) => deps.store.getGolem(g.golemId)))
    const readable = records.flatMap((r) => {
      if (!r || r.status === 'dead' || r.profile === null) return []
      try {
        return [{ golemId: r.golemId, profile: parseGolemProfile(r.profile) }]
      } catch {
        return []
      }
    })
    skipped += page.golems.length - readable.length
    if (readable.length === 0) continue
    const batch = await readGolems(
      deps.client,
      deps.deployment,
      readable.map((g) => readRequestOf(g.golemId, g.profile)),
      { number: block.number, timestamp: block.timestamp },
    )
    // Read once per heartbeat, and only when a tick is handed over: an empty beat pays nothing for it.
    fees ??= feesAt(deps.client, block.baseFeePerGas)
    const tickFees = await fees
    const requests: TickRequest[] = batch.golems.map((g) => ({
      golemId: g.golemId,
      observed: { ...g, timestamp: batch.timestamp },
      ...(tickFees ? { fees: tickFees } : {}),
    }))
    for (let i = 0; i < requests.length; i += batchSize) {
      const slice = requests.slice(i, i + batchSize)
      await deps.invoker.invoke(slice)
      invoked += slice.length
    }
  } while (cursor !== null)
  return { due, invoked, skipped, blockNumber: block.number, timestamp: block.timestamp }
}

/**
 * The block's base fee and the node's priority fee. None on a chain without EIP-1559, or when the fee
 * read fails: the ticks then read their own, so a failed fee read never stops a heartbeat.
 */
async function feesAt(client: PublicClient, baseFeePerGas: bigint | null | undefined): Promise<TickFees | undefined> {
  if (baseFeePerGas === null || baseFeePerGas === undefined) return undefined
  const maxPriorityFeePerGas = await client.estimateMaxPriorityFeePerGas().catch(() => null)
  return maxPriorityFeePerGas === null ? undefined : { baseFeePerGas, maxPriorityFeePerGas }
}
