// The handlers' metrics and logs: one JSON line each on stdout, which CloudWatch Logs keeps and, for a
// line in embedded metric format (EMF), turns into metric data points with no PutMetricData call and
// no IAM. Every line carries the Lambda request id, so a metric point leads to its invocation's logs.
// Written with process.stdout.write, never console.log (which prefixes the line and breaks EMF).
import type { TickResult } from '../../app/tick/types.ts'

/** The metrics the handlers publish in namespace Bardo, dimension Stage; stacks/alarms.ts alarms on them. */
export type BardoMetricName =
  | 'TickFailed'
  | 'WalkFailed'
  | 'SlotReconciled'
  | 'RedemptionReverted'
  | 'PermissionHealthCritical'
  | 'KmsThrottled'
  | 'IndexerLagBlocks'

export type Telemetry = {
  /** Adds `value` to a metric of this invocation (published at flush). */
  put(name: BardoMetricName, value: number): void
  /** A structured log line with the request id. */
  log(level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>): void
  /** Writes the collected metrics as one EMF line (nothing when none were put). */
  flush(fields?: Record<string, unknown>): void
}

export function createTelemetry(o: {
  requestId: string
  functionName: string
  env?: NodeJS.ProcessEnv
  write?: (line: string) => void
  now?: () => number
}): Telemetry {
  const env = o.env ?? process.env
  const write = o.write ?? ((line: string) => process.stdout.write(line))
  const now = o.now ?? Date.now
  const namespace = env.BARDO_METRICS_NAMESPACE ?? 'Bardo'
  const stage = env.BARDO_STAGE ?? 'local'
  const values = new Map<BardoMetricName, number>()
  const json = (v: Record<string, unknown>) => `${JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x))}\n`
  return {
    put(name, value) {
      values.set(name, (values.get(name) ?? 0) + value)
    },
    log(level, message, fields = {}) {
      write(json({ level, message, requestId: o.requestId, function: o.functionName, ...fields }))
    },
    flush(fields = {}) {
      if (values.size === 0) return
      const metrics = Object.fromEntries(values)
      values.clear()
      write(
        json({
          _aws: {
            Timestamp: now(),
            CloudWatchMetrics: [
              { Namespace: namespace, Dimensions: [['Stage']], Metrics: Object.keys(metrics).map((Name) => ({ Name, Unit: 'Count' })) },
            ],
          },
          Stage: stage,
          requestId: o.requestId,
          function: o.functionName,
          ...fields,
          ...metrics,
        }),
      )
    },
  }
}

/** What one tick's result says about the alarms' metrics. */
export function putTickMetrics(t: Pick<Telemetry, 'put'>, result: TickResult): void {
  // A duplicate or retried event finding the Golem held by another invocation: refused, never re-sent.
  if (result.outcome === 'busy') t.put('SlotReconciled', 1)
  for (const step of [result.redemption, result.gas]) {
    if (!step) continue
    // Another invocation had the slot (a duplicate or a retry), or it was settled from the chain.
    if (step.status === 'reconciled' || step.status === 'busy' || step.reason === 'settled from an earlier tick') t.put('SlotReconciled', 1)
    if (step.status === 'failed' && step.reason === 'reverted') t.put('RedemptionReverted', 1)
  }
  if (result.health === 'critical') t.put('PermissionHealthCritical', 1)
}

/** A tick that threw: counted as failed, and as a KMS throttle when KMS refused to sign. */
export function putTickFailure(t: Pick<Telemetry, 'put'>, error: unknown): void {
  t.put('TickFailed', 1)
  if (causes(error).some((e) => e.name === 'ThrottlingException' || /ThrottlingException|Rate exceeded/.test(e.message)))
    t.put('KmsThrottled', 1)
}

function causes(error: unknown): Error[] {
  const out: Error[] = []
  let e: unknown = error
  while (e instanceof Error && out.length < 8) {
    out.push(e)
    e = e.cause
  }
  return out
}
