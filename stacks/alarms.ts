// CloudWatch alarms for what an operator must hear about, all to one SNS topic (optionally mailed to
// BARDO_ALARM_EMAIL). AWS metrics cover the functions and the table; the Bardo metrics are published
// by the handlers in CloudWatch embedded metric format (a JSON log line, no IAM needed) under
// namespace `Bardo` with dimension `Stage`. docs/deploy.md, "What to watch", says what each means.
import type { StackConfig } from './config.ts'
import { METRICS_NAMESPACE, type Functions } from './functions.ts'
import type { Indexer } from './indexer.ts'
import type { Storage } from './storage.ts'

/** The metrics the handlers must publish (name -> what one unit means). */
export const BARDO_METRICS = {
  TickFailed: 'a tick that ended in an error it could not recover from (RPC fault, revert it could not classify)',
  WalkFailed: "a shard walk that failed or could not hand some ticks over (that shard's Golems wait a minute)",
  SlotReconciled: 'a slot found claimed or sent by an earlier invocation and settled from the chain instead of re-sent',
  RedemptionReverted: 'a redemption transaction that was mined and reverted',
  PermissionHealthCritical: 'number of Golems whose permission health is critical (gauge, per heartbeat)',
  KmsThrottled: 'a KMS Sign or GetPublicKey call refused with ThrottlingException',
  IndexerLagBlocks: "chain head minus the indexer's latest block (gauge, per heartbeat, from /status)",
} as const
export type BardoMetric = keyof typeof BARDO_METRICS

type Alarm = {
  name: string
  description: string
  namespace: string
  metric: string
  dimensions: Record<string, Sst.Input<string>>
  statistic: 'Sum' | 'Maximum'
  period: number
  evaluationPeriods: number
  datapointsToAlarm?: number
  threshold: number
  comparison: 'GreaterThanOrEqualToThreshold' | 'GreaterThanThreshold' | 'LessThanThreshold'
  missing: 'breaching' | 'notBreaching' | 'missing'
}

