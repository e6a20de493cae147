// API key tiers: which tier a request claims from its headers, and each tier's limit.
// Verifying a claim (is this key known, is this token valid) is the caller's job; this stays pure.
import { createHash } from 'node:crypto'
import type { Hex } from 'viem'

export type Tier = 'public' | 'read' | 'authenticated'

/** Requests per minute: public per IP, read per key, authenticated per user. */
export const TIER_LIMITS: Readonly<Record<Tier, number>> = { public: 30, read: 300, authenticated: 1000 }

/** `GET /clade/v1/challenge` is unauthenticated by nature and limited on its own, per IP. */
export const CLADE_CHALLENGE_LIMIT = 30

/**
 * Buckets that are charged before a credential is checked, per client address: `credential` for
 * bearer and Snap tokens (a verifier call or a store read), `clade-handshake` for CladeChallenge
 * signatures (signature recovery, two registry reads, a nonce write). Charging first means a flood of
 * bad credentials costs its sender the budget and reaches the verifier no more often than it allows.
 */
export type PreAuthBucket = 'credential' | 'clade-handshake'

/** Every kind of counter: the tiers, the anonymous and authenticated Clade budgets, the pre-auth ones. */
export type RateLimitBucketKind = Tier | 'clade-challenge' | 'clade' | PreAuthBucket

import { READ_KEY_PREFIX } from './readKey.ts'

export { isReadKeyShaped, READ_KEY_PATTERN, READ_KEY_PREFIX, READ_KEY_RULE } from './readKey.ts'

/**
 * A read key from at least 16 random bytes (base64url, so it needs no escaping in a header or a URL).
 * The caller brings the randomness: this module does no I/O.
 */
export function readKeyFromBytes(bytes: Uint8Array): string {
  if (bytes.length < 16 || bytes.length > 96) throw new RangeError(`bytes: must be 16 to 96 random bytes, got ${bytes.length}`)
  return `${READ_KEY_PREFIX}${Buffer.from(bytes).toString('base64url')}`
}

export type TierClaim = { tier: 'public' } | { tier: 'read'; apiKey: string } | { tier: 'authenticated'; bearerToken: string }

/**
 * The tier a request asks for. A bearer token wins over an API key (the higher tier; a portal user who
 * also pasted a key expects their own limit). Headers are expected already format-checked.
 */
export function claimTier(headers: { apiKey?: string | undefined; bearerToken?: string | undefined }): TierClaim {
  if (headers.bearerToken !== undefined) return { tier: 'authenticated', bearerToken: headers.bearerToken }
  if (headers.apiKey !== undefined) return { tier: 'read', apiKey: headers.apiKey }
  return { tier: 'public' }
}

/**
 * SHA-256 of an API key. Configuration and counters hold only this, so neither the environment nor the
 * store ever contains a usable key.
 */
export function hashApiKey(apiKey: string): Hex {
  return `0x${createHash('sha256').update(apiKey, 'utf8').digest('hex')}`
}

/**
 * The counter name for a verified principal. Keys and tokens enter only as a hash prefix: counters
 * live in the store, and a store dump must not hand out credentials.
 */
export function rateLimitBucket(tier: RateLimitBucketKind, subject: string): string {
  return `rl:${tier}:${subject}`
}
