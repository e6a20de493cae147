// Runs sst.config.ts against recording stand-ins for SST's globals (the sst CLI downloads Pulumi, so
// it cannot run here) and checks the stack: handlers, schedule, IAM, secrets, the indexer, alarms.
import { WALKS_PK } from '../adapters/store/keys.ts'
import { counterToItem } from '../adapters/store/codec.ts'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  effectiveStatements,
  installStandIns,
  SECRET_MARKER,
  secretLeak,
  strings,
  type Recorded,
  type StandIns,
} from '../stacks/testing.ts'
import { testDeployment } from './support/deployment.ts'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const DEPLOYMENT = { ...testDeployment(), startBlock: 123_456 }
// The four Lambda entry points (lead: these files must export `handler`).
const EXPECTED_HANDLERS = [
  'functions/heartbeat/handler.handler',
  'functions/walker/handler.handler',
  'functions/tick/handler.handler',
  'functions/api/handler.handler',
]

type SstConfig = { app(input: { stage?: string }): Record<string, unknown>; run(): Promise<Record<string, unknown>> }

async function runStack(stage: string): Promise<{ standIns: StandIns; outputs: Record<string, unknown> }> {
  const standIns = installStandIns({ stage })
  const { default: config } = (await import('../sst.config.ts')) as unknown as { default: SstConfig }
  return { standIns, outputs: await config.run() }
}

let s: StandIns
let outputs: Record<string, unknown>
const fn = (name: string) => s.one('sst:aws:Function', name)
const kmsActions = (r: Recorded) =>
  effectiveStatements(s, r)
    .flatMap((st) => st.actions)
    .filter((a) => a.startsWith('kms:'))
const statementsFor = (r: Recorded, prefix: string) =>
  effectiveStatements(s, r).filter((st) => st.actions.some((a) => a.startsWith(prefix)))

beforeAll(async () => {
  vi.stubEnv('BARDO_DEPLOYMENT', JSON.stringify(DEPLOYMENT))
  vi.stubEnv('BARDO_CHAIN_ID', '84532')
  vi.stubEnv('BARDO_ALARM_EMAIL', 'ops@example.com')
  ;({ standIns: s, outputs } = await runStack('production'))
})
afterAll(() => {
  s?.uninstall()
  vi.unstubAllEnvs()
})

describe('app()', () => {
  it('lives on AWS; production is protected and retained, other stages are removed', async () => {
    const { default: config } = (await import('../sst.config.ts')) as unknown as { default: SstConfig }
    expect(config.app({ stage: 'production' })).toMatchObject({ name: 'bardo-custody', home: 'aws', protect: true, removal: 'retain' })
    expect(config.app({ stage: 'dev' })).toMatchObject({ home: 'aws', protect: false, removal: 'remove' })
  })
})

describe('handlers', () => {
  it('wires exactly the four entry points', () => {
    expect(
      s
        .byType('sst:aws:Function')
        .map((r) => r.args.handler)
        .sort(),
    ).toEqual([...EXPECTED_HANDLERS].sort())
  })

  it.each(EXPECTED_HANDLERS)('%s: the file exists and exports the handler function', async (handler) => {
    const dot = handler.lastIndexOf('.')
    const [file, exportName] = [handler.slice(0, dot), handler.slice(dot + 1)]
    const path = ['.ts', '.mts', '.js', '.mjs'].map((ext) => join(ROOT, file + ext)).find((p) => existsSync(p))
    expect(path, `${file}.ts should exist and export \`${exportName}\``).toBeDefined()
    const mod = (await import(/* @vite-ignore */ pathToFileURL(path!).href)) as Record<string, unknown>
    expect(typeof mod[exportName], `${file} should export a function named \`${exportName}\``).toBe('function')
  })
})

