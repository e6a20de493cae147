// Clade session tokens: a 5-minute pass, so a sibling pays for one ecrecover and one operator lookup
// per five minutes instead of per call. core/ says what a session is and how long it lasts; the signed
// token (a JWT, adapters/auth) is behind the port below.
import type { Address } from 'viem'

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

/** Issues and checks session tokens; a token that is not good is a CladeAuthError (CLADE_TOKEN_INVALID or _EXPIRED). */
export interface CladeSessionTokens {
  issue(
    claims: { sub: Address; aud: Address; op: Address },
    nowMs: number,
    ttlSeconds?: number,
  ): Promise<{ token: string; session: CladeSession }>
  verify(token: string, nowMs: number): Promise<CladeSession>
}
