import { randomFillSync } from 'node:crypto'
import { bytesToHex, type Address, type Hash, type Hex, type Signature } from 'viem'
import { privateKeyToAccount, sign } from 'viem/accounts'
import { SessionKeyZeroedError } from './errors.ts'
import { fromDigestSigner, type RawSigner, type RawSignerKind } from './rawSigner.ts'
import { redact } from './redact.ts'

// secp256k1 group order: a private key must lie in [1, n-1].
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

/**
 * A secp256k1 private key held as bytes in a private field, so that zero() can overwrite them.
 * viem's signing API takes hex, so each signing call makes a short-lived hex copy; a JS string
 * cannot be zeroed and lives until the garbage collector reclaims it (see docs/custody.md).
 */
export class MemoryKey {
  #key: Uint8Array
  #zeroed = false
  readonly address: Address
  readonly publicKey: Hex

  private constructor(key: Uint8Array) {
    this.#key = key
    const account = privateKeyToAccount(bytesToHex(key))
    this.address = account.address
    this.publicKey = account.publicKey
    redact(this, () => ({ address: this.address, zeroed: this.#zeroed }))
  }

  /** A fresh key from the OS CSPRNG, drawn straight into bytes (never a hex string). */
  static generate(): MemoryKey {
    const key = new Uint8Array(32)
    for (;;) {
      randomFillSync(key)
      const k = BigInt(bytesToHex(key))
      if (k > 0n && k < SECP256K1_N) return new MemoryKey(key)
    }
  }

  /** Takes a copy of `bytes`; the caller should zero its own buffer. */
  static fromBytes(bytes: Uint8Array): MemoryKey {
    if (bytes.length !== 32) throw new RangeError('private key: must be 32 bytes')
    const k = BigInt(bytesToHex(bytes))
    if (k === 0n || k >= SECP256K1_N) throw new RangeError('private key: must be in [1, n-1] of secp256k1')
    return new MemoryKey(Uint8Array.from(bytes))
  }

  get zeroed(): boolean {
    return this.#zeroed
  }

  async signDigest(digest: Hash): Promise<Signature> {
    if (this.#zeroed) throw new SessionKeyZeroedError(this.address)
    return sign({ hash: digest, privateKey: bytesToHex(this.#key), to: 'object' })
  }

  /** Overwrites the key bytes. Every later signing fails with SessionKeyZeroedError. */
  zero(): void {
    this.#key.fill(0)
    this.#zeroed = true
  }

  /**
   * The key bytes, for writing an encrypted keystore only. Returns a copy the caller must zero.
   */
  exportBytesForKeystore(): Uint8Array {
    if (this.#zeroed) throw new SessionKeyZeroedError(this.address)
    return Uint8Array.from(this.#key)
  }

  toRawSigner(kind: RawSignerKind = 'memory'): RawSigner {
    return fromDigestSigner({
      kind,
      address: this.address,
      publicKey: this.publicKey,
      signDigest: (digest) => this.signDigest(digest),
    })
  }
}
