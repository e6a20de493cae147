// The Lambda handler: built lazily on the first invocation from the deployed configuration (BARDO_*
// variables and SST secrets; here the secrets come from their BARDO_SECRET_* stand-ins, the table is
// on dynalite and the RPC is anvil). Importing the module reads nothing.
import { ScanCommand } from '@aws-sdk/client-dynamodb'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { loadDeployedWiring, loadPaymentWiring } from '../../functions/api/deployed.ts'
import { createLazyApiHandler } from '../../functions/api/handler.ts'
import type { ApiWiring } from '../../functions/api/wiring.ts'
import { createTable, localDynamoClient, startDynalite, type Dynalite } from '../../local/dynalite.ts'
import { startApiStack, type ApiStack } from './harness.ts'
import { startDynamoRecorder, type DynamoRecorder } from '../lambda/dynamoRecorder.ts'
import { allowedActions } from '../lambda/stackIam.ts'

const hmac = `0x${'5a'.repeat(32)}`
// anvil's third well-known key (0x3C44...): a gas-only settlement account, distinct from the operator.
const settlementKey = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a'

let stack: ApiStack
let dynalite: Dynalite
/** The handlers' DynamoDB traffic passes this recorder, so what they send can be checked against the Api's IAM. */
let table: DynamoRecorder

beforeAll(async () => {
  stack = await startApiStack()
  await stack.provision('atlas')
  dynalite = await startDynalite()
  await createTable(localDynamoClient(dynalite.endpoint), 'bardo-test')
  table = await startDynamoRecorder(dynalite.endpoint)
})
afterAll(async () => {
  await table?.stop()
  await dynalite?.stop()
  await stack?.stop()
})
afterEach(() => {
  vi.unstubAllEnvs()
})

function deployedEnv(chainId: number): Record<string, string> {
  const d = stack.devnet.deployment
  return {
    BARDO_CHAIN_ID: String(chainId),
    BARDO_DEPLOYMENT: JSON.stringify({
      vitalityOracle: d.vitalityOracle,
      dreamOracle: d.dreamOracle,
      daimonOracle: d.daimonOracle,
      enforcers: d.enforcers,
      startBlock: d.startBlock.toString(),
    }),
    BARDO_TABLE_NAME: 'bardo-test',
    BARDO_TRUSTED_PROXY_HOPS: '0',
    BARDO_ALLOWED_ORIGINS: 'https://bardo.ai',
    BARDO_SECRET_RPC_URL: stack.devnet.rpcUrl,
    BARDO_SECRET_SETTLEMENT_KEY: settlementKey,
    BARDO_SECRET_CLADE_HMAC_SECRET: hmac,
    // The SDK's service endpoint override and placeholder credentials: the table lives on dynalite.
    AWS_ENDPOINT_URL_DYNAMODB: table.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  }
}

const event = (path: string, query = '') => ({
  version: '2.0',
  routeKey: '$default',
  rawPath: path,
  rawQueryString: query,
  headers: { host: 'api.example' },
  requestContext: {
    http: { method: 'GET', path, sourceIp: '203.0.113.7', protocol: 'HTTP/1.1', userAgent: 'test' },
    requestId: 'r1',
    stage: '$default',
    domainName: 'api.example',
    accountId: '1',
    apiId: 'a',
    time: '',
    timeEpoch: 0,
    routeKey: '$default',
  },
  body: null,
  isBase64Encoded: false,
})

type LambdaResult = { statusCode: number; body: string; headers: Record<string, string> }

