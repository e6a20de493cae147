// The spend and high-water mark a constitution is checked against, kept as the Golem's events: each
// action custody executes under a constitution records a PolicySpend (the USD it put at risk, the
// session key that asked, the portfolio and the running high-water mark), each refusal a
// PolicyViolation. The ledger is the sum of those events, so it needs no store of its own.
import type { Address, Hex } from 'viem'
import type { PolicyAction } from './checkPolicy.ts'
import type { PolicyRefusal } from './policyRefusal.ts'

export const POLICY_SPEND = 'PolicySpend'
export const POLICY_VIOLATION = 'PolicyViolation'
const DAY_MS = 86_400_000

/** What the ledger reads of an event (the store's GolemEvent fits). */
export type LedgerEvent = { readonly type: string; readonly at: number; readonly data: Readonly<Record<string, unknown>> }
export type PolicyLedger = {
  sessionSpentUsd: bigint
  daySpentUsd: bigint
  highWaterMarkUsd: bigint
  /** The first violation under the current constitution whose rule is in its revokeOn (unix seconds). */
  revokedBy?: { rule: string; at: bigint }
}

/** The UTC day's start (ms) for a time in ms: the day the per-day limit counts. */
export const dayStartMs = (atMs: number): number => Math.floor(atMs / DAY_MS) * DAY_MS

const big = (v: unknown): bigint => (typeof v === 'string' && /^\d+$/.test(v) ? BigInt(v) : 0n)

/**
 * The spend of the current session key and of the UTC day of `nowMs`, the highest portfolio recorded,
 * and the first revoking violation under the constitution hashed `constitutionHash` (a new constitution
 * starts clean).
 */
export function policyLedgerOf(
  events: readonly LedgerEvent[],
  p: { sessionKey: Address; nowMs: number; constitutionHash?: Hex },
): PolicyLedger {
  const today = dayStartMs(p.nowMs)
  const ledger: PolicyLedger = { sessionSpentUsd: 0n, daySpentUsd: 0n, highWaterMarkUsd: 0n }
  const counted = new Set<string>()
  for (const e of events) {
    if (e.type !== POLICY_SPEND && e.type !== POLICY_VIOLATION) continue
    const hwm = big(e.data.highWaterMarkUsd)
    if (hwm > ledger.highWaterMarkUsd) ledger.highWaterMarkUsd = hwm
    if (
      e.type === POLICY_VIOLATION &&
      e.data.revoke === true &&
      !ledger.revokedBy &&
      p.constitutionHash !== undefined &&
      String(e.data.constitutionHash).toLowerCase() === p.constitutionHash.toLowerCase()
    )
      ledger.revokedBy = { rule: String(e.data.rule), at: BigInt(Math.floor(e.at / 1000)) }
    if (e.type !== POLICY_SPEND) continue
    // One request's spend counts once: two copies of a request in flight at once both record it (the one
    // that lost the send to the other settled the same transaction), and a copy that crashed before its
    // record leaves the other's to stand for it.
    const requestId = typeof e.data.requestId === 'string' ? e.data.requestId : undefined
    if (requestId !== undefined) {
      if (counted.has(requestId)) continue
      counted.add(requestId)
    }
    const spend = big(e.data.spendUsd)
    if (String(e.data.sessionKey).toLowerCase() === p.sessionKey.toLowerCase()) ledger.sessionSpentUsd += spend
    if (e.at >= today) ledger.daySpentUsd += spend
  }
  return ledger
}

type Text = Record<string, string | number | boolean | Record<string, string>>

/** The PolicySpend event's data for an executed request. */
export function policySpendData(p: {
  requestId: string
  sessionKey: Address
  actions: readonly PolicyAction[]
  portfolioUsd: bigint
  highWaterMarkUsd: bigint
  constitutionHash: Hex
}): Text {
  const spend = p.actions.reduce((sum, a) => sum + a.spendUsd, 0n)
  const hwm = p.highWaterMarkUsd > p.portfolioUsd ? p.highWaterMarkUsd : p.portfolioUsd
  return {
    requestId: p.requestId,
    sessionKey: p.sessionKey,
    spendUsd: spend.toString(),
    portfolioUsd: p.portfolioUsd.toString(),
    highWaterMarkUsd: hwm.toString(),
    constitutionHash: p.constitutionHash,
  }
}

/** The PolicyViolation event's data: the named refusal, flat, with `source: policy_violation`. */
export function policyViolationData(p: {
  requestId: string
  call: number
  refusal: PolicyRefusal
  portfolioUsd: bigint
  highWaterMarkUsd: bigint
  constitutionHash: Hex
}): Text {
  const hwm = p.highWaterMarkUsd > p.portfolioUsd ? p.highWaterMarkUsd : p.portfolioUsd
  return {
    source: 'policy_violation',
    requestId: p.requestId,
    call: p.call,
    rule: p.refusal.rule,
    field: p.refusal.field,
    reason: p.refusal.reason,
    revoke: p.refusal.revoke,
    values: Object.fromEntries(Object.entries(p.refusal.values).map(([k, v]) => [k, String(v)])),
    portfolioUsd: p.portfolioUsd.toString(),
    highWaterMarkUsd: hwm.toString(),
    constitutionHash: p.constitutionHash,
  }
}