describe('heartbeat schedule', () => {
  it('runs the heartbeat function every minute', () => {
    const crons = s.byType('sst:aws:Cron')
    expect(crons).toHaveLength(1)
    expect(crons[0]!.args).toMatchObject({ schedule: 'rate(1 minute)', function: '{{Heartbeat.arn}}' })
  })

  it('fans out through one SQS queue whose only subscriber is the walker, one shard per invocation', () => {
    const queues = s.byType('sst:aws:Queue')
    expect(queues.map((q) => q.name)).toEqual(['Walks'])
    const walks = queues[0]!
    // Hidden at least as long as the walker may run (AWS refuses less); kept only for its minute.
    expect(walks.args.visibilityTimeout).toBe('55 seconds')
    expect(fn('Walker').args.timeout).toBe('55 seconds')
    const queueArgs: Record<string, unknown> = {}
    walks.args.transform.queue(queueArgs)
    expect(queueArgs.messageRetentionSeconds).toBe(60)
    const subscriptions = s.byType('sst:aws:QueueLambdaSubscriber')
    expect(subscriptions).toHaveLength(1)
    expect(subscriptions[0]!.args).toMatchObject({
      queue: { arn: '{{Walks.arn}}' },
      subscriber: '{{Walker.arn}}',
      batch: { size: 1, partialResponses: true },
    })
    const mapping: Record<string, unknown> = {}
    subscriptions[0]!.args.transform.eventSourceMapping(mapping)
    expect(mapping.scalingConfig).toEqual({ maximumConcurrency: 16 })
    expect(fn('Heartbeat').args.environment.BARDO_WALK_QUEUE_URL).toBe('{{Walks.url}}')
    expect(fn('Walker').args.environment.BARDO_TICK_FUNCTION_NAME).toBe('{{Tick.name}}')
    // Never linked: SST's Queue link grants sqs:* on it.
    for (const f of s.byType('sst:aws:Function')) expect(f.args.link).not.toContain(walks.resource)
  })

  it('never retries a heartbeat; retries a tick a bounded number of times', () => {
    const invoke = (name: string) =>
      s.byType('aws:lambda/functionEventInvokeConfig:FunctionEventInvokeConfig').find((r) => r.args.functionName === `{{${name}.name}}`)
        ?.args
    expect(invoke('Heartbeat')).toMatchObject({ maximumRetryAttempts: 0, maximumEventAgeInSeconds: 60 })
    expect(invoke('Tick')).toMatchObject({ maximumRetryAttempts: 2 })
  })
})

