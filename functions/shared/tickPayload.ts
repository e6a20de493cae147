// The heartbeat -> tick payload: JSON with bigints as decimal strings, validated on arrival.
import * as z from 'zod/v4'
import type { TickRequest } from '../heartbeat/heartbeat.ts'
import { CUSTODY_MODES, GOLEM_STATUSES, PHASE_NAMES, type GolemRecord } from '../../core/store/records.ts'

const big = z
  .string()
  .regex(/^\d+$/)
  .transform((v) => BigInt(v))
const observed = z.object({
  golemId: z.string().min(1),
  phase: z.number().int().min(0).max(4),
  registered: z.boolean(),
  dead: z.boolean(),
  survivalScoreBps: z.number().int(),
  dreaming: z.boolean(),
  disabled: z.boolean(),
  availableInPeriod: big,
  isNewPeriod: z.boolean(),
  currentPeriod: big,
  ethBalance: big.optional(),
  gasAvailableInPeriod: big.nullable().optional(),
  timestamp: big,
})
const address = z.string().regex(/^0x[0-9a-f]{40}$/, 'a lowercased 20-byte address')
const time = z.number().int().min(0)
/** The Golem record the heartbeat read; its version makes a stale copy harmless (the lease is conditional on it). */
const record = z.object({
  golemId: z.string().min(1),
  owner: address,
  sessionKeyAddress: address,
  custodyMode: z.enum(CUSTODY_MODES),
  profile: z.string().nullable(),
  status: z.enum(GOLEM_STATUSES),
  phase: z.enum(PHASE_NAMES),
  nextTickAt: time,
  lastTick: z
    .object({
      at: time,
      period: big,
      outcome: z.string(),
      txHash: z
        .string()
        .regex(/^0x[0-9a-fA-F]{64}$/)
        .nullable(),
    })
    .nullable(),
  createdAt: time,
  updatedAt: time,
  version: z.number().int().min(1),
})
const request = z
  .object({ golemId: z.string().min(1), observed: observed.optional(), record: record.optional() })
  .refine((r) => r.record === undefined || r.record.golemId === r.golemId, {
    message: "record.golemId must be the request's golemId",
    path: ['record', 'golemId'],
  })
const payload = z.object({ requests: z.array(request).min(1) })

export function encodeTickPayload(requests: readonly TickRequest[]): string {
  return JSON.stringify({ requests }, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))
}

export function decodeTickPayload(text: string): TickRequest[] {
  const parsed = payload.parse(JSON.parse(text))
  return parsed.requests.map((r) => {
    const golemRecord = r.record && ({ ...r.record } as GolemRecord)
    if (!r.observed) return { golemId: r.golemId, ...(golemRecord ? { record: golemRecord } : {}) }
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
      ...(golemRecord ? { record: golemRecord } : {}),
    }
  })
}
