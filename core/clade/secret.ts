// The HMAC secret behind Clade nonces and session tokens, held so that it cannot be printed.
import { createHmac } from 'node:crypto'
import { redact } from '../custody/redact.ts'

/** 32 bytes: HMAC-SHA256's block-size guidance is met and brute force is out of reach. */
export const CLADE_SECRET_MIN_BYTES = 32

/**
 * One configured secret, two derived keys: a nonce MAC and a token MAC must never be interchangeable
 * (a session token must not verify as a challenge nonce or the other way round).
 */
export class CladeSecret {
  readonly #nonceKey: Buffer
  readonly #tokenKey: Buffer

  constructor(secret: Uint8Array) {
    if (secret.byteLength < CLADE_SECRET_MIN_BYTES) {
      throw new RangeError(`clade.hmacSecret: must be at least ${CLADE_SECRET_MIN_BYTES} bytes, got ${secret.byteLength}`)
    }
    this.#nonceKey = createHmac('sha256', secret).update('bardo-clade/nonce/v1').digest()
    this.#tokenKey = createHmac('sha256', secret).update('bardo-clade/session-token/v1').digest()
    redact(this, () => ({ kind: 'CladeSecret' }))
  }

  macNonce(data: Uint8Array): Buffer {
    return createHmac('sha256', this.#nonceKey).update(data).digest()
  }

  macToken(data: string): Buffer {
    return createHmac('sha256', this.#tokenKey).update(data, 'utf8').digest()
  }
}