describe('IAM: least privilege', () => {
  it('grants no wildcard action or resource to any function (permissions and links), but by tag on KMS keys', () => {
    for (const f of s.byType('sst:aws:Function')) {
      for (const st of effectiveStatements(s, f)) {
        expect(
          st.actions.filter((a) => a.includes('*')),
          `${f.name} actions`,
        ).toEqual([])
        // A SessionKey is the stage's by its tags (test/sstKms.test.ts): any key, under a tag condition.
        const byTag = (st.conditions ?? []).some((c) => /^aws:(Resource|Request)Tag\/bardo:stage$/.test(c.variable))
        expect(
          st.resources.filter((r) => (r === '*' || r.endsWith('/*')) && !byTag && !r.startsWith('arn:aws:kms:*:*:alias/bardo-custody/')),
          `${f.name} resources`,
        ).toEqual([])
      }
    }
  })

  it('lets the tick use KMS, the API only sign with the session keys (the action path), and nothing else touch it', () => {
    expect(statementsFor(fn('Tick'), 'kms:').length).toBeGreaterThan(0)
    expect(kmsActions(fn('Heartbeat'))).toEqual([])
    expect(kmsActions(fn('Walker'))).toEqual([])
    expect([...new Set(kmsActions(fn('Api')))].sort()).toEqual(['kms:GetPublicKey', 'kms:Sign'])
  })

  it("lets the heartbeat only list the due shards' first pages and send to the walker queue: no write, no function", () => {
    const heartbeat = fn('Heartbeat')
    expect(effectiveStatements(s, heartbeat)).toEqual([
      { actions: ['dynamodb:Query'], resources: ['{{Store.arn}}'] },
      { actions: ['sqs:SendMessage'], resources: ['{{Walks.arn}}'] },
    ])
  })

  it("lets the walker (and the API, for the Alchemy webhook) invoke the tick and nothing else; the walker reads the table, writes only its walk record's partition, and consumes its queue", () => {
    const walker = fn('Walker')
    expect(statementsFor(walker, 'lambda:')).toEqual([{ actions: ['lambda:InvokeFunction'], resources: ['{{Tick.arn}}'] }])
    expect(statementsFor(walker, 'dynamodb:')).toEqual([
      { actions: ['dynamodb:BatchGetItem', 'dynamodb:Query'], resources: ['{{Store.arn}}'] },
      {
        actions: ['dynamodb:UpdateItem'],
        resources: ['{{Store.arn}}'],
        conditions: [{ test: 'ForAllValues:StringEquals', variable: 'dynamodb:LeadingKeys', values: [WALKS_PK] }],
      },
    ])
    expect(statementsFor(walker, 'sqs:')).toEqual([
      {
        actions: ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage'],
        resources: ['{{Walks.arn}}'],
      },
    ])
    expect(kmsActions(walker)).toEqual([])
    for (const name of ['Tick', 'Api']) expect(statementsFor(fn(name), 'sqs:'), name).toEqual([])
    expect(statementsFor(fn('Tick'), 'lambda:')).toEqual([])
    expect(statementsFor(fn('Api'), 'lambda:')).toEqual([{ actions: ['lambda:InvokeFunction'], resources: ['{{Tick.arn}}'] }])
  })

  it('gives tick and api the store actions DynamoStore sends, on the table only', () => {
    for (const name of ['Tick', 'Api']) {
      const dynamo = statementsFor(fn(name), 'dynamodb:')
      expect(dynamo).toHaveLength(name === 'Api' ? 2 : 1)
      expect([...dynamo[0]!.actions].sort()).toEqual([
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
      ])
      expect(dynamo[0]!.resources).toEqual(['{{Store.arn}}'])
    }
    // The API alone reads a batch: the councils an owner's or a Golem's lookup names (test/api/deployedOwnerRoutes.test.ts).
    expect(statementsFor(fn('Api'), 'dynamodb:')[1]).toEqual({ actions: ['dynamodb:BatchGetItem'], resources: ['{{Store.arn}}'] })
  })
})

describe('KMS keys', () => {
  it('creates no key at deploy time: keys are made per Golem, and the stack outputs only their alias prefix', () => {
    expect(s.byType('aws:kms/key:Key')).toEqual([])
    expect(s.byType('aws:kms/alias:Alias')).toEqual([])
    expect(outputs.sessionKeyAliasPrefix).toBe('alias/bardo-custody/production')
    expect(fn('Tick').args.environment.BARDO_KMS_ALIAS_PREFIX).toBe('alias/bardo-custody/production')
    expect(fn('Tick').args.environment.BARDO_KMS_KEY_ARNS).toBeUndefined()
  })
})

describe('DynamoDB table', () => {
  it('is the single pk/sk table core/store uses, with no secondary index', () => {
    const tables = s.byType('sst:aws:Dynamo')
    expect(tables).toHaveLength(1)
    expect(tables[0]!.args).toMatchObject({ fields: { pk: 'string', sk: 'string' }, primaryIndex: { hashKey: 'pk', rangeKey: 'sk' } })
    expect(Object.keys(tables[0]!.args.fields)).toEqual(['pk', 'sk'])
    expect(tables[0]!.args.globalIndexes).toBeUndefined()
    // The rate-limit counters, nonces and payment-id bindings carry `ttl` (unix seconds): collected, never kept.
    const counter = counterToItem('ip:127.0.0.1', 60_000, { count: 1, resetAt: 120_000 })
    expect(counter[tables[0]!.args.ttl]).toBe(120)
    const table: Record<string, unknown> = {}
    tables[0]!.args.transform.table(table)
    expect(table.deletionProtectionEnabled).toBe(true)
  })

  it('is never linked (SST would grant dynamodb:*); functions get its name as plain config', () => {
    const table = s.one('sst:aws:Dynamo', 'Store').resource
    for (const f of s.byType('sst:aws:Function')) {
      expect(f.args.link).not.toContain(table)
      expect(f.args.environment.BARDO_TABLE_NAME).toBe('{{Store.name}}')
    }
  })
})

