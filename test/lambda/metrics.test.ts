// No dead alarm: every metric a CloudWatch alarm of the stack watches in the Bardo namespace is one the
// handlers publish. The alarms come from running sst.config.ts against the recording stand-ins; what
// the handlers publish is read from their source (every `put('<metric>'` in functions/) and checked
// by running the emitters, which must write valid embedded-metric-format lines with the request id.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { installStandIns, type StandIns } from '../../stacks/testing.ts'
import { BARDO_METRICS } from '../../stacks/alarms.ts'
import { createTelemetry, putTickFailure, putTickMetrics } from '../../functions/shared/metrics.ts'
import { indexerLagBlocks } from '../../functions/heartbeat/indexerLag.ts'
import { testDeployment } from '../support/deployment.ts'

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : []
  })
}

/** Metric names the handlers' code publishes: every telemetry put('<name>', ...) under functions/. */
function publishedMetrics(): Set<string> {
  const names = new Set<string>()
  for (const file of sources('functions')) for (const m of readFileSync(file, 'utf8').matchAll(/\bput\(\s*'([A-Za-z]+)'/g)) names.add(m[1]!)
  return names
}

let s: StandIns
beforeAll(async () => {
  vi.stubEnv('BARDO_DEPLOYMENT', JSON.stringify(testDeployment(0)))
  vi.stubEnv('BARDO_CHAIN_ID', '84532')
  s = installStandIns({ stage: 'production' })
  const { default: config } = (await import('../../sst.config.ts')) as unknown as { default: { run(): Promise<unknown> } }
  await config.run()
})
afterAll(() => {
  s?.uninstall()
  vi.unstubAllEnvs()
})

describe('no dead alarm', () => {
  it('every Bardo metric an alarm watches is published by a handler', () => {
    const alarms = s.byType('aws:cloudwatch/metricAlarm:MetricAlarm')
    const watched = alarms.filter((a) => a.args.namespace === 'Bardo').map((a) => a.args.metricName as string)
    expect(watched.length).toBeGreaterThan(0)
    const published = publishedMetrics()
    const dead = watched.filter((m) => !published.has(m))
    expect(dead, `alarms watch metrics no handler publishes: ${dead.join(', ')}`).toEqual([])
    for (const m of Object.keys(BARDO_METRICS)) expect(published.has(m), m).toBe(true)
  })

  it('the emitters write one EMF line per flush, in namespace Bardo with the Stage dimension and the request id', () => {
    const lines: string[] = []
    const t = createTelemetry({
      requestId: 'req-1',
      functionName: 'tick',
      env: { BARDO_STAGE: 'production' },
      write: (l) => lines.push(l),
      now: () => 1,
    })
    putTickMetrics(t, { golemId: 'g', outcome: 'ticked', health: 'critical', redemption: { status: 'busy', reason: 'leased' } })
    putTickMetrics(t, { golemId: 'g', outcome: 'ticked', redemption: { status: 'failed', reason: 'reverted' } })
    const throttled = Object.assign(
      new Error('signing failed', { cause: Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }) }),
    )
    putTickFailure(t, throttled)
    t.put('IndexerLagBlocks', 12)
    t.put('WalkFailed', 1)
    t.log('info', 'tick', { golemId: 'g' })
    t.flush()
    t.flush()
    expect(lines).toHaveLength(2)
    expect(JSON.parse(lines[0]!)).toEqual({ level: 'info', message: 'tick', requestId: 'req-1', function: 'tick', golemId: 'g' })
    const emf = JSON.parse(lines[1]!) as Record<string, unknown> & {
      _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] }
    }
    expect(emf._aws.CloudWatchMetrics[0]!.Namespace).toBe('Bardo')
    expect(emf._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['Stage']])
    expect(emf).toMatchObject({
      Stage: 'production',
      requestId: 'req-1',
      SlotReconciled: 1,
      PermissionHealthCritical: 1,
      RedemptionReverted: 1,
      TickFailed: 1,
      KmsThrottled: 1,
      IndexerLagBlocks: 12,
      WalkFailed: 1,
    })
    const named = emf._aws.CloudWatchMetrics[0]!.Metrics.map((m) => m.Name).sort()
    expect(named).toEqual(Object.keys(BARDO_METRICS).sort())
  })

  it("reads the indexer's lag from Ponder's /status for this chain", () => {
    expect(indexerLagBlocks({ baseSepolia: { id: 84532, block: { number: 100 } } }, 84532, 160n)).toBe(60n)
    expect(indexerLagBlocks({ local: { id: 31337, block: { number: 100 } } }, 84532, 160n)).toBe(60n)
    expect(indexerLagBlocks({ a: { id: 1, block: { number: 1 } }, b: { id: 2, block: null } }, 84532, 160n)).toBeNull()
    expect(indexerLagBlocks({ baseSepolia: { id: 84532, block: { number: 200 } } }, 84532, 160n)).toBe(0n)
    expect(indexerLagBlocks('down', 84532, 160n)).toBeNull()
  })
})