describe('deployed configuration', () => {
  it('reads Base Sepolia settings: USDC and its EIP-712 domain from @x402/evm, payTo = the VitalityOracle owner, the secrets from SST links', async () => {
    const wiring = await loadDeployedWiring(deployedEnv(84532))
    expect(wiring.config).toMatchObject({ chainId: 84532, trustedProxyHops: 0, allowedOrigins: ['https://bardo.ai'], readApiKeyHashes: [] })
    expect(wiring.payments).toMatchObject({
      asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      tokenName: 'USDC',
      tokenVersion: '2',
      payTo: stack.operator,
      pricing: { runtimeCostPerHour: 500_000n, deathReserve: 12_000_000n },
      confirmationTimeoutMs: 20_000,
    })
    expect(wiring.payments!.settlement.account.address).toBe('0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC')
    expect(wiring.indexerUrl).toBeUndefined()
    // The action path signs with the Golems' KMS keys; spawning Replicants needs the operator key and
    // kms:CreateKey, which the internet-facing API does not hold: a spawnReplicant request is refused by name.
    expect(wiring.actions?.signers).toBeDefined()
    expect(wiring.actions?.replicants).toBeUndefined()
  })

  it('takes overrides, and names the variable (never the value) when one is wrong', async () => {
    const env = deployedEnv(84532)
    const custom = await loadPaymentWiring(
      {
        ...env,
        BARDO_PAY_TO: '0x000000000000000000000000000000000000bEEF',
        BARDO_RUNTIME_COST_PER_HOUR: '250000',
        BARDO_DEATH_RESERVE: '9000000',
        BARDO_USDC: stack.devnet.deployment.assets.usdc,
      },
      84532,
      stack.devnet.publicClient,
      stack.devnet.deployment.vitalityOracle,
    )
    // Another token than the known USDC: its domain is not assumed (core/x402's default applies).
    expect(custom).toMatchObject({
      payTo: '0x000000000000000000000000000000000000bEEF',
      pricing: { runtimeCostPerHour: 250_000n, deathReserve: 9_000_000n },
    })
    expect(custom.tokenName).toBeUndefined()
    // Chain 31337 has no known USDC: the deployment's TestUSDC is used.
    const local = await loadPaymentWiring(
      env,
      31337,
      stack.devnet.publicClient,
      stack.devnet.deployment.vitalityOracle,
      stack.devnet.deployment.assets.usdc,
    )
    expect(local.asset).toBe(stack.devnet.deployment.assets.usdc)
    const refused = async (extra: Record<string, string>): Promise<Error> =>
      loadPaymentWiring({ ...env, ...extra }, 84532, stack.devnet.publicClient, stack.devnet.deployment.vitalityOracle).then(
        () => new Error('accepted'),
        (e: unknown) => e as Error,
      )
    expect((await refused({ BARDO_PAY_TO: '0x12' })).message).toBe('BARDO_PAY_TO: must be a 20-byte hex address')
    expect((await refused({ BARDO_DEATH_RESERVE: '-1' })).message).toBe(
      "BARDO_DEATH_RESERVE: must be a positive integer in the asset's atomic units",
    )
    const badKey = await refused({ BARDO_SECRET_SETTLEMENT_KEY: '0xabc' })
    expect(badKey.message).toBe('SettlementKey: must be a 32-byte hex key')
    expect(JSON.stringify(badKey)).not.toContain('abc')
    // The receipt-signing key is optional, the API's own, and never the settlement key.
    expect(local.receiptSigner).toBeUndefined()
    const receiptKey = `0x${'5a'.repeat(32)}`
    const signed = await loadPaymentWiring(
      { ...env, BARDO_SECRET_RECEIPT_SIGNING_KEY: receiptKey },
      84532,
      stack.devnet.publicClient,
      stack.devnet.deployment.vitalityOracle,
    )
    expect(signed.receiptSigner?.address).toMatch(/^0x[0-9a-fA-F]{40}$/)
    expect(signed.receiptSigner?.address).not.toBe(signed.settlement.account.address)
    const badReceiptKey = await refused({ BARDO_SECRET_RECEIPT_SIGNING_KEY: '0xabcd' })
    expect(badReceiptKey.message).toBe('ReceiptSigningKey: must be a 32-byte hex key')
    expect(JSON.stringify(badReceiptKey)).not.toContain('abcd')
    const sameKey = await refused({ BARDO_SECRET_RECEIPT_SIGNING_KEY: env.BARDO_SECRET_SETTLEMENT_KEY! })
    expect(sameKey.message).toBe('ReceiptSigningKey: must not be the SettlementKey')
    expect(JSON.stringify(sameKey)).not.toContain(env.BARDO_SECRET_SETTLEMENT_KEY!.slice(2))
  })
})

