// The heartbeat -> shard walker message (one SQS message per due shard): which shard, and the block the
// whole minute reads at, so every walker observes the chain at one block. Validated on arrival.
import * as z from 'zod/v4'

export type ShardWalk = {
  shard: number
  /** The block the heartbeat read: every walker's multicall reads at it; its time is "now". */
  blockNumber: bigint
  timestamp: bigint
  /** Wall-clock ms when the heartbeat sent it: a walk older than a minute is replaced by a fresher one. */
  dispatchedAt: number
}

const big = z
  .string()
  .regex(/^\d+$/)
  .transform((v) => BigInt(v))
const walk = z.object({
  shard: z.number().int().min(0),
  blockNumber: big,
  timestamp: big,
  dispatchedAt: z.number().int().min(0),
})

export function encodeShardWalk(w: ShardWalk): string {
  return JSON.stringify({ ...w, blockNumber: w.blockNumber.toString(), timestamp: w.timestamp.toString() })
}

export function decodeShardWalk(text: string): ShardWalk {
  return walk.parse(JSON.parse(text))
}
