// The deployed handlers, run as AWS runs them: the heartbeat handler is invoked through the Lambda
// Invoke API and sends one message per walk with @aws-sdk/client-sqs's SendMessageBatch to a local
// SQS endpoint, which delivers each to the walker handler as an SQS event; the walkers fan out with
// @aws-sdk/client-lambda's InvokeCommand (InvocationType Event) to a local Invoke endpoint that runs the
// tick handler in this process, on anvil and dynalite, with the Golems' keys behind a local KMS endpoint.
// Delivery is at least once: every tick event arrives three times, and
// in the second period the first delivery "times out" after doing its work and is retried. Each Golem
// is still redeemed exactly once per period, and so is a Golem the CLI onboards with a key it creates in KMS.
import { randomUUID } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda'
import { hexToBytes, toHex, type Hex, type PublicClient } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { Implementation, toMetaMaskSmartAccount } from '@metamask/smart-accounts-kit'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { MemoryKey } from '../../core/custody/memoryKey.ts'
import { SessionKey } from '../../core/custody/index.ts'
import { parseGolemProfile, serializeGolemProfile } from '../../core/lifecycle/profile.ts'
import { DynamoStore } from '../../adapters/store/index.ts'
import { MemorySignerResolver } from '../../adapters/signers/memorySignerResolver.ts'
import { handler as heartbeatHandler } from '../../functions/heartbeat/handler.ts'
import { handler as tickHandler } from '../../functions/tick/handler.ts'
import { handler as walkerHandler } from '../../functions/walker/handler.ts'
import { startSqsEndpoint, type SqsEndpoint } from './sqsEndpoint.ts'
import { encodeTickPayload } from '../../app/heartbeat/tickPayload.ts'
import { decodeShardWalk, encodeShardWalk } from '../../app/heartbeat/shardWalk.ts'
import { DEFAULT_DUE_SHARDS, dueShard } from '../../adapters/store/keys.ts'
import { devnetAccount, startDevnet, type Devnet } from '../../local/devnet.ts'
import { createTable, documentClient, localDynamoClient, startDynalite, type Dynalite } from '../../local/dynalite.ts'
import { provisionGolem, type ProvisionedGolem } from '../../local/provision.ts'
import { DAY, passStaggerOffsets, usdcTransfersFrom, WHOLE_RUNWAY_ON_KEY } from '../heartbeat/harness.ts'
import { runCli } from '../../cli/bardo.ts'
import type { CliChain } from '../../cli/context.ts'
import { createGolemKmsKey } from '../../cli/kmsKeys.ts'
import { startKmsEndpoint, type KmsEndpoint } from './kmsEndpoint.ts'
import { startLambdaInvokeEndpoint, type LambdaInvokeEndpoint } from './invokeEndpoint.ts'
import { startDynamoRecorder, type DynamoRecorder } from './dynamoRecorder.ts'

const GOLEMS = ['lambda-a', 'lambda-b', 'lambda-c'] as const
/** The due shards holding them, as the store spreads Golems over its due list. */
const GOLEM_SHARDS = [...new Set(GOLEMS.map((id) => dueShard(id, DEFAULT_DUE_SHARDS)))].sort((a, b) => a - b)
const STRATEGY = readFileSync(new URL('../../examples/STRATEGY.md', import.meta.url), 'utf8')

let devnet: Devnet
let dynalite: Dynalite
let store: DynamoStore
let kms: KmsEndpoint
let lambda: LambdaInvokeEndpoint
let sqs: SqsEndpoint
let client: LambdaClient
let dynamo: DynamoRecorder
const golems: { id: string; golem: ProvisionedGolem; owner: `0x${string}` }[] = []

/** The handlers' stdout: structured logs and EMF lines, as CloudWatch Logs would receive them. */
const logLines: Record<string, unknown>[] = []

const kmsKeys: Record<string, Hex> = {}
const keyIdOf = (id: string) => `arn:aws:kms:us-east-1:111122223333:key/${id}`

