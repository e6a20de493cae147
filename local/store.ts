// The local runner's store: dynalite (in-process DynamoDB) by default, or a real DynamoDB table when
// BARDO_TABLE_NAME is set (AWS credentials and region from the usual AWS environment; an endpoint from
// BARDO_DYNAMODB_ENDPOINT, for DynamoDB Local and the like). It keeps the councils owners form too.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { DynamoCouncilStore } from '../adapters/store/index.ts'
import type { Store } from '../core/store/index.ts'
import type { CouncilStore } from '../core/council/store.ts'
import { createTable, documentClient, localDynamoClient, startDynalite } from './dynalite.ts'

export type OpenedStore = {
  store: Store & CouncilStore
  describe: string
  /** Where another process reaches the same table (dynalite's endpoint locally). */
  endpoint: string | undefined
  tableName: string
  stop(): Promise<void>
}

export async function openStore(env: NodeJS.ProcessEnv): Promise<OpenedStore> {
  const table = env.BARDO_TABLE_NAME
  if (table) {
    const endpoint = env.BARDO_DYNAMODB_ENDPOINT
    // The environment given, not only the process's: the CLI fills in a local stack's placeholders there.
    const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION
    const accessKeyId = env.AWS_ACCESS_KEY_ID
    const secretAccessKey = env.AWS_SECRET_ACCESS_KEY
    const client = new DynamoDBClient({
      ...(endpoint ? { endpoint } : {}),
      ...(region ? { region } : {}),
      ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
    })
    return {
      store: new DynamoCouncilStore({ client: documentClient(client), tableName: table }),
      describe: `DynamoDB table ${table}${endpoint ? ` at ${endpoint}` : ''}`,
      endpoint,
      tableName: table,
      stop: async () => client.destroy(),
    }
  }
  const dynalite = await startDynalite()
  const raw = localDynamoClient(dynalite.endpoint)
  await createTable(raw, 'bardo')
  return {
    store: new DynamoCouncilStore({ client: documentClient(raw), tableName: 'bardo' }),
    describe: `dynalite ${dynalite.endpoint} (table bardo)`,
    endpoint: dynalite.endpoint,
    tableName: 'bardo',
    stop: async () => {
      raw.destroy()
      await dynalite.stop()
    },
  }
}
