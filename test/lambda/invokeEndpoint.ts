// A local Lambda Invoke endpoint for tests: speaks the Invoke API (POST
// /2015-03-31/functions/{name}/invocations) that @aws-sdk/client-lambda's InvokeCommand sends, and runs
// the named handler in this process. Event invocations are accepted with 202 and delivered the way AWS
// delivers them: at least once (duplicate deliveries, each its own request id), retried up to twice when
// the handler fails (a retry keeps the request id), with nothing ordered between deliveries.
// RequestResponse runs the handler and answers its result (X-Amz-Function-Error on failure).
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export type LambdaHandler = (event: unknown, context: { awsRequestId: string; functionName: string }) => Promise<unknown>

export type DeliveryRecord = {
  functionName: string
  requestId: string
  attempt: number
  /** Which copy of the event this is (0 = the original, 1.. = duplicates). */
  copy: number
  outcome: 'ok' | 'error'
  error?: string
}

export type AsyncBehaviour = {
  /** Extra deliveries of every Event invocation (AWS: "the same event may be received more than once"). */
  duplicates?: number
  /** Retries after a failed delivery; AWS's default for asynchronous invocation is 2. */
  maxRetries?: number
  /**
   * Fails the first attempt of the original copy after the handler has run to completion, as a
   * timeout or an out-of-memory kill after the work is done does: AWS then retries the event.
   */
  failFirstAttemptAfterRun?: boolean
}

export type LambdaInvokeEndpoint = {
  /** http://127.0.0.1:<port>: set as AWS_ENDPOINT_URL_LAMBDA, or pass to LambdaClient's endpoint. */
  endpoint: string
  deliveries: DeliveryRecord[]
  /** Event invocations accepted so far (202s). */
  accepted: number
  /** Resolves when every accepted event has been delivered, retries and duplicates included. */
  idle(): Promise<void>
  setBehaviour(behaviour: AsyncBehaviour): void
  stop(): Promise<void>
}

const INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

function awsError(res: ServerResponse, status: number, type: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': type })
  res.end(JSON.stringify({ Type: 'User', message }))
}

export async function startLambdaInvokeEndpoint(
  functions: Record<string, LambdaHandler>,
  initial: AsyncBehaviour = {},
): Promise<LambdaInvokeEndpoint> {
  let behaviour = initial
  const deliveries: DeliveryRecord[] = []
  const pending = new Set<Promise<void>>()
  let accepted = 0

  const deliver = async (functionName: string, handler: LambdaHandler, payload: string, copy: number): Promise<void> => {
    const requestId = randomUUID()
    const maxRetries = behaviour.maxRetries ?? 2
    const failAfterRun = copy === 0 && behaviour.failFirstAttemptAfterRun === true
    for (let attempt = 0; attempt <= maxRetries; attempt++) {
      try {
        await handler(JSON.parse(payload || '{}'), { awsRequestId: requestId, functionName })
        if (failAfterRun && attempt === 0) throw new Error('Task timed out after the handler finished (injected)')
        deliveries.push({ functionName, requestId, attempt, copy, outcome: 'ok' })
        return
      } catch (error) {
        deliveries.push({
          functionName,
          requestId,
          attempt,
          copy,
          outcome: 'error',
          error: error instanceof Error ? error.message : String(error),
        })
      }
    }
  }

  const track = (p: Promise<void>) => {
    pending.add(p)
    void p.finally(() => pending.delete(p))
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      const match = req.method === 'POST' ? INVOKE_PATH.exec(new URL(req.url ?? '/', 'http://x').pathname) : null
      if (!match) return awsError(res, 404, 'UnknownOperationException', `no such operation: ${req.method} ${req.url}`)
      // The SDK sends the name URL-encoded; an ARN or a qualified name ends with the function's name.
      const decoded = decodeURIComponent(match[1]!)
      const name = (decoded.startsWith('arn:') ? decoded.split(':')[6] : decoded.split(':')[0]) ?? ''
      const handler = functions[name]
      if (!handler) return awsError(res, 404, 'ResourceNotFoundException', `Function not found: ${name}`)
      const type = String(req.headers['x-amz-invocation-type'] ?? 'RequestResponse')
      const payload = await body(req)
      if (type === 'DryRun') {
        res.writeHead(204)
        return res.end()
      }
      if (type === 'Event') {
        accepted++
        res.writeHead(202, { 'x-amz-executed-version': '$LATEST' })
        res.end()
        // Delivered after the 202, on its own: the caller never waits for the function.
        for (let copy = 0; copy <= (behaviour.duplicates ?? 0); copy++)
          track(new Promise<void>((resolve) => setImmediate(resolve)).then(() => deliver(name, handler, payload, copy)))
        return
      }
      if (type !== 'RequestResponse') return awsError(res, 400, 'InvalidParameterValueException', `X-Amz-Invocation-Type: ${type}`)
      const requestId = randomUUID()
      try {
        const result = await handler(JSON.parse(payload || '{}'), { awsRequestId: requestId, functionName: name })
        res.writeHead(200, { 'content-type': 'application/json', 'x-amz-executed-version': '$LATEST', 'x-amzn-requestid': requestId })
        res.end(JSON.stringify(result ?? null, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)))
      } catch (error) {
        res.writeHead(200, { 'content-type': 'application/json', 'x-amz-function-error': 'Unhandled', 'x-amzn-requestid': requestId })
        res.end(
          JSON.stringify({
            errorType: error instanceof Error ? error.name : 'Error',
            errorMessage: error instanceof Error ? error.message : String(error),
          }),
        )
      }
    })().catch((error: unknown) => {
      if (!res.headersSent) awsError(res, 500, 'ServiceException', error instanceof Error ? error.message : String(error))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    endpoint: `http://127.0.0.1:${port}`,
    deliveries,
    get accepted() {
      return accepted
    },
    async idle() {
      while (pending.size > 0) await Promise.allSettled([...pending])
    },
    setBehaviour(next) {
      behaviour = next
    },
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()))
        server.closeAllConnections()
      }),
  }
}
