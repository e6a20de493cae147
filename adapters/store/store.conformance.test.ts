import type { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { afterAll, beforeAll, describe } from 'vitest'
import { createTable, documentClient, localDynamoClient, startDynalite, type Dynalite } from '../../local/dynalite.ts'
import { storeConformance } from './conformance/index.ts'
import { DynamoCouncilStore } from './dynamoStore.ts'
import { InMemoryStore } from './memoryStore.ts'

describe('InMemoryStore', () => {
  storeConformance({ newStore: async () => new InMemoryStore({ dueShards: 3 }) })
})

describe('DynamoStore (with the council items) on dynalite', () => {
  let dynalite: Dynalite
  let client: DynamoDBClient
  let tables = 0
  beforeAll(async () => {
    dynalite = await startDynalite()
    client = localDynamoClient(dynalite.endpoint)
  })
  afterAll(async () => {
    client?.destroy()
    await dynalite?.stop()
  })
  storeConformance({
    // A table per test: isolation without restarting dynalite.
    newStore: async () => {
      const tableName = `bardo-test-${++tables}`
      await createTable(client, tableName)
      return new DynamoCouncilStore({ client: documentClient(client), tableName, dueShards: 3 })
    },
  })
})
