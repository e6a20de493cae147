// Clade session tokens as JWTs (HS256) under a key of their own, derived from the Clade secret with
// another label than its challenge nonces, so neither MAC stands in for the other.
import { getAddress, isAddress } from 'viem'
import { CladeAuthError } from '../../core/clade/errors.ts'
import { CLADE_SESSION_TTL_SECONDS, type CladeSession, type CladeSessionTokens } from '../../core/clade/sessionToken.ts'
import { HmacJwt, isSeconds } from './hmacJwt.ts'

function invalid(rule: string): CladeAuthError {
  return new CladeAuthError('CLADE_TOKEN_INVALID', `CladeToken: ${rule}`)
}

const isAddr = (v: unknown): v is string => typeof v === 'string' && isAddress(v, { strict: false })

export function cladeSessionTokens(secret: Uint8Array): CladeSessionTokens {
  const jwt = new HmacJwt(secret, 'bardo-clade/session-token/v2')
  return {
    async issue(claims, nowMs, ttlSeconds = CLADE_SESSION_TTL_SECONDS) {
      const iat = Math.floor(nowMs / 1000)
      const session: CladeSession = { sub: claims.sub, aud: claims.aud, op: claims.op, iat, exp: iat + ttlSeconds }
      return { token: await jwt.sign({ ...session }), session }
    },

    async verify(token, nowMs) {
      const claims = await jwt.claims(token)
      if (!claims) throw invalid('must be a token this API signed, unaltered')
      const { sub, aud, op, iat, exp } = claims
      if (!isAddr(sub) || !isAddr(aud) || !isAddr(op) || !isSeconds(iat) || !isSeconds(exp)) throw invalid('payload has an unknown shape')
      const now = Math.floor(nowMs / 1000)
      if (now >= exp) {
        throw new CladeAuthError('CLADE_TOKEN_EXPIRED', `CladeToken: expired at ${exp}, now ${now}; answer a new challenge`, {
          expiredAt: exp,
          now,
        })
      }
      return { sub: getAddress(sub), aud: getAddress(aud), op: getAddress(op), iat, exp }
    },
  }
}
