// The deployed heartbeat's and walker's AWS requests against the IAM statements the stack gives each.
// The handlers run on a real chain (anvil) with DynamoDB, SQS and Lambda clients whose commands are
// recorded and answered (aws-sdk-client-mock, on the document client DynamoStore sends through): every
// command a handler sends must be an action one of its function's statements allows. The local Lambda and SQS stand-ins enforce no IAM, so a
// handler that starts sending a command its function may not send (AccessDenied on AWS) fails here.
import { LambdaClient } from '@aws-sdk/client-lambda'
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs'
import { BatchGetCommand, DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb'
import { mockClient } from 'aws-sdk-client-mock'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { dueToItem, golemToItem } from '../../adapters/store/codec.ts'
import { DEFAULT_DUE_SHARDS, duePk, dueShard } from '../../adapters/store/keys.ts'
import type { GolemRecord } from '../../core/store/index.ts'
import { handler as heartbeatHandler } from '../../functions/heartbeat/handler.ts'
import { decodeShardWalk, encodeShardWalk } from '../../app/heartbeat/shardWalk.ts'
import { handler as walkerHandler } from '../../functions/walker/handler.ts'
import { startAnvil, type Anvil } from '../../local/anvil.ts'
import { allowedActions } from './stackIam.ts'
import { testDeployment } from '../support/deployment.ts'

const addr = (n: number): `0x${string}` => `0x${n.toString(16).padStart(40, '0')}`
const DEPLOYMENT = testDeployment()
/** The framework's other contracts, which a deployment on a chain the kit does not know carries whole. */
const ENVIRONMENT = { EntryPoint: addr(0x3002), SimpleFactory: addr(0x3003), implementations: {} }

/** The document client's commands by the DynamoDB API action each sends. */
const DOCUMENT_ACTIONS: Record<string, string> = {
  GetCommand: 'GetItem',
  PutCommand: 'PutItem',
  UpdateCommand: 'UpdateItem',
  DeleteCommand: 'DeleteItem',
  QueryCommand: 'Query',
  BatchGetCommand: 'BatchGetItem',
  BatchWriteCommand: 'BatchWriteItem',
}

/** The IAM action a recorded SDK command needs (SQS's SendMessageBatch is allowed by sqs:SendMessage). */
function iamAction(service: 'dynamodb' | 'sqs' | 'lambda', command: string): string {
  const name = command.replace(/Command$/, '')
  if (service === 'dynamodb') return `dynamodb:${DOCUMENT_ACTIONS[command] ?? name}`
  if (service === 'lambda' && name === 'Invoke') return 'lambda:InvokeFunction'
  return `${service}:${service === 'sqs' && name === 'SendMessageBatch' ? 'SendMessage' : name}`
}

/** Every command the mocked clients received, as IAM actions. */
function sentActions(): string[] {
  return [
    ...dynamo.calls().map((c) => iamAction('dynamodb', c.args[0].constructor.name)),
    ...sqs.calls().map((c) => iamAction('sqs', c.args[0].constructor.name)),
    ...lambda.calls().map((c) => iamAction('lambda', c.args[0].constructor.name)),
  ]
}

let anvil: Anvil
const allowed: Record<'Heartbeat' | 'Walker', string[]> = { Heartbeat: [], Walker: [] }
const dynamo = mockClient(DynamoDBDocumentClient)
const sqs = mockClient(SQSClient)
const lambda = mockClient(LambdaClient)
/** One Golem due in its shard, so the heartbeat has a walk to send. */
const DUE_GOLEM = 'iam-golem'

beforeAll(async () => {
  anvil = await startAnvil()
  Object.assign(allowed, await allowedActions(['Heartbeat', 'Walker']))
  // The heartbeat's environment as the stack sets it, its chain and services pointed here.
  vi.stubEnv('AWS_REGION', 'us-east-1')
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'local')
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local')
  vi.stubEnv('BARDO_CHAIN_ID', String(anvil.chainId))
  vi.stubEnv(
    'BARDO_DEPLOYMENT',
    JSON.stringify({ ...DEPLOYMENT, environment: { ...ENVIRONMENT, DelegationManager: addr(0x3001), caveatEnforcers: {} } }),
  )
  vi.stubEnv('BARDO_TABLE_NAME', 'bardo-iam')
  vi.stubEnv('BARDO_WALK_QUEUE_URL', 'https://sqs.local/walks')
  vi.stubEnv('BARDO_TICK_FUNCTION_NAME', 'tick')
  vi.stubEnv('BARDO_SECRET_RPC_URL', anvil.rpcUrl)
  vi.stubEnv('DO_NOT_TRACK', '1')
  // Dead since its entry was written: the walker lists it, reads its record and skips it (no chain read).
  const record: GolemRecord = {
    golemId: DUE_GOLEM,
    owner: addr(0xa1),
    sessionKeyAddress: addr(0xb2),
    custodyMode: 'Delegation',
    profile: null,
    status: 'dead',
    phase: 'Thriving',
    nextTickAt: 0,
    lastTick: null,
    createdAt: 0,
    updatedAt: 0,
    version: 2,
  }
  dynamo.on(QueryCommand).callsFake((input: { ExpressionAttributeValues?: Record<string, unknown> }) => {
    const mine = Object.values(input.ExpressionAttributeValues ?? {}).includes(duePk(dueShard(DUE_GOLEM, DEFAULT_DUE_SHARDS)))
    return { Items: mine ? [dueToItem({ ...record, status: 'alive', version: 1 }, DEFAULT_DUE_SHARDS)] : [] }
  })
  dynamo.on(BatchGetCommand).resolves({ Responses: { 'bardo-iam': [golemToItem(record)] } })
  // The walk's record that its shard was observed.
  dynamo.on(UpdateCommand).resolves({})
  sqs.on(SendMessageBatchCommand).callsFake((input: { Entries?: { Id?: string }[] }) => ({
    Successful: (input.Entries ?? []).map((e) => ({ Id: e.Id, MessageId: `m-${e.Id}`, MD5OfMessageBody: '' })),
    Failed: [],
  }))
})