/** One heartbeat, then every walk it sent and every tick those handed over; the walkers' counts summed. */
async function beat(): Promise<{ due: number; invoked: number; idle: number; shards: number }> {
  const from = logLines.length
  const out = await client.send(new InvokeCommand({ FunctionName: 'heartbeat', InvocationType: 'RequestResponse' }))
  expect(out.FunctionError, out.Payload ? Buffer.from(out.Payload).toString() : '').toBeUndefined()
  await sqs.idle()
  await lambda.idle()
  const walks = logLines.slice(from).filter((l) => l.message === 'walk')
  const sum = (field: string) => walks.reduce((a, l) => a + Number(l[field] ?? 0), 0)
  const { shards } = JSON.parse(Buffer.from(out.Payload!).toString()) as { shards: number }
  return { due: sum('due'), invoked: sum('invoked'), idle: sum('idle'), shards }
}

const runwayRedemptions = async (owner: `0x${string}`) =>
  (await usdcTransfersFrom(devnet.publicClient as PublicClient, devnet.deployment.assets.usdc, owner)).length

beforeAll(async () => {
  ;[devnet, dynalite] = await Promise.all([startDevnet(), startDynalite()])
  const table = `bardo-${randomUUID().slice(0, 8)}`
  const raw = localDynamoClient(dynalite.endpoint)
  await createTable(raw, table)
  store = new DynamoStore({ client: documentClient(raw), tableName: table })

  // Each Golem's key lives in the local KMS; the profile names it by key ARN, as on AWS.
  const keys = kmsKeys
  const now = (await devnet.publicClient.getBlock()).timestamp
  for (const id of GOLEMS) {
    const privateKey = generatePrivateKey()
    keys[keyIdOf(id)] = privateKey
    const owner = await devnet.createOwner()
    const sessionKey = SessionKey.fromMemoryKey(MemoryKey.fromBytes(hexToBytes(privateKey)), {
      expiresAt: Number(now) + 30 * DAY,
      initialBudget: 0n,
      now: Number(now),
    })
    const golem = await provisionGolem({
      keyCeiling: WHOLE_RUNWAY_ON_KEY,
      clients: devnet,
      deployment: devnet.deployment,
      store,
      signers: new MemorySignerResolver(devnet.deployment),
      owner,
      golemId: id,
      strategy: STRATEGY,
      sessionKey,
    })
    const record = (await store.getGolem(id))!
    const profile = { ...parseGolemProfile(record.profile), signer: { kind: 'kms' as const, keyId: keyIdOf(id) } }
    await store.updateGolem({
      golemId: id,
      expectedVersion: record.version,
      patch: { profile: serializeGolemProfile(profile) },
      now: Date.now(),
    })
    sessionKey.zero()
    golems.push({ id, golem, owner: owner.address })
  }
  // Whole days later each tick is past the Golem's stagger offset, so every period's tick redeems.
  await passStaggerOffsets(devnet, GOLEMS)
  kms = await startKmsEndpoint(keys)
  lambda = await startLambdaInvokeEndpoint(
    { heartbeat: () => heartbeatHandler(), tick: (event, context) => tickHandler(event, context) },
    { duplicates: 2 },
  )
  sqs = await startSqsEndpoint((event, context) => walkerHandler(event, context))
  // The handlers reach dynalite through a recorder that counts their requests by operation.
  dynamo = await startDynamoRecorder(dynalite.endpoint)

  // The functions' environment as stacks/ sets it, with the AWS services' endpoints pointed here.
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_LAMBDA: lambda.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_KMS: kms.endpoint,
    AWS_ENDPOINT_URL_SQS: sqs.endpoint,
    BARDO_WALK_QUEUE_URL: sqs.queueUrl,
    BARDO_CHAIN_ID: String(devnet.deployment.chainId),
    BARDO_DEPLOYMENT: JSON.stringify(devnet.deployment, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
    BARDO_TABLE_NAME: table,
    BARDO_TICK_FUNCTION_NAME: 'tick',
    BARDO_SECRET_RPC_URL: devnet.rpcUrl,
    BARDO_SECRET_OPERATOR_KEY: toHex(devnetAccount(1).getHdKey().privateKey!),
  })
  client = new LambdaClient({ endpoint: lambda.endpoint })
  const write = process.stdout.write.bind(process.stdout)
  vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString()
    for (const line of text.split('\n')) if (line.startsWith('{')) logLines.push(JSON.parse(line) as Record<string, unknown>)
    return (write as (...a: unknown[]) => boolean)(chunk, ...rest)
  }) as typeof process.stdout.write)
}, 180_000)