export function createAlarms(config: StackConfig, fns: Functions, storage: Storage, indexer: Indexer) {
  const topic = new aws.sns.Topic('Alarms', { displayName: `Bardo ${config.stage} alarms` })
  if (config.alarmEmail !== undefined) {
    new aws.sns.TopicSubscription('AlarmsEmail', { topic: topic.arn, protocol: 'email', endpoint: config.alarmEmail })
  }
  const lambda = (fn: Sst.Function) => ({ namespace: 'AWS/Lambda', dimensions: { FunctionName: fn.name } })
  const bardo = { namespace: METRICS_NAMESPACE, dimensions: { Stage: config.stage } }
  const table = { namespace: 'AWS/DynamoDB', dimensions: { TableName: storage.table.name } }
  const count = { statistic: 'Sum', comparison: 'GreaterThanOrEqualToThreshold', missing: 'notBreaching' } as const

  const alarms: Alarm[] = [
    // No invocation for 3 minutes: the schedule or the heartbeat is broken and no Golem is ticking.
    {
      name: 'HeartbeatMissing',
      description: 'The 1-minute heartbeat has not run for 3 minutes',
      ...lambda(fns.heartbeat),
      metric: 'Invocations',
      statistic: 'Sum',
      period: 60,
      evaluationPeriods: 3,
      threshold: 1,
      comparison: 'LessThanThreshold',
      missing: 'breaching',
    },
    {
      name: 'HeartbeatErrors',
      description: 'The heartbeat failed in 3 of the last 5 minutes',
      ...lambda(fns.heartbeat),
      ...count,
      metric: 'Errors',
      period: 60,
      evaluationPeriods: 5,
      datapointsToAlarm: 3,
      threshold: 1,
    },
    {
      name: 'TickErrors',
      description: 'Tick invocations crashed (unhandled errors)',
      ...lambda(fns.tick),
      ...count,
      metric: 'Errors',
      period: 300,
      evaluationPeriods: 1,
      threshold: 1,
    },
    {
      name: 'TickThrottles',
      description: 'Tick invocations were throttled by Lambda concurrency',
      ...lambda(fns.tick),
      ...count,
      metric: 'Throttles',
      period: 300,
      evaluationPeriods: 1,
      threshold: 1,
    },
    {
      name: 'ApiErrors',
      description: 'The API function crashed 5+ times in 5 minutes',
      ...lambda(fns.api),
      ...count,
      metric: 'Errors',
      period: 300,
      evaluationPeriods: 1,
      threshold: 5,
    },
    // A shard walk that failed (its RPC read, the store, or its hand-overs) starves that shard's Golems for a minute.
    {
      name: 'WalkFailures',
      description: 'Shard walks failed in 3 of the last 5 minutes: their Golems were not ticked',
      ...bardo,
      ...count,
      metric: 'WalkFailed',
      period: 60,
      evaluationPeriods: 5,
      datapointsToAlarm: 3,
      threshold: 1,
    },
    {
      name: 'TickFailed',
      description: 'Ticks ended in unrecovered errors',
      ...bardo,
      ...count,
      metric: 'TickFailed',
      period: 300,
      evaluationPeriods: 1,
      threshold: 3,
    },
    // A few reconciliations are the design working (duplicate or retried events); a stream is not.
    {
      name: 'SlotReconciliations',
      description: 'Many ticks reconciled a slot an earlier invocation claimed (duplicates, retries, crashes)',
      ...bardo,
      ...count,
      metric: 'SlotReconciled',
      period: 900,
      evaluationPeriods: 1,
      threshold: 5,
    },
    {
      name: 'RedemptionReverts',
      description: 'A redemption was mined and reverted',
      ...bardo,
      ...count,
      metric: 'RedemptionReverted',
      period: 300,
      evaluationPeriods: 1,
      threshold: 1,
    },
    {
      name: 'PermissionHealthCritical',
      description: 'At least one Golem has critical permission health',
      ...bardo,
      ...count,
      statistic: 'Maximum',
      metric: 'PermissionHealthCritical',
      period: 300,
      evaluationPeriods: 1,
      threshold: 1,
    },
    {
      name: 'KmsThrottles',
      description: 'KMS throttled SessionKey signing',
      ...bardo,
      ...count,
      metric: 'KmsThrottled',
      period: 300,
      evaluationPeriods: 1,
      threshold: 1,
    },
    // Base makes a block every 2 s: 150 blocks is five minutes behind.
    {
      name: 'IndexerLag',
      description: 'The indexer is more than 150 blocks behind the chain',
      ...bardo,
      statistic: 'Maximum',
      metric: 'IndexerLagBlocks',
      period: 300,
      evaluationPeriods: 2,
      threshold: 150,
      comparison: 'GreaterThanThreshold',
      missing: 'missing',
    },
    {
      name: 'IndexerErrors',
      description: 'The indexer answered 10+ requests with 5xx in 5 minutes',
      namespace: 'AWS/ApplicationELB',
      dimensions: { LoadBalancer: indexer.service.nodes.loadBalancer.arnSuffix },
      ...count,
      metric: 'HTTPCode_Target_5XX_Count',
      period: 300,
      evaluationPeriods: 1,
      threshold: 10,
    },
    {
      name: 'StoreReadThrottles',
      description: 'DynamoDB throttled reads on the store table',
      ...table,
      ...count,
      metric: 'ReadThrottleEvents',
      period: 300,
      evaluationPeriods: 1,
      threshold: 1,
    },
    {
      name: 'StoreWriteThrottles',
      description: 'DynamoDB throttled writes on the store table',
      ...table,
      ...count,
      metric: 'WriteThrottleEvents',
      period: 300,
      evaluationPeriods: 1,
      threshold: 1,
    },
  ]

  for (const a of alarms) {
    new aws.cloudwatch.MetricAlarm(`Alarm${a.name}`, {
      name: `${$app.name}-${config.stage}-${a.name}`,
      alarmDescription: a.description,
      namespace: a.namespace,
      metricName: a.metric,
      dimensions: a.dimensions,
      statistic: a.statistic,
      period: a.period,
      evaluationPeriods: a.evaluationPeriods,
      ...(a.datapointsToAlarm === undefined ? {} : { datapointsToAlarm: a.datapointsToAlarm }),
      threshold: a.threshold,
      comparisonOperator: a.comparison,
      treatMissingData: a.missing,
      alarmActions: [topic.arn],
      okActions: [topic.arn],
    })
  }
  return { topic }
}
