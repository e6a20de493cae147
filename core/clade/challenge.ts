// The EIP-712 CladeChallenge: its domain, types, issuance and the JSON form callers echo.
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { bytesToHex, concat, getAddress, hexToBytes, isAddress, numberToBytes, type Address, type Hex } from 'viem'
import * as z from 'zod/v4'
import type { CladeSecret } from './secret.ts'

export const CLADE_DOMAIN_NAME = 'Bardo Clade'
export const CLADE_DOMAIN_VERSION = '1'
/** Long enough for a sibling to sign with a KMS key and post; short enough that a leaked one is stale. */
export const CLADE_CHALLENGE_TTL_SECONDS = 60

/**
 * No `verifyingContract`: no contract ever verifies a CladeChallenge, and the receiving Golem is bound by
 * the `target` field. `chainId` binds the chain the operator registry lives on.
 */
export function cladeDomain(chainId: number) {
  return { name: CLADE_DOMAIN_NAME, version: CLADE_DOMAIN_VERSION, chainId } as const
}

export const cladeChallengeTypes = {
  CladeChallenge: [
    { name: 'nonce', type: 'bytes32' },
    { name: 'issuedAt', type: 'uint64' },
    { name: 'expiresAt', type: 'uint64' },
    { name: 'target', type: 'address' },
    { name: 'caller', type: 'address' },
  ],
} as const

/** Times are unix seconds; they fit a JS number exactly and travel as JSON numbers. */
export type CladeChallenge = {
  nonce: Hex
  issuedAt: number
  expiresAt: number
  /** The Golem receiving the calls (Golem B). */
  target: Address
  /** The Golem that signs (Golem A). */
  caller: Address
}

/** Everything a caller passes to viem's `signTypedData` (and what the verifier recovers from). */
export function cladeChallengeTypedData(challenge: CladeChallenge, chainId: number) {
  return {
    domain: cladeDomain(chainId),
    types: cladeChallengeTypes,
    primaryType: 'CladeChallenge' as const,
    message: {
      nonce: challenge.nonce,
      issuedAt: BigInt(challenge.issuedAt),
      expiresAt: BigInt(challenge.expiresAt),
      target: challenge.target,
      caller: challenge.caller,
    },
  }
}

const address = z
  .string()
  .refine((v) => isAddress(v, { strict: false }), { message: 'must be a 20-byte hex address', abort: true })
  .transform((v) => getAddress(v))
const unixSeconds = z
  .number()
  .int('must be an integer (unix seconds)')
  .nonnegative('must not be negative')
  .max(2 ** 53 - 1)

/** The JSON a caller sends back in `X-Clade-Challenge`. */
export const cladeChallengeSchema = z.strictObject({
  nonce: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, 'must be 32 bytes of 0x-prefixed hex')
    .transform((v) => v.toLowerCase() as Hex),
  issuedAt: unixSeconds,
  expiresAt: unixSeconds,
  target: address,
  caller: address,
})

// The nonce is 16 random bytes followed by a 16-byte MAC over them and every other field. The server can
// therefore recognise its own challenges without storing them: issuing costs no store write, so the
// unauthenticated challenge endpoint cannot be used to fill the store. Only *used* nonces are stored.
const RANDOM_BYTES = 16

function nonceMac(secret: CladeSecret, random: Uint8Array, c: Omit<CladeChallenge, 'nonce'>, chainId: number): Uint8Array {
  const data = concat([
    random,
    numberToBytes(chainId, { size: 8 }),
    hexToBytes(c.caller),
    hexToBytes(c.target),
    numberToBytes(c.issuedAt, { size: 8 }),
    numberToBytes(c.expiresAt, { size: 8 }),
  ])
  return secret.macNonce(data).subarray(0, 32 - RANDOM_BYTES)
}

export type IssueCladeChallengeParameters = {
  secret: CladeSecret
  chainId: number
  caller: Address
  target: Address
  nowMs: number
  ttlSeconds?: number
  /** Tests pin the randomness; production leaves it out. */
  random?: Uint8Array
}

export function issueCladeChallenge(p: IssueCladeChallengeParameters): CladeChallenge {
  const random = p.random ?? randomBytes(RANDOM_BYTES)
  if (random.byteLength !== RANDOM_BYTES) throw new RangeError(`random: must be ${RANDOM_BYTES} bytes, got ${random.byteLength}`)
  const issuedAt = Math.floor(p.nowMs / 1000)
  const fields = {
    issuedAt,
    expiresAt: issuedAt + (p.ttlSeconds ?? CLADE_CHALLENGE_TTL_SECONDS),
    target: getAddress(p.target),
    caller: getAddress(p.caller),
  }
  const nonce = bytesToHex(concat([random, nonceMac(p.secret, random, fields, p.chainId)]))
  return { nonce, ...fields }
}

/** True when this server issued exactly this challenge (no field changed since), in constant time. */
export function isIssuedCladeChallenge(secret: CladeSecret, challenge: CladeChallenge, chainId: number): boolean {
  const nonce = hexToBytes(challenge.nonce)
  if (nonce.byteLength !== 32) return false
  const expected = nonceMac(secret, nonce.subarray(0, RANDOM_BYTES), challenge, chainId)
  return timingSafeEqual(nonce.subarray(RANDOM_BYTES), expected)
}
