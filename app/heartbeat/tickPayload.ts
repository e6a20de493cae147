// The heartbeat -> tick payload: JSON with bigints as decimal strings, validated on arrival.
import * as z from '../../core/zodMini.ts'
import type { TickRequest } from './handOver.ts'
import { phaseNames } from '../../core/lifecycle/phase.ts'
import { CUSTODY_MODES, GOLEM_STATUSES, type GolemRecord } from '../../core/store/records.ts'

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
  runwayHeld: z.optional(big),
  timestamp: big,
})
const fees = z.object({ baseFeePerGas: big, maxPriorityFeePerGas: big })
const address = z.string().check(z.regex(/^0x[0-9a-f]{40}$/, 'a lowercased 20-byte address'))
const time = z.number().check(z.int(), z.minimum(0))
/** The Golem record the heartbeat read; its version makes a stale copy harmless (the lease is conditional on it). */
const record = z.object({
  golemId: z.string().check(z.minLength(1)),
  owner: address,
  sessionKeyAddress: address,
  custodyMode: z.enum(CUSTODY_MODES),
  profile: z.nullable(z.string()),
  status: z.enum(GOLEM_STATUSES),
  phase: z.enum(phaseNames),
  nextTickAt: time,
  lastTick: z.nullable(
    z.object({
      at: time,
      period: big,
      outcome: z.string(),
      txHash: z.nullable(z.string().check(z.regex(/^0x[0-9a-fA-F]{64}$/))),
      // Carried so the tick's lease keeps the count of failed ticks (core/lifecycle/heartbeatAnomaly.ts).
      failures: z.optional(z.number().check(z.int(), z.minimum(1))),
    }),
  ),
  createdAt: time,
  updatedAt: time,
  version: z.number().check(z.int(), z.minimum(1)),
})
const request = z
  .object({ golemId: z.string().check(z.minLength(1)), observed: z.optional(observed), record: z.optional(record), fees: z.optional(fees) })
  .check(
    z.refine((r) => r.record === undefined || r.record.golemId === r.golemId, {
      message: "record.golemId must be the request's golemId",
      path: ['record', 'golemId'],
    }),
  )
const payload = z.object({ requests: z.array(request).check(z.minLength(1)) })

/** The requests as they cross the wire: the parsed profile stays behind (the record carries its text). */
export function encodeTickPayload(requests: readonly TickRequest[]): string {
  const wire = requests.map(({ golemId, observed, record, fees }) => ({ golemId, observed, record, fees }))
  return JSON.stringify({ requests: wire }, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))
}

export function decodeTickPayload(text: string): TickRequest[] {
  const parsed = z.parse(payload, JSON.parse(text))
  return parsed.requests.map((r) => {
    const golemRecord = r.record && ({ ...r.record } as GolemRecord)
    const carried = { ...(golemRecord ? { record: golemRecord } : {}), ...(r.fees ? { fees: r.fees } : {}) }
    if (!r.observed) return { golemId: r.golemId, ...carried }
    // Optional reads are left out rather than set to undefined (exact optional properties).
    const { ethBalance, gasAvailableInPeriod, runwayHeld, ...rest } = r.observed
    return {
      golemId: r.golemId,
      observed: {
        ...rest,
        phase: r.observed.phase as 0 | 1 | 2 | 3 | 4,
        ...(ethBalance === undefined ? {} : { ethBalance }),
        ...(gasAvailableInPeriod === undefined ? {} : { gasAvailableInPeriod }),
        ...(runwayHeld === undefined ? {} : { runwayHeld }),
      },
      ...carried,
    }
  })
}
