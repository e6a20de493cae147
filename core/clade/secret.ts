// The HMAC key behind Clade challenge nonces, derived from the configured secret and held so that it
// cannot be printed. Session tokens have a key of their own (adapters/auth/cladeSessionTokens.ts).
import { createHmac } from 'node:crypto'
import { redact } from '../custody/redact.ts'

/** 32 bytes: HMAC-SHA256's block-size guidance is met and brute force is out of reach. */
export const CLADE_SECRET_MIN_BYTES = 32

/**
 * The nonce key is derived under a label of its own, so no token of the API (a session token, whose
 * key has another label) verifies as a challenge nonce or the other way round.
 */
export class CladeSecret {
  readonly #nonceKey: Buffer

  constructor(secret: Uint8Array) {
    if (secret.byteLength < CLADE_SECRET_MIN_BYTES) {
      throw new RangeError(`clade.hmacSecret: must be at least ${CLADE_SECRET_MIN_BYTES} bytes, got ${secret.byteLength}`)
    }
    this.#nonceKey = createHmac('sha256', secret).update('bardo-clade/nonce/v1').digest()
    redact(this, () => ({ kind: 'CladeSecret' }))
  }

  macNonce(data: Uint8Array): Buffer {
    return createHmac('sha256', this.#nonceKey).update(data).digest()
  }
}
