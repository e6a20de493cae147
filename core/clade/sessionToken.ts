// Clade session tokens: HMAC-SHA256 over the claims, 5-minute TTL, so a sibling pays
// for one ecrecover and one operator lookup per five minutes instead of per call.
import { timingSafeEqual } from 'node:crypto'
import { getAddress, isAddress, type Address } from 'viem'
import { CladeAuthError } from './errors.ts'
import type { CladeSecret } from './secret.ts'

export const CLADE_SESSION_TTL_SECONDS = 300

export type CladeSession = {
  /** The authenticated caller (Golem A). */
  sub: Address
  /** The Golem the token is good for (Golem B); a token for one Golem opens no other. */
  aud: Address
  /** The operator both share, as checked when the token was issued. */
  op: Address
  iat: number
  exp: number
}

const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url')

export function issueCladeSessionToken(
  secret: CladeSecret,
  claims: { sub: Address; aud: Address; op: Address },
  nowMs: number,
  ttlSeconds: number = CLADE_SESSION_TTL_SECONDS,
): { token: string; session: CladeSession } {
  const iat = Math.floor(nowMs / 1000)
  const session: CladeSession = { sub: claims.sub, aud: claims.aud, op: claims.op, iat, exp: iat + ttlSeconds }
  const payload = b64url(JSON.stringify({ v: 1, ...session }))
  return { token: `${payload}.${b64url(secret.macToken(payload))}`, session }
}

function invalid(rule: string): CladeAuthError {
  return new CladeAuthError('CLADE_TOKEN_INVALID', `CladeToken: ${rule}`)
}

const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
const isAddr = (v: unknown): v is string => typeof v === 'string' && isAddress(v, { strict: false })

/** The session a token carries, or a CladeAuthError (bad MAC, bad shape, expired). */
export function verifyCladeSessionToken(secret: CladeSecret, token: string, nowMs: number): CladeSession {
  const parts = token.split('.')
  if (parts.length !== 2 || !parts[0] || !parts[1]) throw invalid('must be <payload>.<mac> in base64url')
  const [payload, mac] = parts as [string, string]
  const given = Buffer.from(mac, 'base64url')
  const expected = secret.macToken(payload)
  // Length first: timingSafeEqual throws on unequal lengths, and the length of a MAC is no secret.
  if (given.byteLength !== expected.byteLength || !timingSafeEqual(given, expected)) throw invalid('signature does not match')
  let claims: Record<string, unknown>
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>
  } catch {
    throw invalid('payload is not JSON')
  }
  const { v, sub, aud, op, iat, exp } = claims
  if (v !== 1 || !isAddr(sub) || !isAddr(aud) || !isAddr(op) || !isTime(iat) || !isTime(exp)) throw invalid('payload has an unknown shape')
  const now = Math.floor(nowMs / 1000)
  if (now >= exp) {
    throw new CladeAuthError('CLADE_TOKEN_EXPIRED', `CladeToken: expired at ${exp}, now ${now}; answer a new challenge`, {
      expiredAt: exp,
      now,
    })
  }
  return { sub: getAddress(sub), aud: getAddress(aud), op: getAddress(op), iat, exp }
}
