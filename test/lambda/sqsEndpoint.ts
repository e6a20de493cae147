// A local SQS endpoint for tests: speaks the AWS JSON 1.0 protocol @aws-sdk/client-sqs sends
// (X-Amz-Target AmazonSQS.SendMessage and .SendMessageBatch) and delivers every message to a subscriber
// the way a Lambda event source mapping with batch size one does: an SQS event of one record, at least
// once (duplicate deliveries on request), with nothing ordered between deliveries. A record the
// subscriber reports in `batchItemFailures` (or a subscriber that throws) is delivered again, up to
// `maxReceives` times in all.
import { createHash, randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export type SqsSubscriber = (
  event: { Records: { messageId: string; receiptHandle: string; body: string; eventSource: 'aws:sqs'; eventSourceARN: string }[] },
  context: { awsRequestId: string; functionName: string },
) => Promise<{ batchItemFailures?: { itemIdentifier: string }[] } | undefined>

export type SqsDelivery = { messageId: string; body: string; receive: number; outcome: 'ok' | 'failed' }

export type SqsEndpoint = {
  /** http://127.0.0.1:<port>: set as AWS_ENDPOINT_URL_SQS. */
  endpoint: string
  /** The queue's URL on this endpoint. */
  queueUrl: string
  /** Every message body sent, in order of arrival. */
  sent: string[]
  deliveries: SqsDelivery[]
  /** Resolves when every sent message has been delivered, redeliveries included. */
  idle(): Promise<void>
  setBehaviour(behaviour: { duplicates?: number; failSendsOf?: (body: string) => boolean }): void
  stop(): Promise<void>
}

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex')

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

function reply(res: ServerResponse, status: number, value: unknown, errorType?: string): void {
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.0',
    ...(errorType ? { 'x-amzn-query-error': `${errorType};Sender` } : {}),
  })
  res.end(JSON.stringify(errorType ? { __type: `com.amazonaws.sqs#${errorType}`, message: String(value) } : value))
}

export async function startSqsEndpoint(
  subscriber: SqsSubscriber,
  options: { queueName?: string; maxReceives?: number; duplicates?: number } = {},
): Promise<SqsEndpoint> {
  const queueName = options.queueName ?? 'walks'
  let behaviour: { duplicates?: number; failSendsOf?: (body: string) => boolean } = { duplicates: options.duplicates ?? 0 }
  const sent: string[] = []
  const deliveries: SqsDelivery[] = []
  const pending = new Set<Promise<void>>()
  const maxReceives = options.maxReceives ?? 2

  const deliver = async (messageId: string, text: string): Promise<void> => {
    for (let receive = 1; receive <= maxReceives; receive++) {
      let failed = false
      try {
        const out = await subscriber(
          {
            Records: [
              {
                messageId,
                receiptHandle: randomUUID(),
                body: text,
                eventSource: 'aws:sqs',
                eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${queueName}`,
              },
            ],
          },
          { awsRequestId: randomUUID(), functionName: 'walker' },
        )
        failed = (out?.batchItemFailures ?? []).some((f) => f.itemIdentifier === messageId)
      } catch {
        failed = true
      }
      deliveries.push({ messageId, body: text, receive, outcome: failed ? 'failed' : 'ok' })
      if (!failed) return
    }
  }

  const accept = (text: string): string => {
    const messageId = randomUUID()
    sent.push(text)
    for (let copy = 0; copy <= (behaviour.duplicates ?? 0); copy++) {
      const p = new Promise<void>((resolve) => setImmediate(resolve)).then(() => deliver(messageId, text))
      pending.add(p)
      void p.finally(() => pending.delete(p))
    }
    return messageId
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      const target = String(req.headers['x-amz-target'] ?? '')
      const input = JSON.parse((await body(req)) || '{}') as Record<string, unknown>
      if (target === 'AmazonSQS.SendMessage') {
        const text = String(input.MessageBody)
        return reply(res, 200, { MessageId: accept(text), MD5OfMessageBody: md5(text) })
      }
      if (target === 'AmazonSQS.SendMessageBatch') {
        const entries = (input.Entries ?? []) as { Id: string; MessageBody: string }[]
        if (entries.length === 0 || entries.length > 10) return reply(res, 400, 'between 1 and 10 entries', 'TooManyEntriesInBatchRequest')
        const Successful = []
        const Failed = []
        for (const e of entries) {
          if (behaviour.failSendsOf?.(e.MessageBody)) {
            Failed.push({ Id: e.Id, SenderFault: false, Code: 'InternalError', Message: 'injected' })
            continue
          }
          Successful.push({ Id: e.Id, MessageId: accept(e.MessageBody), MD5OfMessageBody: md5(e.MessageBody) })
        }
        return reply(res, 200, { Successful, Failed })
      }
      return reply(res, 400, `no such operation: ${target}`, 'InvalidAction')
    })().catch((error: unknown) => {
      if (!res.headersSent) reply(res, 500, error instanceof Error ? error.message : String(error), 'InternalError')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const endpoint = `http://127.0.0.1:${port}`
  return {
    endpoint,
    queueUrl: `${endpoint}/000000000000/${queueName}`,
    sent,
    deliveries,
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
