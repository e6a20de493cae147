import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto'
import { secp256k1 } from '@noble/curves/secp256k1'
import { bytesToHex, type Hex } from 'viem'

/** KMS returned bytes that are not the key or signature shape we accept. `field` names what. */
export class DerError extends Error {
  readonly field: string
  constructor(field: string, rule: string) {
    super(`${field}: ${rule}`)
    this.field = field
  }
}

/**
 * Parses KMS's ECDSA signature, SEQUENCE { INTEGER r, INTEGER s }, with noble's strict DER reader
 * (definite minimal lengths, no negative or zero-padded INTEGERs, nothing trailing, 0 < r, s < n).
 */
export function parseDerSignature(der: Uint8Array): { r: bigint; s: bigint } {
  try {
    const { r, s } = secp256k1.Signature.fromDER(der)
    return { r, s }
  } catch (err) {
    throw new DerError('DER signature', `must be a minimal SEQUENCE { INTEGER r, INTEGER s } with 0 < r, s < n (${(err as Error).message})`)
  }
}

/** s > n/2 -> n - s. Both are valid ECDSA signatures; Ethereum only accepts the low one. */
export function normalizeLowS(signature: { r: bigint; s: bigint }): { r: bigint; s: bigint; flipped: boolean } {
  const sig = new secp256k1.Signature(signature.r, signature.s)
  const flipped = sig.hasHighS()
  return { r: sig.r, s: flipped ? sig.normalizeS().s : sig.s, flipped }
}

/**
 * The uncompressed point (04‖X‖Y) of KMS's SubjectPublicKeyInfo, read by node:crypto. Node also
 * accepts compressed points and ignores trailing bytes, so the input must equal, byte for byte, the
 * canonical encoding Node writes for the same key: anything else is not what KMS sends.
 */
export function parseSpkiPublicKey(spki: Uint8Array): Hex {
  let key: KeyObject
  try {
    key = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' })
  } catch (err) {
    throw new DerError('SPKI', `must be a SubjectPublicKeyInfo of a secp256k1 key with an uncompressed point (${(err as Error).message})`)
  }
  if (key.asymmetricKeyType !== 'ec') throw new DerError('SPKI key type', `is ${key.asymmetricKeyType ?? 'unknown'}, must be ec`)
  const curve = key.asymmetricKeyDetails?.namedCurve
  if (curve !== 'secp256k1') throw new DerError('SPKI curve', `is ${curve ?? 'unknown'}, must be secp256k1`)
  const jwk = key.export({ format: 'jwk' }) as JsonWebKey & { x: string; y: string }
  // A key built from JWK exports with the uncompressed point, whatever form the input had.
  const canonical = createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'der' })
  if (!canonical.equals(spki)) {
    throw new DerError('SPKI', 'must be exactly the DER KMS sends: an uncompressed secp256k1 point and nothing after it')
  }
  return bytesToHex(new Uint8Array([0x04, ...Buffer.from(jwk.x, 'base64url'), ...Buffer.from(jwk.y, 'base64url')]))
}
