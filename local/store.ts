// The local runner's store: dynalite (in-process DynamoDB) by default, or a real DynamoDB table when
// BARDO_TABLE_NAME is set (AWS credentials and region from the usual AWS environment; an endpoint from
// BARDO_DYNAMODB_ENDPOINT, for DynamoDB Local and the like). It keeps the councils owners form too.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { DynamoCouncilStore } from '../adapters/store/index.ts'
import type { Store } from '../core/store/index.ts'
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { CouncilStore } from '../core/council/store.ts'
import { createTable, documentClient, localDynamoClient, startDynalite } from './dynalite.ts'
import { freePort } from '../indexer/start.ts'
import { supervise } from './supervisor.ts'
import { programCommand } from './program.ts'

export type OpenedStore = {
  store: Store & CouncilStore
  describe: string
  /** Where another process reaches the same table (dynalite's endpoint locally). */
  endpoint: string | undefined
  tableName: string
  stop(): Promise<void>
}

export type OpenStoreOptions = {
  /**
   * Runs dynalite as a supervised process of its own with its data on disk under this directory, so a
   * crash of that process (even a SIGKILL) is followed by a restart on the same port with the same table
   * and items. Without it dynalite serves from memory inside this process.
   */
  stateDir?: string
  log?: (line: string) => void
}

export async function openStore(env: NodeJS.ProcessEnv, options: OpenStoreOptions = {}): Promise<OpenedStore> {
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
  const dynalite = options.stateDir ? await startDynaliteProcess(options.stateDir, options.log) : await startDynalite()
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

/** dynalite in a child process (local/dynaliteServer.ts) the supervisor restarts; its LevelDB lives until stop(). */
async function startDynaliteProcess(stateDir: string, log?: (line: string) => void): Promise<{ endpoint: string; stop(): Promise<void> }> {
  const path = join(stateDir, `dynalite-${Date.now()}`)
  mkdirSync(path, { recursive: true, mode: 0o700 })
  const port = await freePort()
  const running = await supervise({
    name: 'dynalite',
    ...programCommand(join(import.meta.dirname, 'dynaliteServer.ts')),
    env: { ...process.env, BARDO_DYNALITE_PATH: path, BARDO_DYNALITE_PORT: String(port) },
    ready: (line) => line.startsWith('dynalite listening on'),
    onRestart: () => log?.(`  store        dynalite restarted on port ${port} with its data (${path})`),
  })
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: async () => {
      await running.stop()
      rmSync(path, { recursive: true, force: true })
    },
  }
}
