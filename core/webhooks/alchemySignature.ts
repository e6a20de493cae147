// Alchemy Notify signs each delivery: X-Alchemy-Signature is the hex HMAC-SHA256 of the raw request body
// under the webhook's signing key. The body must be checked as received, before any JSON parsing, and
// the comparison must take the same time wherever the first differing byte is.
import { createHmac, timingSafeEqual } from 'node:crypto'
import { redact } from '../custody/redact.ts'
import { WebhookSignatureError } from './errors.ts'

const SIGNATURE = /^[0-9a-fA-F]{64}$/

/** The webhook's signing key, held so that it cannot be printed. */
export class AlchemySigningKey {
  readonly #key: string

  constructor(key: string) {
    if (key.trim().length < 16) throw new RangeError('alchemy signing key: must be the webhook signing key from Alchemy Notify')
    this.#key = key
    redact(this, () => ({ kind: 'AlchemySigningKey' }))
  }

  /** The hex signature Alchemy sends for this body (tests sign their payloads with it). */
  sign(rawBody: string): string {
    return createHmac('sha256', this.#key).update(rawBody, 'utf8').digest('hex')
  }

  /** Throws WebhookSignatureError unless `header` is this body's signature. */
  verify(rawBody: string, header: string | undefined): void {
    if (header === undefined || header === '')
      throw new WebhookSignatureError('x-alchemy-signature: is required (the HMAC-SHA256 of the raw body, in hex)')
    if (!SIGNATURE.test(header)) throw new WebhookSignatureError('x-alchemy-signature: must be 64 hex digits (an HMAC-SHA256)')
    const expected = createHmac('sha256', this.#key).update(rawBody, 'utf8').digest()
    if (!timingSafeEqual(expected, Buffer.from(header, 'hex')))
      throw new WebhookSignatureError("x-alchemy-signature: is not the HMAC-SHA256 of the body under this webhook's signing key")
  }
}
