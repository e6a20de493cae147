// The heartbeat -> tick payload: JSON with bigints as decimal strings, validated on arrival.
import * as z from '../../core/zodMini.ts'
import type { TickRequest } from '../heartbeat/heartbeat.ts'

// `abort`: a string that fails the pattern must never reach BigInt (zod runs a transform after a failed check).
const big = z.pipe(
  z.string().check(z.regex(/^\d+$/, { abort: true })),
  z.transform((v: string) => BigInt(v)),
)
const observed = z.object({
  golemId: z.string().check(z.minLength(1)),
  phase: z.number().check(z.int(), z.minimum(0), z.maximum(4)),
  registered: z.boolean(),
  dead: z.boolean(),
  survivalScoreBps: z.number().check(z.int()),
  dreaming: z.boolean(),
  disabled: z.boolean(),
  availableInPeriod: big,
  isNewPeriod: z.boolean(),
  currentPeriod: big,
  ethBalance: z.optional(big),
  gasAvailableInPeriod: z.optional(z.nullable(big)),
  timestamp: big,
})
const fees = z.object({ baseFeePerGas: big, maxPriorityFeePerGas: big })
const payload = z.object({
  requests: z
    .array(z.object({ golemId: z.string().check(z.minLength(1)), observed: z.optional(observed), fees: z.optional(fees) }))
    .check(z.minLength(1)),
})

export function encodeTickPayload(requests: readonly TickRequest[]): string {
  return JSON.stringify({ requests }, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))
}

export function decodeTickPayload(text: string): TickRequest[] {
  const parsed = z.parse(payload, JSON.parse(text))
  return parsed.requests.map((r) => {
    const withFees = r.fees ? { fees: r.fees } : {}
    if (!r.observed) return { golemId: r.golemId, ...withFees }
    // Optional reads are left out rather than set to undefined (exact optional properties).
    const { ethBalance, gasAvailableInPeriod, ...rest } = r.observed
    return {
      golemId: r.golemId,
      observed: {
        ...rest,
        phase: r.observed.phase as 0 | 1 | 2 | 3 | 4,
        ...(ethBalance === undefined ? {} : { ethBalance }),
        ...(gasAvailableInPeriod === undefined ? {} : { gasAvailableInPeriod }),
      },
      ...withFees,
    }
  })
}
