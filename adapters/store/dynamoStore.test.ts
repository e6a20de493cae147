// DynamoDB-specific behaviour the conformance suite cannot see: the table, the item encoding, the
// due index repair, and backend errors. Runs against dynalite.
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { DeleteCommand, GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTable, documentClient, localDynamoClient, startDynalite, type Dynalite } from '../../local/dynalite.ts'
import { CHECKSUMMED, golemInput, hex32, T0 } from './conformance/fixtures.ts'
import { DynamoStore } from './dynamoStore.ts'
import { StoreBackendError } from '../../core/store/errors.ts'
import * as k from './keys.ts'

let dynalite: Dynalite
let client: DynamoDBClient
let doc: DynamoDBDocumentClient
let tables = 0

beforeAll(async () => {
  dynalite = await startDynalite()
  client = localDynamoClient(dynalite.endpoint)
  doc = documentClient(client)
})
afterAll(async () => {
  client?.destroy()
  await dynalite?.stop()
})

async function freshStore(dueShards = 2): Promise<{ store: DynamoStore; tableName: string }> {
  const tableName = `bardo-dyn-${++tables}`
  await createTable(client, tableName)
  return { store: new DynamoStore({ client: doc, tableName, dueShards }), tableName }
}

const raw = async (tableName: string, pk: string, sk: string) =>
  (await doc.send(new GetCommand({ TableName: tableName, Key: { pk, sk } }))).Item

describe('local dynalite', () => {
  it('creates the single table (pk/sk strings, no secondary index); creating it again is fine', async () => {
    const tableName = 'bardo-schema'
    await createTable(client, tableName)
    await createTable(client, tableName)
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }))
    expect(Table).toMatchObject({
      TableStatus: 'ACTIVE',
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    })
    expect(Table?.GlobalSecondaryIndexes ?? []).toEqual([])
  })

  it('stops idempotently and frees the endpoint', async () => {
    const own = await startDynalite()
    expect(own.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const ownClient = localDynamoClient(own.endpoint)
    await createTable(ownClient, 'bardo-stop')
    await own.stop()
    await own.stop()
    const store = new DynamoStore({ client: documentClient(ownClient), tableName: 'bardo-stop' })
    await expect(store.getGolem('g-1')).rejects.toThrow(StoreBackendError)
    ownClient.destroy()
  })
})

