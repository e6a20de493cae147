// The heartbeat anomaly: a Golem whose ticks keep failing is stopped instead of ticking forever. Each tick
// that throws after taking its Golem's lease counts one more consecutive failure on the record's lastTick;
// a tick that finishes writes a lastTick without the count (a success resets it). When the count reaches
// the configured limit the Golem is halted: its lastTick says `halted`, the heartbeat hands it to no tick
// (so nothing more is redeemed) and the owner is told with a HeartbeatAnomaly event.
import { BardoError } from '../errors.ts'

/** Consecutive failed ticks that halt a Golem unless configured otherwise. */
export const DEFAULT_MAX_CONSECUTIVE_FAILURES = 5
/** The largest limit accepted: a higher one would let a broken Golem tick for most of a day. */
export const MAX_CONSECUTIVE_FAILURES_LIMIT = 1_000
/** The lastTick outcome of a halted Golem. */
export const HALTED_OUTCOME = 'halted'
/** The longest failure reason kept in an event. */
export const MAX_REASON_LENGTH = 160

export type HeartbeatAnomalyConfig = { maxConsecutiveFailures: number }

export class HeartbeatAnomalyConfigError extends BardoError {
  constructor(field: string, rule: string) {
    super('HEARTBEAT_ANOMALY_CONFIG', `${field}: ${rule}`, { details: { field, rule } })
  }
}

/**
 * The limit as configured (a number, or the text of a setting), or the default when unset. `field` names
 * the setting in the error: `heartbeatAnomaly.maxConsecutiveFailures: must be a whole number from 1 to 1000`.
 */
export function parseMaxConsecutiveFailures(raw: unknown, field = 'heartbeatAnomaly.maxConsecutiveFailures'): number {
  if (raw === undefined || raw === null || raw === '') return DEFAULT_MAX_CONSECUTIVE_FAILURES
  const n = typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : raw
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_CONSECUTIVE_FAILURES_LIMIT)
    throw new HeartbeatAnomalyConfigError(field, `must be a whole number from 1 to ${MAX_CONSECUTIVE_FAILURES_LIMIT}`)
  return n
}

export type FailedTickDecision = {
  /** Consecutive failed ticks, this one included. */
  failures: number
  /** The limit is reached: the anomaly cascade starts (halt, event). */
  halt: boolean
}

/** What one more failed tick means, given the failures before it (0 after a successful tick) and the limit. */
export function afterFailedTick(previousFailures: number, maxConsecutiveFailures: number): FailedTickDecision {
  const limit = parseMaxConsecutiveFailures(maxConsecutiveFailures)
  const before = Number.isInteger(previousFailures) && previousFailures > 0 ? previousFailures : 0
  const failures = before + 1
  return { failures, halt: failures >= limit }
}

/** The error code of a tick refused because its heartbeat holds no keys of the Golem's kind (core/custody/errors.ts). */
export const SIGNER_NOT_HELD = 'SIGNER_NOT_HELD'

/**
 * Errors of the platform rather than of the Golem, by name anywhere in the cause chain: the chain's
 * endpoint unreachable, slow or answering with a server error, a service throttling, the chain no longer
 * knowing a transaction or block it answered before (a reorg, a lagging node: the slots settle those on a
 * later tick). An outage or a reorg would otherwise halt every Golem it touched.
 */
export const PLATFORM_ERRORS: ReadonlySet<string> = new Set([
  'HttpRequestError',
  'TimeoutError',
  'RpcRequestError',
  'WebSocketRequestError',
  'SocketClosedError',
  'InternalRpcError',
  'LimitExceededRpcError',
  'ResourceUnavailableRpcError',
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'ServiceUnavailable',
  'InternalServerError',
  'TransactionNotFoundError',
  'TransactionReceiptNotFoundError',
  'BlockNotFoundError',
])

/**
 * Whether a tick's error counts against the Golem. Not counted: a platform error (PLATFORM_ERRORS), and a
 * heartbeat's refusal of a Golem whose kind of key it holds none of (two heartbeats over one store, each
 * with its own keys: the one that holds the key ticks it).
 */
export function countsAsFailure(error: unknown): boolean {
  let e: unknown = error
  for (let depth = 0; depth < 8 && typeof e === 'object' && e !== null; depth++) {
    const { code, name, cause } = e as { code?: unknown; name?: unknown; cause?: unknown }
    if (code === SIGNER_NOT_HELD) return false
    if (typeof name === 'string' && PLATFORM_ERRORS.has(name)) return false
    e = cause
  }
  return true
}

/** True for a record the anomaly halted: no tick runs for it. */
export function isHalted(lastTick: { outcome: string } | null | undefined): boolean {
  return lastTick?.outcome === HALTED_OUTCOME
}

/**
 * The lastTick outcome of a Golem whose halt was lifted. It is not a settled outcome, so the walk hands the
 * Golem over at once and its tick settles whatever the failed ticks left open.
 */
export const RESUMED_OUTCOME = 'resumed'

type HaltedRecord<T extends { outcome: string; failures?: number }> = { status: 'alive' | 'dying' | 'dead'; lastTick: T | null }

/**
 * Lifting a halt, once its cause is fixed: the lastTick to write (the count cleared, the outcome
 * `resumed`) and the failures that halted it; or the rule a record that cannot be resumed breaks.
 * A dying Golem resumes too: its death protocol runs again.
 */
export function liftHalt<T extends { outcome: string; failures?: number }>(
  record: HaltedRecord<T>,
): { lastTick: Omit<T, 'failures'> & { outcome: string }; failures: number } | { refused: string } {
  if (record.status === 'dead') return { refused: 'names a dead Golem: nothing ticks for it again' }
  const last = record.lastTick
  if (!last || !isHalted(last)) return { refused: 'must name a Golem the heartbeat anomaly halted' }
  const { failures, ...rest } = last
  return { lastTick: { ...rest, outcome: RESUMED_OUTCOME }, failures: failures ?? 0 }
}

const HEX_RUN = /(0x)?[0-9a-fA-F]{64,}/g

/**
 * A failure's reason fit for the owner and the store: the error's name and the first line of its message,
 * with every run of 32 bytes of hex or more (a key, a signature, raw bytes) replaced, and cut to MAX_REASON_LENGTH.
 */
export function failureReason(error: unknown): string {
  const name = error instanceof Error ? error.name : 'Error'
  const message = error instanceof Error ? error.message : String(error)
  const line = (message.split('\n')[0] ?? '').replace(HEX_RUN, '[hex]').trim()
  const text = line ? `${name}: ${line}` : name
  return text.length > MAX_REASON_LENGTH ? `${text.slice(0, MAX_REASON_LENGTH - 1)}…` : text
}