afterAll(async () => {
  dynamo.restore()
  sqs.restore()
  lambda.restore()
  vi.unstubAllEnvs()
  await anvil?.stop()
})

describe('the deployed heartbeat against its IAM statements', () => {
  it('the heartbeat sends only commands its statements allow: it lists the due shards and sends the walk of the one Golem due', async () => {
    const result = await heartbeatHandler(undefined, { awsRequestId: 'iam' })
    expect(result).toMatchObject({ shards: DEFAULT_DUE_SHARDS, walks: 1 })
    const sent = sentActions()
    expect(new Set(sent)).toEqual(new Set(['dynamodb:Query', 'sqs:SendMessage']))
    for (const action of sent) expect(allowed.Heartbeat, action).toContain(action)
    const [batch] = sqs.commandCalls(SendMessageBatchCommand)
    const bodies = (batch!.args[0].input.Entries ?? []).map((e) => decodeShardWalk(e.MessageBody!))
    expect(bodies.map((w) => w.shards)).toEqual([[dueShard(DUE_GOLEM, DEFAULT_DUE_SHARDS)]])
  })

  it("the walker sends only commands its statements allow: it lists its shard, reads the page's records and records the walk", async () => {
    dynamo.resetHistory()
    sqs.resetHistory()
    const shard = dueShard(DUE_GOLEM, DEFAULT_DUE_SHARDS)
    const block = { blockNumber: 1n, timestamp: BigInt(Math.floor(Date.now() / 1000)) }
    const out = await walkerHandler(
      { Records: [{ messageId: 'walk', body: encodeShardWalk({ shards: [shard], ...block, dispatchedAt: Date.now() }) }] },
      { awsRequestId: 'iam-walk' },
    )
    expect(out).toEqual({ batchItemFailures: [] })
    const sent = sentActions()
    expect(new Set(sent)).toEqual(new Set(['dynamodb:Query', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem']))
    for (const action of sent) expect(allowed.Walker, action).toContain(action)
  })
})