afterAll(async () => {
  vi.restoreAllMocks()
  client?.destroy()
  await Promise.allSettled([lambda?.stop(), sqs?.stop(), kms?.stop(), dynamo?.stop(), dynalite?.stop(), devnet?.stop()])
})

describe('heartbeat -> SendMessageBatch -> walker -> InvokeCommand -> tick, delivered at least once', () => {
  it('speaks the Invoke API: unknown functions are 404, DryRun is 204', async () => {
    await expect(client.send(new InvokeCommand({ FunctionName: 'nope', InvocationType: 'Event' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    })
    const dry = await client.send(new InvokeCommand({ FunctionName: 'tick', InvocationType: 'DryRun' }))
    expect(dry.StatusCode).toBe(204)
  })

  it('the first beat fans out to every due Golem; three deliveries of each tick redeem once', async () => {
    const result = await beat()
    expect(result).toMatchObject({ due: GOLEMS.length, invoked: GOLEMS.length, shards: store.dueShards })
    // Three Golems are less than a page: one walk covers every shard holding one, and no other shard.
    expect(sqs.sent.map((b) => decodeShardWalk(b).shards)).toEqual([GOLEM_SHARDS])
    expect(sqs.deliveries.every((d) => d.outcome === 'ok')).toBe(true)
    expect(lambda.accepted).toBeGreaterThanOrEqual(1)
    const ticks = lambda.deliveries.filter((d) => d.functionName === 'tick')
    expect(ticks.length).toBe(3 * lambda.accepted)
    expect(ticks.every((d) => d.outcome === 'ok')).toBe(true)
    for (const g of golems) expect(await runwayRedemptions(g.owner)).toBe(1)
    expect(kms.signCalls).toBeGreaterThan(0)
    // Each delivery logged its ticks with its request id; the duplicates were counted as reconciled slots.
    const requestIds = new Set(ticks.map((d) => d.requestId))
    const tickLogs = logLines.filter((l) => l.message === 'tick')
    expect(tickLogs.length).toBe(3 * GOLEMS.length)
    expect(tickLogs.every((l) => requestIds.has(l.requestId as string))).toBe(true)
    const emf = logLines.filter((l) => '_aws' in l && l.function === 'tick')
    expect(emf.some((l) => typeof l.SlotReconciled === 'number' && requestIds.has(l.requestId as string))).toBe(true)
    expect(logLines.some((l) => l.message === 'heartbeat' && l.shards === store.dueShards)).toBe(true)
  })

  it('a retried tick (its first delivery timed out after the work was done) and duplicates still redeem once in the next period', async () => {
    lambda.setBehaviour({ duplicates: 1, failFirstAttemptAfterRun: true })
    await devnet.increaseTime(DAY)
    const before = lambda.deliveries.length
    const result = await beat()
    expect(result.invoked).toBe(GOLEMS.length)
    const ticks = lambda.deliveries.slice(before).filter((d) => d.functionName === 'tick')
    expect(ticks.some((d) => d.outcome === 'error' && d.attempt === 0)).toBe(true)
    const retried = ticks.filter((d) => d.attempt === 1)
    expect(retried.length).toBeGreaterThan(0)
    expect(retried.every((d) => d.outcome === 'ok')).toBe(true)
    for (const g of golems) expect(await runwayRedemptions(g.owner)).toBe(2)
  })

  it('a duplicated cron event (two heartbeats at once), each walk delivered twice, redeems once per Golem in the period', async () => {
    lambda.setBehaviour({ duplicates: 2 })
    sqs.setBehaviour({ duplicates: 1 })
    await devnet.increaseTime(DAY)
    const before = sqs.deliveries.length
    const [first, second] = await Promise.all([beat(), beat()])
    sqs.setBehaviour({})
    // Two heartbeats, one walk each, every walk delivered twice.
    expect(sqs.deliveries.length - before).toBe(2 * 2)
    expect(first.invoked + second.invoked).toBeGreaterThanOrEqual(GOLEMS.length)
    for (const g of golems) expect(await runwayRedemptions(g.owner)).toBe(3)
  })

  it("an idle minute: every Golem is observed and none is invoked, and no Golem's item is written", async () => {
    // A minute after every Golem redeemed its period: nothing to post, redeem, pay, rotate or report.
    await devnet.increaseTime(61)
    const invocations = lambda.deliveries.length
    const requests = dynamo.operations.length
    const written = dynamo.writes.length
    const result = await beat()
    expect(result).toMatchObject({ due: GOLEMS.length, idle: GOLEMS.length, invoked: 0 })
    expect(lambda.deliveries.length - invocations).toBe(0)
    // The one write is the fleet's: the walk's record that its shards were observed (one per walk).
    expect(dynamo.writes.slice(written)).toEqual([{ operation: 'UpdateItem', pks: ['HEARTBEAT'] }])
    // Otherwise the heartbeat's read only: each shard's first page of the due list, each page's records in one batch.
    const operations = dynamo.operations.slice(requests)
    expect(operations.filter((o) => o !== 'Query' && o !== 'BatchGetItem' && o !== 'UpdateItem')).toEqual([])
    expect(operations.filter((o) => o === 'BatchGetItem')).toHaveLength(GOLEM_SHARDS.length)
    for (const g of golems) expect((await store.getGolem(g.id))!.lastTick?.outcome).toBe('confirmed')
  })

  it('runs the Golems of one tick invocation side by side: one that fails loses none of the others, and the event is retried', async () => {
    await devnet.increaseTime(61)
    const from = logLines.length
    const broken = { ...(await store.getGolem('lambda-b'))!, profile: '{}' }
    const event = JSON.parse(encodeTickPayload([{ golemId: 'lambda-a' }, { golemId: 'lambda-b', record: broken }, { golemId: 'lambda-c' }]))
    await expect(tickHandler(event, { awsRequestId: 'batch-with-a-failure' })).rejects.toMatchObject({
      name: 'TickBatchError',
      failed: ['lambda-b'],
      ticked: 2,
    })
    const lines = logLines.slice(from)
    expect(
      lines
        .filter((l) => l.message === 'tick')
        .map((l) => l.golemId)
        .sort(),
    ).toEqual(['lambda-a', 'lambda-c'])
    expect(lines.filter((l) => l.message === 'tick failed').map((l) => l.golemId)).toEqual(['lambda-b'])
    expect(lines.find((l) => '_aws' in l && l.requestId === 'batch-with-a-failure')).toMatchObject({ TickFailed: 1 })
    // The broken copy failed before its lease: lambda-b's record was not touched.
    expect((await store.getGolem('lambda-b'))!.lastTick?.outcome).not.toBe('running')
  })

  it('the walker drops a walk older than its minute and reports a malformed one as the failed item', async () => {
    const from = logLines.length
    const block = await devnet.publicClient.getBlock()
    const stale = encodeShardWalk({ shards: [0], blockNumber: block.number, timestamp: block.timestamp, dispatchedAt: Date.now() - 61_000 })
    const out = await walkerHandler({
      Records: [
        { messageId: 'stale', body: stale },
        { messageId: 'malformed', body: '{"shards":[-1]}' },
        {
          messageId: 'past-the-shards',
          body: encodeShardWalk({ shards: [0, store.dueShards], blockNumber: 1n, timestamp: 1n, dispatchedAt: Date.now() }),
        },
      ],
    })
    expect(out).toEqual({ batchItemFailures: [{ itemIdentifier: 'malformed' }, { itemIdentifier: 'past-the-shards' }] })
    const lines = logLines.slice(from)
    expect(lines.filter((l) => l.message === 'walk dropped')).toMatchObject([{ shards: [0] }])
    expect(lines.filter((l) => l.message === 'walk')).toEqual([])
    expect(lines.find((l) => '_aws' in l && l.function === 'walker')).toMatchObject({ WalkFailed: 2 })
  })

  it('names the shards of a walk the queue refused in the heartbeat failure (they are walked the next minute)', async () => {
    sqs.setBehaviour({ failSendsOf: () => true })
    const out = await client.send(new InvokeCommand({ FunctionName: 'heartbeat', InvocationType: 'RequestResponse' }))
    sqs.setBehaviour({})
    await sqs.idle()
    await lambda.idle()
    expect(JSON.parse(Buffer.from(out.Payload!).toString())).toMatchObject({
      errorType: 'ShardDispatchError',
      errorMessage: expect.stringContaining(`shards ${GOLEM_SHARDS.join(', ')} were not sent`),
    })
    expect(logLines.some((l) => l.message === 'heartbeat failed' && String(l.error).includes('ShardDispatchError'))).toBe(true)
  })

  it('a Golem onboarded with `bardo onboard --kms` gets a key created and tagged for it, once, and the deployed tick redeems it once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bardo-kms-'))
    const deploymentFile = join(dir, 'deployment.json')
    writeFileSync(
      deploymentFile,
      JSON.stringify(devnet.deployment, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
    )
    writeFileSync(join(dir, 'STRATEGY.md'), STRATEGY)
    const ownerKey = generatePrivateKey()
    const ownerSigner = privateKeyToAccount(ownerKey)
    const smartAccount = await toMetaMaskSmartAccount({
      client: devnet.publicClient as never,
      implementation: Implementation.Hybrid,
      deployParams: [ownerSigner.address, [], [], []],
      deploySalt: '0x',
      signer: { account: ownerSigner },
      environment: devnet.deployment.environment,
    })
    const { factory, factoryData } = await smartAccount.getFactoryArgs()
    const wait = async (hash: Promise<Hex>) => devnet.publicClient.waitForTransactionReceipt({ hash: await hash })
    await wait(devnet.deployer.sendTransaction({ to: factory!, data: factoryData! }))
    await devnet.mintUsdc(smartAccount.address, 1_000_000_000n)
    await wait(devnet.deployer.sendTransaction({ to: smartAccount.address, value: 2n * 10n ** 18n }))
    await wait(devnet.deployer.sendTransaction({ to: ownerSigner.address, value: 10n ** 18n }))
    let stderr = ''
    const cliEnv = {
      ...process.env,
      BARDO_RPC_URL: devnet.rpcUrl,
      BARDO_DEPLOYMENT: deploymentFile,
      BARDO_OPERATOR_KEY: toHex(devnetAccount(1).getHdKey().privateKey!),
      BARDO_OWNER_KEY: ownerKey,
      BARDO_DYNAMODB_ENDPOINT: dynalite.endpoint,
      BARDO_KMS_ALIAS_PREFIX: 'alias/bardo-custody/test',
    }
    // An earlier onboarding died after creating and naming the key: the retry below finds it, creates none.
    const earlier = await createGolemKmsKey({
      aliasPrefix: 'alias/bardo-custody/test',
      golemId: 'kms-golem',
      store,
      chain: { publicClient: devnet.publicClient } as unknown as CliChain,
      deployment: devnet.deployment,
    })
    expect(earlier.created).toBe(true)
    const code = await runCli(['onboard', '--golem', 'kms-golem', '--strategy', join(dir, 'STRATEGY.md'), '--kms'], {
      env: cliEnv,
      stdout: { write: () => true },
      stderr: { write: (t: string) => (stderr += t) },
    })
    expect(code, stderr).toBe(0)
    const [keyId] = kms.kms.created
    expect(kms.kms.created).toEqual([earlier.signer.kind === 'kms' ? earlier.signer.keyId : ''])
    expect(kms.kms.tags.get(keyId!)).toEqual({ 'bardo:stage': 'test', 'bardo:role': 'session-key', 'bardo:golem': 'kms-golem' })
    expect(kms.kms.aliases.get('alias/bardo-custody/test/golem/kms-golem')).toBe(keyId)
    // A second onboarding of the id is refused before anything is signed, created or written.
    stderr = ''
    const again = await runCli(['onboard', '--golem', 'kms-golem', '--strategy', join(dir, 'STRATEGY.md'), '--kms'], {
      env: { ...cliEnv },
      stdout: { write: () => true },
      stderr: { write: (t: string) => (stderr += t) },
    })
    rmSync(dir, { recursive: true, force: true })
    expect(again).toBe(1)
    expect(stderr).toContain('already has an active grant')
    expect(kms.kms.created).toHaveLength(1)
    const profile = parseGolemProfile((await store.getGolem('kms-golem'))!.profile)
    expect(profile.signer).toEqual({ kind: 'kms', keyId })
    expect(profile.golemKey).toBe(privateKeyToAccount(kmsKeys[keyId!]!).address)
    await beat()
    expect(await runwayRedemptions(smartAccount.address)).toBe(1)
  })
})
