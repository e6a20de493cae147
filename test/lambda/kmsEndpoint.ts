// A local KMS endpoint for tests: answers the two calls the tick's KMS signer makes (GetPublicKey and
// Sign, JSON 1.1 protocol, X-Amz-Target TrentService.*) for ECC_SECG_P256K1 keys held here, the way KMS
// answers them: an SPKI public key and DER signatures over the digest, high-s half of the time so the
// signer's low-s normalisation is exercised.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { secp256k1 } from '@noble/curves/secp256k1'
import { hexToBytes, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { encodeDerSignature, encodeSecp256k1Spki } from '../../core/custody/testing/der.ts'

const N = secp256k1.CURVE.n

export type KmsEndpoint = { endpoint: string; signCalls: number; stop(): Promise<void> }

export async function startKmsEndpoint(keys: Record<string, Hex>): Promise<KmsEndpoint> {
  let signCalls = 0
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '')
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { KeyId?: string; Message?: string; MessageType?: string }
      const key = input.KeyId ? keys[input.KeyId] : undefined
      const reply = (status: number, body: unknown, type?: string) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', ...(type ? { 'x-amzn-errortype': type } : {}) })
        res.end(JSON.stringify(body))
      }
      if (!key) return reply(400, { __type: 'NotFoundException', message: `Key '${input.KeyId}' does not exist` }, 'NotFoundException')
      if (target === 'TrentService.GetPublicKey') {
        const spki = encodeSecp256k1Spki(privateKeyToAccount(key).publicKey)
        return reply(200, {
          KeyId: input.KeyId,
          KeySpec: 'ECC_SECG_P256K1',
          KeyUsage: 'SIGN_VERIFY',
          SigningAlgorithms: ['ECDSA_SHA_256'],
          PublicKey: Buffer.from(spki).toString('base64'),
        })
      }
      if (target === 'TrentService.Sign') {
        if (input.MessageType !== 'DIGEST')
          return reply(400, { __type: 'ValidationException', message: 'MessageType must be DIGEST' }, 'ValidationException')
        const sig = secp256k1.sign(Buffer.from(input.Message ?? '', 'base64'), hexToBytes(key))
        const s = signCalls++ % 2 === 0 ? N - sig.s : sig.s
        return reply(200, {
          KeyId: input.KeyId,
          SigningAlgorithm: 'ECDSA_SHA_256',
          Signature: Buffer.from(encodeDerSignature(sig.r, s)).toString('base64'),
        })
      }
      return reply(400, { __type: 'UnknownOperationException', message: target }, 'UnknownOperationException')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    endpoint: `http://127.0.0.1:${port}`,
    get signCalls() {
      return signCalls
    },
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()))
        server.closeAllConnections()
      }),
  }
}
