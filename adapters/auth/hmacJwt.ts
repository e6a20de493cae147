// HS256 JSON Web Tokens (hono/jwt) under a key of their own per use, derived from one configured
// secret, so a token of one kind never verifies as another. Time claims are checked by the caller
// against its own clock (hono's verify would read the wall clock), after the signature holds.
import { createHmac, webcrypto } from 'node:crypto'
import { sign, verify } from 'hono/jwt'
import { redact } from '../../core/custody/redact.ts'

/** The configured secret's least length: HMAC-SHA256's block-size guidance, brute force out of reach. */
export const JWT_SECRET_MIN_BYTES = 32
/** Far above any token issued here; a longer string is refused before it is parsed. */
const MAX_TOKEN_CHARS = 2048
// A 32-byte signature in base64url is 43 characters whose last carries 4 bits: only these last
// characters are canonical. Refusing the others keeps one string per token, so a token's hash (what
// the store keeps of a spent refresh token) cannot be dodged by re-encoding its signature.
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/

export type JwtClaims = Record<string, unknown>

export class HmacJwt {
  readonly #key: Promise<webcrypto.CryptoKey>

  /** `purpose` names the use (and its version), so each use has its own key. */
  constructor(secret: Uint8Array, purpose: string) {
    if (secret.byteLength < JWT_SECRET_MIN_BYTES) {
      throw new RangeError(`secret: must be at least ${JWT_SECRET_MIN_BYTES} bytes, got ${secret.byteLength}`)
    }
    const derived = createHmac('sha256', secret).update(purpose).digest()
    this.#key = webcrypto.subtle.importKey('raw', derived, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])
    redact(this, () => ({ kind: 'HmacJwt', purpose }))
  }

  async sign(claims: JwtClaims): Promise<string> {
    return sign(claims, await this.#key, 'HS256')
  }

  /** The claims of a token this key signed, unaltered; undefined for anything else. Times are not checked. */
  async claims(token: string): Promise<JwtClaims | undefined> {
    if (token.length > MAX_TOKEN_CHARS || !JWT.test(token)) return undefined
    try {
      return await verify(token, await this.#key, { alg: 'HS256', exp: false, nbf: false, iat: false })
    } catch {
      return undefined
    }
  }
}

/** A whole number of seconds, as a time claim must be. */
export const isSeconds = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
