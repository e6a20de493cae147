// How a Golem's runtime signs an HTTP action request with its own key: EIP-712 over the method, the
// path, the hash of the exact body bytes, a timestamp and a single-use nonce, so a captured request
// cannot be replayed, sent to another Golem's path, or carry another body.
import { isHex, keccak256, recoverTypedDataAddress, stringToBytes, type Address, type Hex } from 'viem'

export const ACTION_REQUEST_TYPES = {
  ActionRequest: [
    { name: 'method', type: 'string' },
    { name: 'path', type: 'string' },
    { name: 'bodyHash', type: 'bytes32' },
    { name: 'timestamp', type: 'uint64' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const

/** The headers that carry the signature; names are case-insensitive on the wire. */
export const ACTION_HEADERS = { timestamp: 'x-golem-timestamp', nonce: 'x-golem-nonce', signature: 'x-golem-signature' } as const

/** How far a request's timestamp may be from the server's clock, in seconds. */
export const ACTION_REQUEST_MAX_SKEW_SECONDS = 300

export type ActionRequestMessage = { method: string; path: string; body: string; timestamp: bigint; nonce: Hex }

/** The typed data a request's signature covers (the body as keccak256 of its UTF-8 bytes). */
export function actionRequestTypedData(chainId: number, m: ActionRequestMessage) {
  return {
    domain: { name: 'Bardo Custody Actions', version: '1', chainId },
    types: ACTION_REQUEST_TYPES,
    primaryType: 'ActionRequest' as const,
    message: {
      method: m.method.toUpperCase(),
      path: m.path,
      bodyHash: keccak256(stringToBytes(m.body)),
      timestamp: m.timestamp,
      nonce: m.nonce,
    },
  }
}

/** The address that signed the request, or undefined when the signature does not recover. */
export async function recoverActionRequestSigner(chainId: number, m: ActionRequestMessage, signature: Hex): Promise<Address | undefined> {
  if (!isHex(signature) || !isHex(m.nonce) || m.nonce.length !== 66) return undefined
  try {
    return await recoverTypedDataAddress({ ...actionRequestTypedData(chainId, m), signature })
  } catch {
    return undefined
  }
}
