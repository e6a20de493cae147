// DynamoDB on an in-process server (dynalite, in-memory LevelDB) for the local runner and tests, and
// the one table Bardo uses. Everything listens on 127.0.0.1; stop() frees the port and the data.
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceInUseException } from '@aws-sdk/client-dynamodb'
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import type { Server } from 'node:http'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { freePort } from '../indexer/start.ts'
import { LocalStackError } from './errors.ts'
import { programCommand } from './program.ts'
import { supervise } from './supervisor.ts'

// dynalite ships no types; this is the slice of its API used here.
type DynaliteOptions = { path?: string; createTableMs?: number; deleteTableMs?: number; updateTableMs?: number; maxItemSizeKb?: number }
const dynalite = createRequire(import.meta.url)('dynalite') as (options?: DynaliteOptions) => Server

export type Dynalite = {
  /** http://127.0.0.1:<port> */
  endpoint: string
  stop(): Promise<void>
}

/** Starts dynalite in this process with an in-memory store on a free loopback port. */
export async function startDynalite(): Promise<Dynalite> {
  // Tables become ACTIVE at once; the default 500 ms per CREATE only slows tests down.
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  const { port } = server.address() as AddressInfo
  let stopped: Promise<void> | undefined
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop() {
      // Idle keep-alive sockets from SDK clients would otherwise hold close() open.
      stopped ??= new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()))
        server.closeAllConnections()
      })
      return stopped
    },
  }
}

/** dynalite in a process of its own: `pid` is the server's (a new one should it be restarted). */
export type DynaliteProcess = Dynalite & { readonly pid: number | undefined }

/**
 * dynalite in a child process of its own (local/dynaliteServer.ts, in memory, on a free loopback port),
 * for a benchmark that must not share its thread with the store's emulator, as a deployment's functions
 * never share theirs with DynamoDB. Started and stopped by the local stack's supervisor.
 */
export async function startDynaliteChild(): Promise<DynaliteProcess> {
  const port = await freePort()
  const running = await supervise({
    name: 'dynalite',
    ...programCommand(join(import.meta.dirname, 'dynaliteServer.ts')),
    env: { ...process.env, BARDO_DYNALITE_PORT: String(port) },
    ready: (line) => line.startsWith('dynalite listening on'),
  })
  return {
    endpoint: `http://127.0.0.1:${port}`,
    get pid() {
      return running.pid
    },
    stop: () => running.stop(),
  }
}

/**
 * A low-level client for a local endpoint. The credentials are placeholders that dynalite ignores;
 * fixing them (and the region) keeps the SDK from looking for real ones on this machine.
 */
export function localDynamoClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 3,
  })
}

/** The DocumentClient the store expects: undefined attributes are dropped, never sent. */
export function documentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } })
}

/**
 * Creates Bardo's single table: string `pk` (partition) and `sk` (sort), on-demand billing, no
 * secondary index (the due list is a sharded partition, see docs/store.md). Waits until ACTIVE.
 * Creating a table that already exists is not an error.
 */
export async function createTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
      }),
    )
  } catch (err) {
    if (!(err instanceof ResourceInUseException || (err instanceof Error && err.name === 'ResourceInUseException'))) throw err
  }
  for (let attempt = 0; attempt < 100; attempt++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }))
    if (Table?.TableStatus === 'ACTIVE') return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new LocalStackError('DYNALITE', `table ${tableName}: not ACTIVE after 2 s`)
}
