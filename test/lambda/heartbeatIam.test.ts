// The deployed heartbeat's AWS requests against the IAM statements the stack gives it. The handler runs
// on a real chain (anvil) with DynamoDB and SQS clients whose commands are recorded and answered
// (aws-sdk-client-mock, on the document client DynamoStore sends through): every command it sends must
// be an action one of its statements allows. The local Lambda and SQS stand-ins enforce no IAM, so a
// handler that starts sending a command its function may not send (AccessDenied on AWS) fails here.
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs'
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb'
import { mockClient } from 'aws-sdk-client-mock'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { dueToItem } from '../../adapters/store/codec.ts'
import { DEFAULT_DUE_SHARDS, duePk, dueShard } from '../../adapters/store/keys.ts'
import type { GolemRecord } from '../../core/store/index.ts'
import { handler as heartbeatHandler } from '../../functions/heartbeat/handler.ts'
import { decodeShardWalk } from '../../functions/shared/shardWalk.ts'
import { startAnvil, type Anvil } from '../../local/anvil.ts'
import { effectiveStatements, installStandIns, type StandIns } from '../../stacks/testing.ts'

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`
const DEPLOYMENT = { vitalityOracle: addr(0x1001), dreamOracle: addr(0x1002), daimonOracle: addr(0x1003), enforcers: {} }

/** The IAM action a recorded SDK command needs (SQS's SendMessageBatch is allowed by sqs:SendMessage). */
function iamAction(service: 'dynamodb' | 'sqs', command: string): string {
  const name = command.replace(/Command$/, '')
  return `${service}:${service === 'sqs' && name === 'SendMessageBatch' ? 'SendMessage' : name}`
}

let anvil: Anvil
let allowed: string[]
const dynamo = mockClient(DynamoDBDocumentClient)
const sqs = mockClient(SQSClient)
/** One Golem due in its shard, so the heartbeat has a walk to send. */
const DUE_GOLEM = 'iam-golem'

beforeAll(async () => {
  anvil = await startAnvil()
  vi.stubEnv('BARDO_DEPLOYMENT', JSON.stringify(DEPLOYMENT))
  vi.stubEnv('BARDO_CHAIN_ID', '84532')
  let standIns: StandIns | undefined
  try {
    standIns = installStandIns({ stage: 'production' })
    const { default: config } = (await import('../../sst.config.ts')) as unknown as { default: { run(): Promise<unknown> } }
    await config.run()
    allowed = effectiveStatements(standIns, standIns.one('sst:aws:Function', 'Heartbeat')).flatMap((s) => s.actions)
  } finally {
    standIns?.uninstall()
    vi.unstubAllEnvs()
  }
  // The heartbeat's environment as the stack sets it, its chain and services pointed here.
  vi.stubEnv('AWS_REGION', 'us-east-1')
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'local')
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local')
  vi.stubEnv('BARDO_CHAIN_ID', String(anvil.chainId))
  vi.stubEnv('BARDO_DEPLOYMENT', JSON.stringify({ ...DEPLOYMENT, environment: { DelegationManager: addr(0x3001), caveatEnforcers: {} } }))
  vi.stubEnv('BARDO_TABLE_NAME', 'bardo-iam')
  vi.stubEnv('BARDO_WALK_QUEUE_URL', 'https://sqs.local/walks')
  vi.stubEnv('BARDO_SECRET_RPC_URL', anvil.rpcUrl)
  vi.stubEnv('DO_NOT_TRACK', '1')
  const record = { golemId: DUE_GOLEM, nextTickAt: 0, status: 'alive', version: 1 } as GolemRecord
  dynamo.on(QueryCommand).callsFake((input: { ExpressionAttributeValues?: Record<string, unknown> }) => {
    const mine = Object.values(input.ExpressionAttributeValues ?? {}).includes(duePk(dueShard(DUE_GOLEM, DEFAULT_DUE_SHARDS)))
    return { Items: mine ? [dueToItem(record, DEFAULT_DUE_SHARDS)] : [] }
  })
  sqs.on(SendMessageBatchCommand).callsFake((input: { Entries?: { Id?: string }[] }) => ({
    Successful: (input.Entries ?? []).map((e) => ({ Id: e.Id, MessageId: `m-${e.Id}`, MD5OfMessageBody: '' })),
    Failed: [],
  }))
})

afterAll(async () => {
  dynamo.restore()
  sqs.restore()
  vi.unstubAllEnvs()
  await anvil?.stop()
})

describe('the deployed heartbeat against its IAM statements', () => {
  it('sends only commands its statements allow: it lists the due shards and sends the walk of the one Golem due', async () => {
    const result = await heartbeatHandler(undefined, { awsRequestId: 'iam' })
    expect(result).toMatchObject({ shards: DEFAULT_DUE_SHARDS, walks: 1 })
    const sent = [
      ...dynamo.calls().map((c) => iamAction('dynamodb', c.args[0].constructor.name)),
      ...sqs.calls().map((c) => iamAction('sqs', c.args[0].constructor.name)),
    ]
    expect(new Set(sent)).toEqual(new Set(['dynamodb:Query', 'sqs:SendMessage']))
    for (const action of sent) expect(allowed, action).toContain(action)
    const [batch] = sqs.commandCalls(SendMessageBatchCommand)
    const bodies = (batch!.args[0].input.Entries ?? []).map((e) => decodeShardWalk(e.MessageBody!))
    expect(bodies.map((w) => w.shards)).toEqual([[dueShard(DUE_GOLEM, DEFAULT_DUE_SHARDS)]])
  })
})
