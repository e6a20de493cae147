// The heartbeat -> shard walker message (one SQS message per walk): which due shards it covers (one that
// fills a page alone, or several small ones packed), and the block the whole minute reads at, so every
// walker observes the chain at one block. Validated on arrival.
// zod's mini build, as the tick's parsers use: the full build carries JSON Schema generation with every
// schema, which the heartbeat and the walker would bundle for this one message.
import * as z from '../../core/zodMini.ts'

export type ShardWalk = {
  /** The due shards this walk lists, in the order it lists them. */
  shards: number[]
  /** The block the heartbeat read: every walker's multicall reads at it; its time is "now". */
  blockNumber: bigint
  timestamp: bigint
  /** That block's base fee (absent on a chain without EIP-1559): the ticks price from it. */
  baseFeePerGas?: bigint
  /** The node's priority fee, read once by the heartbeat for every shard (absent when the read failed). */
  maxPriorityFeePerGas?: bigint
  /** Wall-clock ms when the heartbeat sent it: a walk older than a minute is replaced by a fresher one. */
  dispatchedAt: number
  /**
   * Each shard's first page of due entries as the heartbeat listed it (at this walk's time), so the walker
   * starts from it instead of listing it again. A shard without one is listed from the start.
   */
  firstPages?: { shard: number; golemIds: string[]; cursor: string | null }[]
}

// `abort`: a string that fails the pattern must never reach BigInt (zod runs a transform after a failed check).
const big = z.pipe(
  z.string().check(z.regex(/^\d+$/, { abort: true })),
  z.transform((v: string) => BigInt(v)),
)
const walk = z.object({
  shards: z.array(z.number().check(z.int(), z.minimum(0))).check(
    z.minLength(1),
    z.refine((shards) => new Set(shards).size === shards.length, 'must name each shard once'),
  ),
  blockNumber: big,
  timestamp: big,
  baseFeePerGas: z.optional(big),
  maxPriorityFeePerGas: z.optional(big),
  dispatchedAt: z.number().check(z.int(), z.minimum(0)),
  firstPages: z.optional(
    z.array(
      z.object({
        shard: z.number().check(z.int(), z.minimum(0)),
        golemIds: z.array(z.string().check(z.minLength(1), z.maxLength(200))).check(z.maxLength(5_000)),
        cursor: z.nullable(z.string().check(z.maxLength(2_000))),
      }),
    ),
  ),
})

export function encodeShardWalk(w: ShardWalk): string {
  return JSON.stringify(w, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))
}

/** A walk message that is not one: the field and the rule, in one line a log can carry. */
export class ShardWalkError extends Error {
  override name = 'ShardWalkError'
}

export function decodeShardWalk(text: string): ShardWalk {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new ShardWalkError('walk: must be JSON')
  }
  const parsed = walk.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    throw new ShardWalkError(`walk.${issue.path.join('.') || '(root)'}: ${issue.message}`)
  }
  const { baseFeePerGas, maxPriorityFeePerGas, firstPages, ...rest } = parsed.data
  // Left out rather than set to undefined (exact optional properties).
  return {
    ...rest,
    ...(firstPages === undefined ? {} : { firstPages }),
    ...(baseFeePerGas === undefined ? {} : { baseFeePerGas }),
    ...(maxPriorityFeePerGas === undefined ? {} : { maxPriorityFeePerGas }),
  }
}
