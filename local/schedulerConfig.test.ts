import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseSchedulerConfig, writeSchedulerConfig, type SchedulerConfig } from './schedulerConfig.ts'

describe("the scheduler process's configuration", () => {
  const dir = mkdtempSync(join(tmpdir(), 'bardo-scheduler-config-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('keeps amounts as bigints through the file, readable by the user alone', () => {
    const config = {
      stateDir: dir,
      rpcUrl: 'http://127.0.0.1:8545',
      chainId: 31337,
      devnet: true,
      deploymentFile: join(dir, 'deployment.json'),
      store: { endpoint: 'http://127.0.0.1:4567', tableName: 'bardo' },
      usdc: '0x0000000000000000000000000000000000000001',
      settlement: '0x0000000000000000000000000000000000000002',
      apiUrl: 'http://127.0.0.1:3000',
      controlPort: 4000,
      settings: { secondsPerBeat: 0, beatMs: 250, lifeSeconds: 80, tickSeconds: 1, maxFailedTicks: 5, runtimePayment: 'key' },
      demo: {
        owner: '0x0000000000000000000000000000000000000003',
        plan: { dailyUsdcCap: 5_000_000n } as never,
        bornAt: 1_700_000_000n,
        sliceUsdc: 12n,
      },
    } satisfies SchedulerConfig
    const path = join(dir, 'scheduler.json')
    writeSchedulerConfig(path, config)
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(parseSchedulerConfig(readFileSync(path, 'utf8'))).toEqual(config)
  })

  it('refuses a file that is not the JSON the runner wrote, naming the variable', () => {
    expect(() => parseSchedulerConfig('{not json')).toThrow(/^BARDO_SCHEDULER_CONFIG: must be the JSON the runner wrote/)
  })
})
