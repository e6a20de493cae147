// A recording stand-in in front of dynalite for tests: every DynamoDB request the handlers send passes
// through it and is counted by its operation (the X-Amz-Target header: PutItem, Query, BatchGetItem...),
// then forwarded unchanged. Set its endpoint as AWS_ENDPOINT_URL_DYNAMODB.
import { createServer, request as forward, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export type DynamoRecorder = {
  endpoint: string
  /** Every request's operation, in the order received. */
  operations: string[]
  /** Every write's operation and the partition key(s) it wrote, in the order received. */
  writes: { operation: string; pks: string[] }[]
  stop(): Promise<void>
}

/** The operations that write an item. */
export const DYNAMO_WRITES: ReadonlySet<string> = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems'])

export async function startDynamoRecorder(target: string): Promise<DynamoRecorder> {
  const to = new URL(target)
  const operations: string[] = []
  const writes: DynamoRecorder['writes'] = []
  const server: Server = createServer(async (req, res) => {
    const header = req.headers['x-amz-target']
    const operation = (Array.isArray(header) ? header[0] : header)?.split('.').at(-1) ?? 'unknown'
    operations.push(operation)
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks)
    if (DYNAMO_WRITES.has(operation)) writes.push({ operation, pks: partitionKeys(body.toString('utf8')) })
    const upstream = forward({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    upstream.on('error', (error) => {
      res.writeHead(502)
      res.end(String(error))
    })
    upstream.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    endpoint: `http://127.0.0.1:${port}`,
    operations,
    writes,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** The `pk` values a request body names (DynamoDB JSON: {"pk": {"S": "..."}}). */
function partitionKeys(body: string): string[] {
  return [...body.matchAll(/"pk":\{"S":"([^"]*)"\}/g)].map((m) => m[1]!)
}
