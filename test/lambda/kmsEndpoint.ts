// A local KMS endpoint for tests: answers the KMS calls Bardo makes (JSON 1.1 protocol, X-Amz-Target
// TrentService.*) from a FakeKms: GetPublicKey, Sign, and the CreateKey / CreateAlias of onboarding and
// rotation. Binary fields travel base64, as KMS sends them.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Hex } from 'viem'
import { FakeKms, KmsFault } from './fakeKms.ts'

export type KmsEndpoint = { endpoint: string; signCalls: number; kms: FakeKms; stop(): Promise<void> }

const base64 = (_k: string, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v)

export async function startKmsEndpoint(keys: Record<string, Hex>): Promise<KmsEndpoint> {
  const kms = new FakeKms(keys)
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const operation = String(req.headers['x-amz-target'] ?? '').replace(/^TrentService\./, '')
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>
      if (typeof input.Message === 'string') input.Message = new Uint8Array(Buffer.from(input.Message, 'base64'))
      try {
        const out = kms.answer(operation, input)
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' })
        res.end(JSON.stringify(out, base64))
      } catch (error) {
        const name = error instanceof KmsFault ? error.name : 'KMSInternalException'
        res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-errortype': name })
        res.end(JSON.stringify({ __type: name, message: (error as Error).message }))
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    endpoint: `http://127.0.0.1:${port}`,
    kms,
    get signCalls() {
      return kms.signCalls
    },
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()))
        server.closeAllConnections()
      }),
  }
}