describe('API', () => {
  it('has a public function URL and hands it out', () => {
    expect(fn('Api').args.url).toMatchObject({ authorization: 'none' })
    expect(outputs.api).toBe('{{Api.url}}')
  })

  it('ships swagger-ui-dist beside the handler for the docs page, and only the API does', () => {
    expect(fn('Api').args.nodejs).toEqual({ format: 'esm', sourcemap: true, install: ['swagger-ui-dist'] })
    for (const name of ['Tick', 'Heartbeat']) expect(fn(name).args.nodejs, name).toEqual({ format: 'esm', sourcemap: true })
  })
})

describe("the owner's dashboard", () => {
  it('is deployed: its page built by `npm run build:dashboard`, on one origin with the API and the indexer, and holds no secret', () => {
    const router = s.one('sst:aws:Router', 'Dashboard')
    expect(router.args.routes).toEqual([
      { path: '/api', url: '{{Api.url}}' },
      { path: '/council', url: '{{Api.url}}' },
      { path: '/graphql', url: '{{Indexer.url}}' },
    ])
    const site = s.one('sst:aws:StaticSite', 'DashboardPage')
    expect(site.args).toMatchObject({
      path: '.',
      build: { command: 'npm run build:dashboard', output: 'web/dist' },
      environment: { BARDO_SNAP_ID: 'npm:@bardo/snap' },
      router: { instance: router.resource },
    })
    expect(JSON.stringify(site.args.environment)).not.toContain(SECRET_MARKER)
    expect(outputs.dashboard).toBe('{{Dashboard.url}}')
    // The build script it names exists.
    expect(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).scripts['build:dashboard']).toBe(
      'tsx scripts/buildDashboard.ts',
    )
  })
})

describe('function environment', () => {
  it('reports no usage to MetaMask, and gives every function the same payment asset (the tick pays in what the API prices)', () => {
    const functions = s.byType('sst:aws:Function')
    expect(functions.length).toBeGreaterThan(0)
    for (const f of functions) {
      expect(f.args.environment.DO_NOT_TRACK, f.name).toBe('1')
      expect(f.args.environment).toMatchObject({
        BARDO_USDC: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
        BARDO_USDC_NAME: 'USDC',
        BARDO_USDC_VERSION: '2',
      })
    }
  })
})