describe('DynamoStore on the table', () => {
  it('stores bigints as decimal strings and addresses lowercased', async () => {
    const { store, tableName } = await freshStore()
    await store.createGolem(golemInput('g-1', { owner: CHECKSUMMED }))
    await store.reserveBudget({
      golemId: 'g-1',
      period: 9n,
      amount: 12_345_678_901_234_567_890n,
      cap: 10n ** 30n,
      reservationId: 'r1',
      now: T0,
    })
    await store.creditPaymentOnce({ nonce: hex32(1), payer: CHECKSUMMED, golemId: 'g-1', amount: 2n ** 100n, kind: 'feed', now: T0 })
    expect(await raw(tableName, k.golemPk('g-1'), k.SK.golem)).toMatchObject({ entity: 'golem', owner: CHECKSUMMED.toLowerCase() })
    const budget = await raw(tableName, k.golemPk('g-1'), k.budgetSk(9n))
    expect(budget).toMatchObject({ reserved: '12345678901234567890', spent: '0', cap: '1' + '0'.repeat(30), period: '9' })
    expect(budget?.reservations).toEqual({ r1: { amount: '12345678901234567890', state: 'reserved', at: T0 } })
    const payment = await raw(tableName, k.paymentPk(CHECKSUMMED.toLowerCase(), hex32(1)), k.SK.payment)
    expect(payment).toMatchObject({ amount: (2n ** 100n).toString(), payer: CHECKSUMMED.toLowerCase(), status: 'settled' })
  })

  it('writes a ttl attribute (seconds) on expiring items, for optional garbage collection only', async () => {
    const { store, tableName } = await freshStore()
    await store.issueNonce({ nonce: 'challenge-1', issuedAt: T0, expiresAt: T0 + 60_500 })
    await store.incrementCounter({ key: 'ip:1', windowStart: T0, windowSeconds: 60, now: T0 })
    expect(await raw(tableName, k.noncePk('challenge-1'), k.SK.nonce)).toMatchObject({ ttl: Math.ceil((T0 + 60_500) / 1000) })
    expect(await raw(tableName, k.counterPk('ip:1', T0), k.SK.counter)).toMatchObject({ ttl: (T0 + 60_000) / 1000, count: 1 })
  })

  it('repairs a due entry lost between the two writes when the create or an update is retried', async () => {
    const { store, tableName } = await freshStore(2)
    await store.createGolem(golemInput('g-1'))
    const dueKey = { pk: k.duePk(k.dueShard('g-1', 2)), sk: k.dueSk('g-1') }
    // A crash after the Golem write and before its due entry looks like this:
    await doc.send(new DeleteCommand({ TableName: tableName, Key: dueKey }))
    expect((await store.listDueGolems({ now: T0 })).golems).toEqual([])
    expect(await store.createGolem(golemInput('g-1'))).toMatchObject({ created: false })
    expect((await store.listDueGolems({ now: T0 })).golems).toMatchObject([{ golemId: 'g-1', version: 1 }])
    await store.updateGolem({ golemId: 'g-1', expectedVersion: 1, patch: { nextTickAt: T0 + 5 }, now: T0 })
    await doc.send(new DeleteCommand({ TableName: tableName, Key: dueKey }))
    expect(await store.updateGolem({ golemId: 'g-1', expectedVersion: 1, patch: { phase: 'Stable' }, now: T0 })).toMatchObject({
      updated: false,
      reason: 'version',
    })
    expect((await store.listDueGolems({ now: T0 + 5 })).golems).toMatchObject([{ golemId: 'g-1', dueAt: T0 + 5, version: 2 }])
  })

  it('never lets a stale due entry overwrite a newer one', async () => {
    const { store, tableName } = await freshStore(2)
    await store.createGolem(golemInput('g-1'))
    await store.updateGolem({ golemId: 'g-1', expectedVersion: 1, patch: { nextTickAt: T0 + 99 }, now: T0 })
    // A slow retry of the original create arrives late: the version guard keeps the newer entry.
    await store.createGolem(golemInput('g-1'))
    expect(await raw(tableName, k.duePk(k.dueShard('g-1', 2)), k.dueSk('g-1'))).toMatchObject({ dueAt: T0 + 99, version: 2 })
  })

  it('decides a budget write on a stale guess only if the version still matches: two stores on one period keep the cap', async () => {
    const { store: a, tableName } = await freshStore()
    const b = new DynamoStore({ client: doc, tableName })
    const reserve = (s: DynamoStore, reservationId: string, amount: bigint) =>
      s.reserveBudget({ golemId: 'g-1', period: 3n, amount, cap: 10n, reservationId, now: T0 })
    expect(await reserve(a, 'r1', 4n)).toMatchObject({ reserved: true })
    // b knows no record of the period and guesses none: its write's attribute_not_exists fails, it reads.
    expect(await reserve(b, 'r2', 4n)).toMatchObject({ reserved: true })
    // a's guess is the record it wrote (version 1), now stale: the cap is decided on the stored one.
    expect(await reserve(a, 'r3', 4n)).toMatchObject({ reserved: false, reason: 'cap', available: 2n })
    expect(await a.commitReservation({ golemId: 'g-1', period: 3n, reservationId: 'r1', now: T0 })).toMatchObject({ committed: true })
    expect(await b.releaseReservation({ golemId: 'g-1', period: 3n, reservationId: 'r2', now: T0 })).toMatchObject({ released: true })
    expect(await a.getBudget('g-1', 3n)).toMatchObject({ reserved: 0n, spent: 4n, version: 4 })
    const item = await raw(tableName, k.golemPk('g-1'), k.budgetSk(3n))
    expect(item?.reservations).toMatchObject({ r1: { state: 'committed' }, r2: { state: 'released' } })
  })

  it('writes a patched record as a whole record of the same fields would be: a field patched to null is absent', async () => {
    const { store, tableName } = await freshStore()
    await store.createGolem(golemInput('g-1'))
    const lastTick = { at: T0, period: 2n, outcome: 'confirmed', txHash: null, survivalScoreBps: 9000 }
    const updated = await store.updateGolem({ golemId: 'g-1', expectedVersion: 1, patch: { lastTick, phase: 'Stable' }, now: T0 + 1 })
    expect(updated).toMatchObject({ updated: true, golem: { version: 2, phase: 'Stable', lastTick, updatedAt: T0 + 1 } })
    expect(await store.getGolem('g-1')).toEqual(updated.updated ? updated.golem : null)
    expect((await raw(tableName, k.golemPk('g-1'), k.SK.golem))?.lastTick).toEqual({
      at: T0,
      period: '2',
      outcome: 'confirmed',
      survivalScoreBps: 9000,
    })
    await store.updateGolem({ golemId: 'g-1', expectedVersion: 2, patch: { lastTick: null, profile: null }, now: T0 + 2 })
    const item = await raw(tableName, k.golemPk('g-1'), k.SK.golem)
    expect(item).not.toHaveProperty('lastTick')
    expect(item).not.toHaveProperty('profile')
    expect(await store.getGolem('g-1')).toMatchObject({ lastTick: null, profile: null, version: 3 })
  })

  it("reads the heartbeat's due list and a page's records eventually consistent (half the read units), one record consistently", async () => {
    const tableName = `bardo-dyn-${++tables}`
    await createTable(client, tableName)
    // A client of its own, so the recording reaches no other test's requests.
    const recorded = localDynamoClient(dynalite.endpoint)
    const reads: { command: string; input: unknown }[] = []
    recorded.middlewareStack.add(
      (next, context) => async (args) => {
        reads.push({ command: String((context as { commandName?: string }).commandName), input: args.input })
        return next(args)
      },
      { step: 'initialize', name: 'recordReads' },
    )
    try {
      const store = new DynamoStore({ client: documentClient(recorded), tableName })
      for (const id of ['g-1', 'g-2']) await store.createGolem(golemInput(id))
      reads.length = 0
      expect((await store.getGolems(['g-2', 'g-1'])).map((g) => g.golemId)).toEqual(['g-2', 'g-1'])
      expect(await store.getGolem('g-1')).toMatchObject({ golemId: 'g-1' })
      const batch = reads.find((r) => r.command === 'BatchGetItemCommand')
      expect(batch?.input).toMatchObject({ RequestItems: { [tableName]: { ConsistentRead: false } } })
      expect(reads.find((r) => r.command === 'GetItemCommand')?.input).toMatchObject({ ConsistentRead: true })
      // The heartbeat's due list as well; the Golem's own history stays consistent.
      reads.length = 0
      expect((await store.listDueGolems({ now: Date.now() + 3_600_000, limit: 10, cursor: null })).golems).toHaveLength(2)
      const due = reads.filter((r) => r.command === 'QueryCommand')
      expect(due.length).toBeGreaterThan(0)
      for (const q of due) expect(q.input).toMatchObject({ ConsistentRead: false })
      reads.length = 0
      await store.listEvents({ golemId: 'g-1', limit: 10 })
      expect(reads.find((r) => r.command === 'QueryCommand')?.input).toMatchObject({ ConsistentRead: true })
    } finally {
      recorded.destroy()
    }
  })

  it('reports a missing table as a StoreBackendError naming the operation', async () => {
    const store = new DynamoStore({ client: doc, tableName: 'no-such-table' })
    const err = await store
      .claimSlot({ golemId: 'g-1', period: 1n, step: 'redeem', owner: 'a', now: T0, leaseMs: 1000 })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(StoreBackendError)
    expect(err).toMatchObject({ code: 'STORE_BACKEND', details: { operation: 'UpdateItem', error: 'ResourceNotFoundException' } })
  })
})
