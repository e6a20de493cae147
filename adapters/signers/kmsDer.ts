import { bytesToHex, type Hex } from 'viem'

/** secp256k1 group order and half of it: Ethereum accepts only s <= n/2 (EIP-2). */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
export const SECP256K1_HALF_N = SECP256K1_N >> 1n

// OIDs as their DER content bytes: id-ecPublicKey 1.2.840.10045.2.1 and secp256k1 1.3.132.0.10.
const OID_EC_PUBLIC_KEY = '2a8648ce3d0201'
const OID_SECP256K1 = '2b8104000a'

export class DerError extends Error {}

type Tlv = { tag: number; content: Uint8Array; end: number }

/** One DER TLV at `offset`. Definite lengths only (short or long form), as DER requires. */
function readTlv(bytes: Uint8Array, offset: number): Tlv {
  if (offset + 2 > bytes.length) throw new DerError('truncated TLV header')
  const tag = bytes[offset]!
  let len = bytes[offset + 1]!
  let pos = offset + 2
  if (len & 0x80) {
    const count = len & 0x7f
    if (count === 0 || count > 2) throw new DerError('unsupported length form')
    if (pos + count > bytes.length) throw new DerError('truncated length')
    len = 0
    for (let i = 0; i < count; i++) len = (len << 8) | bytes[pos + i]!
    if (len < 0x80) throw new DerError('non-minimal length')
    pos += count
  }
  if (pos + len > bytes.length) throw new DerError('length runs past the end')
  return { tag, content: bytes.subarray(pos, pos + len), end: pos + len }
}

/** A DER INTEGER's content as a positive bigint, rejecting negatives and non-minimal encodings. */
function readPositiveInteger(content: Uint8Array): bigint {
  if (content.length === 0) throw new DerError('empty INTEGER')
  if (content[0]! & 0x80) throw new DerError('negative INTEGER')
  if (content.length > 1 && content[0] === 0 && !(content[1]! & 0x80)) throw new DerError('non-minimal INTEGER')
  return BigInt(bytesToHex(content))
}

/**
 * Parses KMS's ECDSA signature: SEQUENCE { INTEGER r, INTEGER s }. r and s may be shorter than
 * 32 bytes (leading zeros dropped) or 33 (a 0x00 pad before a high bit); both are range-checked.
 */
export function parseDerSignature(der: Uint8Array): { r: bigint; s: bigint } {
  const seq = readTlv(der, 0)
  if (seq.tag !== 0x30) throw new DerError('signature is not a SEQUENCE')
  if (seq.end !== der.length) throw new DerError('trailing bytes after signature')
  const rTlv = readTlv(seq.content, 0)
  const sTlv = readTlv(seq.content, rTlv.end)
  if (rTlv.tag !== 0x02 || sTlv.tag !== 0x02) throw new DerError('r and s must be INTEGERs')
  if (sTlv.end !== seq.content.length) throw new DerError('trailing bytes inside signature')
  const r = readPositiveInteger(rTlv.content)
  const s = readPositiveInteger(sTlv.content)
  if (r === 0n || r >= SECP256K1_N) throw new DerError('r out of range')
  if (s === 0n || s >= SECP256K1_N) throw new DerError('s out of range')
  return { r, s }
}

/** s > n/2 -> n - s. Both are valid ECDSA signatures; Ethereum only accepts the low one. */
export function normalizeLowS(s: bigint): { s: bigint; flipped: boolean } {
  return s > SECP256K1_HALF_N ? { s: SECP256K1_N - s, flipped: true } : { s, flipped: false }
}

/**
 * Extracts the uncompressed point from KMS's SubjectPublicKeyInfo:
 * SEQUENCE { SEQUENCE { OID ecPublicKey, OID secp256k1 }, BIT STRING 00 04||X||Y }.
 */
export function parseSpkiPublicKey(spki: Uint8Array): Hex {
  const outer = readTlv(spki, 0)
  if (outer.tag !== 0x30 || outer.end !== spki.length) throw new DerError('SPKI is not a single SEQUENCE')
  const algorithm = readTlv(outer.content, 0)
  if (algorithm.tag !== 0x30) throw new DerError('SPKI algorithm is not a SEQUENCE')
  const keyType = readTlv(algorithm.content, 0)
  const curve = readTlv(algorithm.content, keyType.end)
  if (keyType.tag !== 0x06 || bytesToHex(keyType.content).slice(2) !== OID_EC_PUBLIC_KEY) throw new DerError('SPKI key is not id-ecPublicKey')
  if (curve.tag !== 0x06 || bytesToHex(curve.content).slice(2) !== OID_SECP256K1) throw new DerError('SPKI curve is not secp256k1')
  const bits = readTlv(outer.content, algorithm.end)
  if (bits.tag !== 0x03 || bits.end !== outer.content.length) throw new DerError('SPKI key is not a BIT STRING')
  if (bits.content[0] !== 0x00) throw new DerError('SPKI BIT STRING has unused bits')
  const point = bits.content.subarray(1)
  if (point.length !== 65 || point[0] !== 0x04) throw new DerError('SPKI point is not an uncompressed secp256k1 point')
  return bytesToHex(point)
}