describe("the tick's framework", () => {
  it("is the kit's DelegationManager, period-transfer and payment-delegation enforcers on the chain, from BARDO_FRAMEWORK, as the other functions load them", async () => {
    const { loadFunctionConfig, loadTickFunctionConfig } = await import('../functions/shared/config.ts')
    const env = { ...fn('Tick').args.environment, BARDO_SECRET_RPC_URL: 'http://127.0.0.1:1' } as NodeJS.ProcessEnv
    const tick = loadTickFunctionConfig(env).deployment.environment
    const full = loadFunctionConfig(env).deployment.environment
    expect(tick).toEqual({
      DelegationManager: full.DelegationManager,
      caveatEnforcers: {
        ERC20PeriodTransferEnforcer: full.caveatEnforcers.ERC20PeriodTransferEnforcer,
        NativeTokenPeriodTransferEnforcer: full.caveatEnforcers.NativeTokenPeriodTransferEnforcer,
        // What a payment by delegation from the owner's grant is built from.
        ValueLteEnforcer: full.caveatEnforcers.ValueLteEnforcer,
        ERC20TransferAmountEnforcer: full.caveatEnforcers.ERC20TransferAmountEnforcer,
        RedeemerEnforcer: full.caveatEnforcers.RedeemerEnforcer,
        AllowedCalldataEnforcer: full.caveatEnforcers.AllowedCalldataEnforcer,
        // What wind-down reads the vaults and approvals of the action grant from.
        AllowedTargetsEnforcer: full.caveatEnforcers.AllowedTargetsEnforcer,
        AllowedMethodsEnforcer: full.caveatEnforcers.AllowedMethodsEnforcer,
      },
    })
    expect(fn('Api').args.environment.BARDO_FRAMEWORK).toBeUndefined()
  })

  it('refuses a missing or malformed BARDO_FRAMEWORK, naming the field', async () => {
    const { loadTickFunctionConfig } = await import('../functions/shared/config.ts')
    const env = { ...fn('Tick').args.environment, BARDO_SECRET_RPC_URL: 'http://127.0.0.1:1' } as NodeJS.ProcessEnv
    const framework = JSON.parse(env.BARDO_FRAMEWORK!) as { caveatEnforcers: Record<string, string> }
    expect(() => loadTickFunctionConfig({ ...env, BARDO_FRAMEWORK: undefined })).toThrow('config: BARDO_FRAMEWORK must be set')
    expect(() => loadTickFunctionConfig({ ...env, BARDO_FRAMEWORK: '{' })).toThrow('config: BARDO_FRAMEWORK must be JSON')
    expect(() => loadTickFunctionConfig({ ...env, BARDO_FRAMEWORK: JSON.stringify({ ...framework, DelegationManager: '0x12' }) })).toThrow(
      'config: BARDO_FRAMEWORK.DelegationManager must be a 20-byte hex address',
    )
    const { NativeTokenPeriodTransferEnforcer: _, ...oneEnforcer } = framework.caveatEnforcers
    expect(() =>
      loadTickFunctionConfig({ ...env, BARDO_FRAMEWORK: JSON.stringify({ ...framework, caveatEnforcers: oneEnforcer }) }),
    ).toThrow('config: BARDO_FRAMEWORK.caveatEnforcers.NativeTokenPeriodTransferEnforcer must be a 20-byte hex address')
  })
})

describe('secrets', () => {
  const linkedSecrets = (name: string) =>
    (fn(name).args.link as object[])
      .map((l) => s.byType('sst:sst:Secret').find((r) => r.resource === l)?.name)
      .filter(Boolean)
      .sort()

  it('are SST secrets, each linked only where it is needed', () => {
    expect(
      s
        .byType('sst:sst:Secret')
        .map((r) => r.name)
        .sort(),
    ).toEqual([
      'AlchemyWebhookSigningKey',
      'CladeHmacSecret',
      'OperatorKey',
      'PrivyAppSecret',
      'ReadApiKeyHashes',
      'ReceiptSigningKey',
      'RpcUrl',
      'SettlementKey',
    ])
    expect(linkedSecrets('Heartbeat')).toEqual(['RpcUrl'])
    expect(linkedSecrets('Walker')).toEqual(['RpcUrl'])
    expect(linkedSecrets('Tick')).toEqual(['OperatorKey', 'PrivyAppSecret', 'RpcUrl'])
    expect(linkedSecrets('Api')).toEqual([
      'AlchemyWebhookSigningKey',
      'CladeHmacSecret',
      'ReadApiKeyHashes',
      'ReceiptSigningKey',
      'RpcUrl',
      'SettlementKey',
    ])
  })

  it('never appear in a function environment, nor anything that looks like key material', () => {
    for (const f of s.byType('sst:aws:Function')) {
      for (const { path, value } of strings(f.args.environment)) expect(secretLeak(value), `${f.name} environment.${path}`).toBeUndefined()
    }
  })

  it('reach the indexer container only as SecureString SSM parameters, never as env or links', () => {
    const indexer = s.one('sst:aws:Service', 'Indexer').args
    expect(indexer.link ?? []).toEqual([])
    for (const { path, value } of strings(indexer.environment)) expect(secretLeak(value), `Indexer environment.${path}`).toBeUndefined()
    const params = s.byType('aws:ssm/parameter:Parameter').filter((p) => p.name.startsWith('Indexer'))
    expect(params.map((p) => p.args.type)).toEqual(['SecureString', 'SecureString'])
    expect(params.find((p) => p.name === 'IndexerRpcUrl')?.args.value).toBe('{{secret:RpcUrl.value}}')
    expect(decodeURIComponent(params.find((p) => p.name === 'IndexerDatabaseUrl')?.args.value)).toMatch(
      /^postgres:\/\/.*\{\{secret:Database\.password\}\}@.*sslmode=verify-full/,
    )
    expect(indexer.ssm).toEqual({ BARDO_RPC_URL: '{{IndexerRpcUrl.arn}}', DATABASE_URL: '{{IndexerDatabaseUrl.arn}}' })
    const role: Record<string, any> = { inlinePolicies: [{ name: 'inline', policy: 'SST default: ssm:* on *' }] }
    indexer.transform.executionRole(role)
    expect(JSON.parse(role.inlinePolicies[0].policy).Statement).toEqual([
      {
        Sid: 'ReadIndexerParameters',
        Effect: 'Allow',
        Action: ['ssm:GetParameters'],
        Resource: ['{{IndexerRpcUrl.arn}}', '{{IndexerDatabaseUrl.arn}}'],
      },
    ])
  })
})

