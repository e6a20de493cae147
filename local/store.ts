// The local runner's store: dynalite (in-process DynamoDB) by default, or a real DynamoDB table when
// BARDO_TABLE_NAME is set (AWS credentials and region from the usual AWS environment; an endpoint from
// BARDO_DYNAMODB_ENDPOINT, for DynamoDB Local and the like).
import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { DynamoStore } from '../adapters/store/index.ts'
import type { Store } from '../core/store/index.ts'
import { createTable, documentClient, localDynamoClient, startDynalite } from './dynalite.ts'

export async function openStore(env: NodeJS.ProcessEnv): Promise<{ store: Store; describe: string; stop(): Promise<void> }> {
  const table = env.BARDO_TABLE_NAME
  if (table) {
    const endpoint = env.BARDO_DYNAMODB_ENDPOINT
    const client = new DynamoDBClient(endpoint ? { endpoint } : {})
    return {
      store: new DynamoStore({ client: documentClient(client), tableName: table }),
      describe: `DynamoDB table ${table}${endpoint ? ` at ${endpoint}` : ''}`,
      stop: async () => client.destroy(),
    }
  }
  const dynalite = await startDynalite()
  const raw = localDynamoClient(dynalite.endpoint)
  await createTable(raw, 'bardo')
  return {
    store: new DynamoStore({ client: documentClient(raw), tableName: 'bardo' }),
    describe: `dynalite ${dynalite.endpoint} (table bardo)`,
    stop: async () => {
      raw.destroy()
      await dynalite.stop()
    },
  }
}