describe('Lambda handler', () => {
  it('importing the module reads no configuration; a failed cold start is retried by the next invocation', async () => {
    vi.stubEnv('BARDO_CHAIN_ID', '')
    const mod = await import('../../functions/api/handler.ts')
    expect(typeof mod.handler).toBe('function')
    let calls = 0
    const lazy = createLazyApiHandler(async () => {
      calls++
      throw new Error('config: BARDO_CHAIN_ID must be set')
    })
    await expect(lazy(event('/openapi.json') as never)).rejects.toThrow('config: BARDO_CHAIN_ID must be set')
    await expect(lazy(event('/openapi.json') as never)).rejects.toThrow('config: BARDO_CHAIN_ID must be set')
    expect(calls).toBe(2)
  })

  it('builds the app once, on the first invocation, and serves the real services', async () => {
    let calls = 0
    const wiring = async (): Promise<ApiWiring> => {
      calls++
      return {
        config: {
          chainId: stack.devnet.deployment.chainId,
          allowedOrigins: [],
          trustedProxyHops: 0,
          readApiKeyHashes: [],
          clade: { hmacSecret: new Uint8Array(32).fill(7) },
        },
        store: stack.store,
        publicClient: stack.devnet.publicClient,
        deployment: stack.devnet.deployment,
      }
    }
    const lazy = createLazyApiHandler(wiring)
    expect(calls).toBe(0)
    const [a, b] = (await Promise.all([
      lazy(event('/api/v1/golems/atlas/permission-health') as never),
      lazy(event('/api/v1/golems/atlas/permission-health') as never),
    ])) as LambdaResult[]
    expect(calls).toBe(1)
    for (const r of [a!, b!]) {
      expect(r.statusCode).toBe(200)
      expect(JSON.parse(r.body)).toMatchObject({ golemId: 'atlas', health: 'healthy', remaining_today: '10000000' })
    }
    // No payments wired in this wiring: 501, asked before any payment.
    const extend = (await lazy({
      ...event('/api/v1/extend'),
      requestContext: {
        ...event('/api/v1/extend').requestContext,
        http: { ...event('/api/v1/extend').requestContext.http, method: 'POST' },
      },
      headers: { host: 'api.example', 'content-type': 'application/json' },
      body: JSON.stringify({ golemId: 'atlas', hours: 1 }),
    } as never)) as LambdaResult
    expect(extend.statusCode).toBe(501)
  })

  it('the exported handler cold-starts from the deployed environment (dynalite table, anvil RPC)', async () => {
    for (const [k, v] of Object.entries(deployedEnv(84532))) vi.stubEnv(k, v)
    const { handler } = await import('../../functions/api/handler.ts')
    const doc = (await handler(event('/openapi.json') as never)) as LambdaResult
    expect(doc.statusCode).toBe(200)
    expect(JSON.parse(doc.body)).toMatchObject({ openapi: '3.1.0' })
    expect(doc.headers['x-ratelimit-limit']).toBe('30')
    const again = (await handler(event('/api/v1/golems/nobody/permission-health') as never)) as LambdaResult
    expect(again.statusCode).toBe(404)
    // The store is the deployed one: the rate-limit counters are items in the dynalite table.
    const items = await localDynamoClient(dynalite.endpoint).send(new ScanCommand({ TableName: 'bardo-test' }))
    expect(items.Items?.some((i) => i.pk?.S?.startsWith('RATE#'))).toBe(true)
    expect(JSON.parse(again.body)).toMatchObject({ code: 'GOLEM_NOT_FOUND' })
    // The owner's surfaces are deployed too: the device confirmation page and its text, the owner's drafts.
    const page = (await handler(event('/device', 'user_code=BCDF-GHJK') as never)) as LambdaResult
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain('Confirm a CLI sign-in')
    const owner = '0x000000000000000000000000000000000000bEEF'
    const text = (await handler(
      event('/api/v1/auth/device/message', `userCode=BCDF-GHJK&owner=${owner}&decision=approve`) as never,
    )) as LambdaResult
    expect(text.statusCode).toBe(200)
    expect(JSON.parse(text.body).message).toContain(
      'Sign in the Bardo CLI showing code BCDF-GHJK\nOwner: 0x000000000000000000000000000000000000bEEF\nChain: 84532',
    )
    const post = (path: string, body: unknown) => ({
      ...event(path),
      requestContext: { ...event(path).requestContext, http: { ...event(path).requestContext.http, method: 'POST' } },
      headers: { host: 'api.example', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    const draft = (await handler(post('/api/v1/revocation-draft', { golems: ['nobody'] }) as never)) as LambdaResult
    expect(draft.statusCode).toBe(404)
    expect(JSON.parse(draft.body)).toMatchObject({ code: 'GOLEM_NOT_FOUND' })
    const bad = (await handler(post('/api/v1/revocation-draft', { golems: [] }) as never)) as LambdaResult
    expect(bad.statusCode).toBe(400)
    expect(JSON.parse(bad.body)).toMatchObject({ code: 'VALIDATION_FAILED', message: 'golems: must be a list of 1-50 Golem ids' })
    // The dashboard's reads are the deployed API's: its chain settings and an owner's fleet (none here).
    const config = (await handler(event('/api/v1/dashboard/config') as never)) as LambdaResult
    expect(config.statusCode).toBe(200)
    expect(JSON.parse(config.body)).toMatchObject({ chainId: 84532, network: 'eip155:84532', indexer: false })
    const fleet = (await handler(event('/api/v1/fleet', `owner=${owner}`) as never)) as LambdaResult
    expect(fleet.statusCode).toBe(200)
    expect(JSON.parse(fleet.body)).toMatchObject({ owner, golems: [] })
    const noOwner = (await handler(event('/api/v1/fleet', 'owner=nobody') as never)) as LambdaResult
    expect(noOwner.statusCode).toBe(400)
    expect(JSON.parse(noOwner.body)).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'owner: must be the owner smart account address',
      details: { field: 'owner' },
    })
  })
})

describe('the deployed API against its IAM statements', () => {
  // The local stand-ins enforce no IAM: a request the Api function may not send would be AccessDenied on AWS.
  it('sent only DynamoDB requests the stack gives the Api function', async () => {
    const allowed = (await allowedActions(['Api'])).Api
    const sent = [...new Set(table.operations.map((o) => `dynamodb:${o}`))].sort()
    expect(sent).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:UpdateItem']))
    expect(sent.filter((a) => !allowed.includes(a))).toEqual([])
  })
})
