import { generateKeyPairSync } from 'node:crypto'
import { secp256k1 } from '@noble/curves/secp256k1'
import fc from 'fast-check'
import { bytesToHex, hexToBytes, keccak256, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { DerError, normalizeLowS, parseDerSignature, parseSpkiPublicKey } from './kmsDer.ts'
import { encodeDerSignature, encodeSecp256k1Spki, SECP256K1_HALF_N, SECP256K1_N } from '../../test/support/custody/der.ts'

describe('parseDerSignature', () => {
  it('reads a signature whose r and s both need a 0x00 pad (high bit set)', () => {
    const r = 0x80n << 248n
    const s = (0x81n << 248n) + 5n
    const der = encodeDerSignature(r, s)
    expect(der[3]).toBe(33) // INTEGER r is 33 bytes: 00 pad + 32
    expect(parseDerSignature(der)).toEqual({ r, s })
  })

  it('reads r and s shorter than 32 bytes (leading zeros dropped)', () => {
    const r = 0x1234n
    const s = 0x7fn
    const der = encodeDerSignature(r, s)
    expect(bytesToHex(der)).toBe('0x3007020212340201' + '7f')
    expect(parseDerSignature(der)).toEqual({ r, s })
  })

  it('finds and parses a real signature whose r has a leading zero byte', () => {
    const pk = hexToBytes(generatePrivateKey())
    let found = false
    for (let i = 0; i < 5000 && !found; i++) {
      const digest = hexToBytes(keccak256(toHex(i)))
      const sig = secp256k1.sign(digest, pk)
      if (sig.r < 1n << 247n) {
        const der = encodeDerSignature(sig.r, sig.s)
        expect(der[3]).toBeLessThan(32)
        expect(parseDerSignature(der)).toEqual({ r: sig.r, s: sig.s })
        found = true
      }
    }
    expect(found).toBe(true)
  })

  it('round-trips any valid (r, s) (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: SECP256K1_N - 1n }), fc.bigInt({ min: 1n, max: SECP256K1_N - 1n }), (r, s) => {
        expect(parseDerSignature(encodeDerSignature(r, s))).toEqual({ r, s })
      }),
    )
  })

  it.each([
    ['not a SEQUENCE', '0x3106020101020101'],
    ['trailing bytes', '0x300602010102010100'],
    ['truncated', '0x30060201010201'],
    ['negative r', '0x3006020181020101'],
    ['non-minimal r', '0x300702020001020101'],
    ['zero s', '0x3006020101020100'],
    ['s INTEGER tag wrong', '0x3006020101040101'],
  ])('rejects %s', (_why, hex) => {
    expect(() => parseDerSignature(hexToBytes(hex as `0x${string}`))).toThrow(DerError)
  })

  it('rejects r >= n and s >= n, naming the rule', () => {
    const rule = /DER signature: must be .* 0 < r, s < n \(invalid signature r: out of range/
    expect(() => parseDerSignature(encodeDerSignature(SECP256K1_N, 1n))).toThrow(rule)
    expect(() => parseDerSignature(encodeDerSignature(1n, SECP256K1_N))).toThrow(/invalid signature s: out of range/)
  })

  it('rejects a non-minimal long-form length', () => {
    expect(() => parseDerSignature(hexToBytes('0x30810602010102010101'))).toThrow(DerError)
  })
})

describe('normalizeLowS', () => {
  it('flips s above n/2 and keeps s at or below it', () => {
    expect(normalizeLowS({ r: 7n, s: SECP256K1_HALF_N })).toEqual({ r: 7n, s: SECP256K1_HALF_N, flipped: false })
    expect(normalizeLowS({ r: 7n, s: SECP256K1_HALF_N + 1n })).toEqual({ r: 7n, s: SECP256K1_N - SECP256K1_HALF_N - 1n, flipped: true })
    expect(normalizeLowS({ r: 7n, s: SECP256K1_N - 1n })).toEqual({ r: 7n, s: 1n, flipped: true })
  })

  it('a flipped high-s signature is the same signature Ethereum accepts (property)', () => {
    const pk = hexToBytes(generatePrivateKey())
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (digest) => {
        const low = secp256k1.sign(digest, pk)
        const high = SECP256K1_N - low.s
        const { s, flipped } = normalizeLowS({ r: low.r, s: high })
        expect(flipped).toBe(true)
        expect(s).toBe(low.s)
        expect(s <= SECP256K1_HALF_N).toBe(true)
      }),
      { numRuns: 50 },
    )
  })
})

describe('parseSpkiPublicKey', () => {
  it('extracts the uncompressed point of a real key, which gives its address', () => {
    const account = privateKeyToAccount(generatePrivateKey())
    expect(parseSpkiPublicKey(encodeSecp256k1Spki(account.publicKey))).toBe(account.publicKey)
  })

  it('rejects a P-256 key (wrong curve OID)', () => {
    const account = privateKeyToAccount(generatePrivateKey())
    const spki = encodeSecp256k1Spki(account.publicKey)
    // 1.2.840.10045.3.1.7 (prime256v1) would be refused too; here the last OID byte changes to another curve.
    const tampered = Uint8Array.from(spki)
    tampered[19] = 0x0b // 1.3.132.0.11 instead of .10
    expect(() => parseSpkiPublicKey(tampered)).toThrow(/SPKI: must be a SubjectPublicKeyInfo of a secp256k1 key/)
  })

  it('rejects a real P-256 key and a real Ed25519 key, naming the curve and the key type', () => {
    const p256 = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ type: 'spki', format: 'der' })
    expect(() => parseSpkiPublicKey(p256)).toThrow(/SPKI curve: is prime256v1, must be secp256k1/)
    const ed25519 = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'der' })
    expect(() => parseSpkiPublicKey(ed25519)).toThrow(/SPKI key type: is ed25519, must be ec/)
  })

  it('rejects a compressed point and trailing garbage', () => {
    const account = privateKeyToAccount(generatePrivateKey())
    const spki = encodeSecp256k1Spki(account.publicKey)
    const malformed = Uint8Array.from(spki)
    malformed[23] = 0x02 // a compressed prefix in front of 64 bytes: no valid point
    expect(() => parseSpkiPublicKey(malformed)).toThrow(/uncompressed/)
    // A well-formed compressed SPKI of the same key: Node reads it, our byte-for-byte check refuses it.
    const compressedPoint = secp256k1.ProjectivePoint.fromHex(account.publicKey.slice(2)).toBytes(true)
    const compressed = hexToBytes(`0x3036301006072a8648ce3d020106052b8104000a032200${bytesToHex(compressedPoint).slice(2)}`)
    expect(() => parseSpkiPublicKey(compressed)).toThrow(/SPKI: must be exactly the DER KMS sends: an uncompressed secp256k1 point/)
    expect(() => parseSpkiPublicKey(new Uint8Array([...spki, 0]))).toThrow(/nothing after it/)
  })

  it('rejects a point that is not on the curve', () => {
    const account = privateKeyToAccount(generatePrivateKey())
    const offCurve = Uint8Array.from(encodeSecp256k1Spki(account.publicKey))
    offCurve[offCurve.length - 1]! ^= 1
    expect(() => parseSpkiPublicKey(offCurve)).toThrow(DerError)
  })
})