describe('indexer service', () => {
  const indexer = () => s.one('sst:aws:Service', 'Indexer').args

  it('runs `ponder start` from stacks/indexer.Dockerfile', () => {
    expect(indexer().image).toEqual({ context: '.', dockerfile: 'stacks/indexer.Dockerfile' })
    const dockerfile = readFileSync(join(ROOT, 'stacks/indexer.Dockerfile'), 'utf8')
    expect(dockerfile).toMatch(/CMD \["node_modules\/\.bin\/ponder", "start", "--root", "indexer"/)
  })

  it('is health-checked on /health by ECS and by the load balancer', () => {
    expect(indexer().health.command.join(' ')).toContain('http://127.0.0.1:42069/health')
    expect(indexer().loadBalancer.rules).toEqual([{ listen: '80/http', forward: '42069/http' }])
    expect(indexer().loadBalancer.health['42069/http']).toMatchObject({ path: '/health' })
  })

  it('keeps Postgres in the VPC and points the API and heartbeat at the indexer URL', () => {
    expect(s.one('sst:aws:Postgres', 'Database').args.vpc).toBe(s.one('sst:aws:Vpc', 'Vpc').resource)
    expect(indexer().environment).toMatchObject({
      BARDO_CHAIN_ID: '84532',
      BARDO_START_BLOCK: '123456',
      DATABASE_SCHEMA: 'bardo_production',
    })
    expect(JSON.parse(indexer().environment.BARDO_DEPLOYMENT).vitalityOracle.toLowerCase()).toBe(DEPLOYMENT.vitalityOracle)
    expect(fn('Api').args.environment.BARDO_INDEXER_URL).toBe('{{Indexer.url}}')
    expect(fn('Heartbeat').args.environment.BARDO_INDEXER_URL).toBe('{{Indexer.url}}')
    // The tick pays the API for its Golems' runtime (self-extension): it reads the API's URL from the
    // parameter the stack writes once the API exists (the API invokes the tick, so no cycle).
    expect(fn('Tick').args.environment.BARDO_API_URL_PARAMETER).toBe('/bardo/production/api-url')
    const apiUrl = s.byType('aws:ssm/parameter:Parameter').find((p) => p.name === 'ApiUrl')
    expect(apiUrl?.args).toMatchObject({ name: '/bardo/production/api-url', type: 'String', value: '{{Api.url}}' })
  })
})

describe('alarms', () => {
  it('watch every failure an operator must hear about, to one topic that mails BARDO_ALARM_EMAIL', () => {
    const alarms = s.byType('aws:cloudwatch/metricAlarm:MetricAlarm')
    const watched = alarms.map((a) => `${a.args.namespace}/${a.args.metricName}`)
    for (const metric of [
      'AWS/Lambda/Errors',
      'AWS/Lambda/Invocations',
      'Bardo/SlotReconciled',
      'Bardo/RedemptionReverted',
      'Bardo/WalkFailed',
      'Bardo/PermissionHealthCritical',
      'Bardo/KmsThrottled',
      'Bardo/IndexerLagBlocks',
      'AWS/DynamoDB/ReadThrottleEvents',
      'AWS/DynamoDB/WriteThrottleEvents',
    ]) {
      expect(watched).toContain(metric)
    }
    expect(alarms.find((a) => a.args.metricName === 'Errors' && a.args.dimensions.FunctionName === '{{Tick.name}}')).toBeDefined()
    for (const a of alarms) expect(a.args.alarmActions).toEqual(['{{Alarms.arn}}'])
    expect(s.byType('aws:sns/topicSubscription:TopicSubscription')[0]?.args).toMatchObject({
      protocol: 'email',
      endpoint: 'ops@example.com',
    })
  })
})

describe('other stages', () => {
  it('a dev stage may be deleted: no table protection', async () => {
    s.uninstall() // the production records stay readable; only the globals go
    const dev = await runStack('dev')
    try {
      const table: Record<string, unknown> = {}
      dev.standIns.one('sst:aws:Dynamo', 'Store').args.transform.table(table)
      expect(table.deletionProtectionEnabled).toBe(false)
    } finally {
      dev.standIns.uninstall()
    }
  })
})

describe("the tick's Privy wallets", () => {
  const APP_ID = 'clbh2t7ou0000l508xyzl6n5k'
  const SECRET = 'privy-app-secret-4f9c2d7e1a3b'
  let privy: StandIns

  beforeAll(async () => {
    vi.stubEnv('BARDO_PRIVY_APP_ID', APP_ID)
    vi.stubEnv('BARDO_PRIVY_API_URL', 'https://privy.example.com')
    ;({ standIns: privy } = await runStack('dev'))
  })
  afterAll(() => {
    privy?.uninstall()
    vi.unstubAllEnvs()
    vi.stubEnv('BARDO_DEPLOYMENT', JSON.stringify(DEPLOYMENT))
    vi.stubEnv('BARDO_CHAIN_ID', '84532')
  })

  const tickEnv = (stack: StandIns) => stack.one('sst:aws:Function', 'Tick').args.environment as Record<string, string>

  it('are off by default: the tick has no Privy settings, and a Privy Golem is refused naming what would add them', async () => {
    expect(tickEnv(s).BARDO_PRIVY_APP_ID).toBeUndefined()
    const { deployedSigners } = await import('../functions/tick/handler.ts')
    const { loadTickFunctionConfig } = await import('../functions/shared/config.ts')
    const env = { ...tickEnv(s), BARDO_SECRET_RPC_URL: 'http://127.0.0.1:1' } as NodeJS.ProcessEnv
    const signers = deployedSigners(loadTickFunctionConfig(env), env)
    await expect(signers.resolve({ signer: { kind: 'privy', walletId: 'w' } } as never)).rejects.toThrow(
      'signer: this heartbeat holds no privy keys (set BARDO_PRIVY_APP_ID and secret PrivyAppSecret to tick Golems whose key is a Privy wallet)',
    )
  })

  it("with BARDO_PRIVY_APP_ID at deploy, gives the tick the app's id and API, its secret only by the PrivyAppSecret link", async () => {
    const env = tickEnv(privy)
    expect(env).toMatchObject({ BARDO_PRIVY_APP_ID: APP_ID, BARDO_PRIVY_API_URL: 'https://privy.example.com' })
    expect(env.BARDO_PRIVY_APP_SECRET).toBeUndefined()
    const { loadTickPrivySettings } = await import('../functions/shared/config.ts')
    // The linked secret reaches the function as Resource.PrivyAppSecret (locally BARDO_SECRET_PRIVY_APP_SECRET).
    expect(loadTickPrivySettings({ ...env, BARDO_SECRET_PRIVY_APP_SECRET: SECRET }).settings).toMatchObject({
      appId: APP_ID,
      appSecret: SECRET,
      apiUrl: 'https://privy.example.com',
    })
    // The app id without its secret is a configuration error naming the secret, not a silent refusal per Golem.
    expect(() => loadTickPrivySettings(env)).toThrow(
      "config: secret PrivyAppSecret: must be set when BARDO_PRIVY_APP_ID is (the Privy app's secret)",
    )
  })
})
