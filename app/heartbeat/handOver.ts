// What the heartbeat hands over and to whom: a tick's request, the invoker that runs ticks (in process, or
// as Lambda invocations), the dispatcher that runs the minute's shard walks (in process, or as SQS
// messages to the walker), and what a walk reports. Types only: every hand-over speaks them.
import type { TickFees } from '../../core/fees.ts'
import type { ObservedGolem } from '../../core/lifecycle/observation.ts'
import type { TickNeedParameters } from '../../core/lifecycle/tickNeed.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'
import type { GolemRecord } from '../../core/store/index.ts'
import type { ShardWalk } from './shardWalk.ts'

/**
 * One Golem's tick: its chain observation and its record, both read by the walker, so the tick reads
 * neither; `fees`: the heartbeat block's fee data, so a tick prices its transactions without reading fees.
 * `profile`: the record's profile as the walker parsed it, so a tick in the walker's process does not
 * parse it again. It never crosses the wire: its bigints do not survive JSON, so a tick that receives
 * the payload parses the record's profile once on its side.
 */
export type TickRequest = { golemId: string; observed?: ObservedGolem; record?: GolemRecord; profile?: GolemProfile; fees?: TickFees }

export interface TickInvoker {
  /** Hands a batch of ticks over. Returns once they are handed over (Lambda) or done (local). */
  invoke(requests: readonly TickRequest[]): Promise<void>
  /** What the ticks it runs are configured with, when it knows (a local invoker runs them itself). */
  tickNeedParameters?(): TickNeedParameters
}

export interface ShardDispatcher {
  /** Hands the minute's shard walks over. Returns once they are sent (SQS) or walked (local). */
  dispatch(walks: readonly ShardWalk[]): Promise<void>
}

export type WalkResult = {
  shards: number[]
  pages: number
  /** Chain reads (multicalls) the walk made. */
  reads: number
  /** Due entries listed (a lower bound: the record decides). */
  listed: number
  due: number
  invoked: number
  /** Dead, or a record the tick could not read (a Golem the heartbeat anomaly halted is observed: idle until its death is due). */
  skipped: number
  /** The entry lags the record and the record is not due yet (the Golem ticked this minute already). */
  notDue: number
  /** Due and observed, with nothing to do (core/lifecycle/tickNeed.ts): not handed over. */
  idle: number
  /** Ticks whose hand-over failed: they are due again next minute. */
  failed: number
  /** The first hand-over failure, for the log line. */
  firstFailure?: unknown
}
