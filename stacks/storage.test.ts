// The table the stack defines, and the IAM actions it grants, against what DynamoStore really does:
// the store runs on dynalite on a table built from the stack's own definition, and every command it
// sends must be one the stack grants (the heartbeat's read paths: one the read grant allows).
import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { golemInput, hex32, addr, T0 } from '../adapters/store/conformance/fixtures.ts'
import { DynamoStore } from '../adapters/store/dynamoStore.ts'
import { documentClient, localDynamoClient, startDynalite, type Dynalite } from '../local/dynalite.ts'
import type { StackConfig } from './config.ts'
import { createStorage } from './storage.ts'
import { installStandIns, type StandIns } from './testing.ts'

let dynalite: Dynalite
let client: DynamoDBClient
let standIns: StandIns
let storage: ReturnType<typeof createStorage>
const sent = new Set<string>()

beforeAll(async () => {
  standIns = installStandIns({ stage: 'test' })
  storage = createStorage({ production: false, stage: 'test' } as StackConfig)
  dynalite = await startDynalite()
  client = localDynamoClient(dynalite.endpoint)
  // Record every DynamoDB operation the store sends, as the IAM action it needs.
  client.middlewareStack.add(
    (next, context) => async (args) => {
      sent.add(`dynamodb:${String((context as { commandName?: string }).commandName).replace(/Command$/, '')}`)
      return next(args)
    },
    { step: 'initialize', name: 'recordActions' },
  )
  // The table exactly as the stack declares it.
  const { args } = standIns.one('sst:aws:Dynamo', 'Store')
  const types = { string: 'S', number: 'N', binary: 'B' } as const
  await client.send(
    new CreateTableCommand({
      TableName: 'bardo-stack',
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: Object.entries(args.fields as Record<string, keyof typeof types>).map(([AttributeName, t]) => ({
        AttributeName,
        AttributeType: types[t],
      })),
      KeySchema: [
        { AttributeName: args.primaryIndex.hashKey, KeyType: 'HASH' },
        ...(args.primaryIndex.rangeKey ? [{ AttributeName: args.primaryIndex.rangeKey, KeyType: 'RANGE' as const }] : []),
      ],
    }),
  )
  sent.clear()
})
afterAll(async () => {
  standIns?.uninstall()
  client?.destroy()
  await dynalite?.stop()
})

const store = () => new DynamoStore({ client: documentClient(client), tableName: 'bardo-stack', dueShards: 2 })

describe('the stack table under DynamoStore', () => {
  it("serves the heartbeat's read paths with only the read grant", async () => {
    const s = store()
    await s.createGolem(golemInput('g-read'))
    sent.clear()
    await s.listDueGolems({ now: T0 + 1 })
    await s.getGolem('g-read')
    expect(sent.size).toBeGreaterThan(0)
    for (const action of sent) expect(storage.read.actions).toContain(action)
  })

  it('serves every store operation with only the read/write grant', async () => {
    sent.clear()
    const s = store()
    const slot = { golemId: 'g-1', period: 7n, step: 'redeem' }
    const pay = { payer: addr(7), nonce: hex32(0xabc) }
    await s.createGolem(golemInput('g-1'))
    const golem = await s.getGolem('g-1')
    await s.updateGolem({ golemId: 'g-1', expectedVersion: golem!.version, patch: { nextTickAt: T0 + 60_000 }, now: T0 })
    await s.listDueGolems({ now: T0 + 120_000 })
    await s.claimSlot({ ...slot, owner: 'inv-a', now: T0, leaseMs: 30_000 })
    await s.recordSlotTx({ ...slot, owner: 'inv-a', txHash: hex32(1), nonce: 0, now: T0 + 1 })
    await s.completeSlot({ ...slot, owner: 'inv-a', outcome: 'confirmed', txHash: hex32(1), now: T0 + 2 })
    await s.claimSlot({ ...slot, step: 'phase', owner: 'inv-b', now: T0, leaseMs: 30_000 })
    await s.releaseSlot({ ...slot, step: 'phase', owner: 'inv-b', now: T0 + 1 })
    await s.getSlot(slot)
    await s.reserveBudget({ golemId: 'g-1', period: 7n, amount: 10n, cap: 100n, reservationId: 'r1', now: T0 })
    await s.commitReservation({ golemId: 'g-1', period: 7n, reservationId: 'r1', now: T0 })
    await s.reserveBudget({ golemId: 'g-1', period: 7n, amount: 10n, cap: 100n, reservationId: 'r2', now: T0 })
    await s.releaseReservation({ golemId: 'g-1', period: 7n, reservationId: 'r2', now: T0 })
    await s.getBudget('g-1', 7n)
    await s.claimPayment({ ...pay, golemId: 'g-1', amount: 1_000_000n, kind: 'extend', owner: 'req-a', now: T0, leaseMs: 30_000 })
    await s.releasePayment({ ...pay, owner: 'req-a' })
    await s.creditPaymentOnce({ ...pay, golemId: 'g-1', amount: 1_000_000n, kind: 'extend', now: T0 })
    await s.getPayment(pay)
    await s.issueNonce({ nonce: hex32(0xfeed), issuedAt: T0, expiresAt: T0 + 60_000 })
    await s.consumeNonce({ nonce: hex32(0xfeed), now: T0 + 1 })
    await s.incrementCounter({ key: 'ip:127.0.0.1', windowStart: T0, windowSeconds: 60, now: T0 + 1 })
    await s.getCounter({ key: 'ip:127.0.0.1', windowStart: T0, windowSeconds: 60, now: T0 + 2 })
    await s.appendEvent({ golemId: 'g-1', type: 'PhaseChanged', at: T0 })
    await s.listEvents({ golemId: 'g-1' })
    await s.recordDeathSettlement({ golemId: 'g-1', kind: 'EconomicExhaustion', settlement: { reason: 'test' }, settledAt: T0 })
    await s.getDeathSettlement('g-1')
    await s.rotateSnapToken({ tokenHash: hex32(2), expectedHash: null, now: T0 })
    await s.getSnapToken({ now: T0 + 1 })
    // Writes happened (so the scenario exercised them), and nothing outside the grant was sent.
    expect(sent).toContain('dynamodb:PutItem')
    expect(sent).toContain('dynamodb:UpdateItem')
    for (const action of sent) expect(storage.readWrite.actions).toContain(action)
  })
})
