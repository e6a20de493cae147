// Test-only DER encoders, written independently of the parser in kmsDer.ts so the tests check it
// against bytes in the exact shape KMS returns.
import { bytesToHex, concat, hexToBytes, type Hex } from 'viem'

/** secp256k1 group order and half of it: Ethereum accepts only s <= n/2 (EIP-2). */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
export const SECP256K1_HALF_N = SECP256K1_N >> 1n

function derInteger(x: bigint): Uint8Array {
  let hex = x.toString(16)
  if (hex.length % 2) hex = `0${hex}`
  let body = hexToBytes(`0x${hex}`)
  // A set high bit would read as negative: DER pads with one zero byte.
  if (body[0]! & 0x80) body = concat([new Uint8Array([0]), body])
  return concat([new Uint8Array([0x02, body.length]), body])
}

/** SEQUENCE { INTEGER r, INTEGER s }, minimal encoding, as KMS's Sign returns it. */
export function encodeDerSignature(r: bigint, s: bigint): Uint8Array {
  const body = concat([derInteger(r), derInteger(s)])
  return concat([new Uint8Array([0x30, body.length]), body])
}

/** SubjectPublicKeyInfo for an uncompressed secp256k1 point, as KMS's GetPublicKey returns it. */
export function encodeSecp256k1Spki(uncompressedPoint: Hex): Uint8Array {
  const point = hexToBytes(uncompressedPoint)
  if (point.length !== 65) throw new Error('point must be 65 bytes')
  return hexToBytes(`0x3056301006072a8648ce3d020106052b8104000a034200${bytesToHex(point).slice(2)}`)
}
