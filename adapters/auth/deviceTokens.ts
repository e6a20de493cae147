// The device code and the CLI's access and refresh tokens as JWTs (HS256), each kind under its own key
// derived from the API's secret. The `bardo_dc_`/`bardo_at_`/`bardo_rt_` prefix stays outside the
// token so secret scanners and the tier middleware recognise one; the kind is also in the key, so a
// prefix swapped by hand does not make a refresh token an access token.
import { randomBytes } from 'node:crypto'
import { getAddress, isAddress, type Address } from 'viem'
import {
  ACCESS_TOKEN_TTL_SECONDS,
  DEVICE_CODE_TTL_SECONDS,
  hashAuthSecret,
  newUserCode,
  REFRESH_TOKEN_TTL_SECONDS,
  type DeviceAuthTokens,
  type TokenKind,
} from '../../core/auth/deviceCode.ts'
import { HmacJwt, isSeconds } from './hmacJwt.ts'

const DEVICE_CODE_PREFIX = 'bardo_dc_'

export function deviceAuthTokens(secret: Uint8Array): DeviceAuthTokens {
  const deviceCodes = new HmacJwt(secret, 'bardo-auth/device-code/v2')
  const tokens: Record<TokenKind, HmacJwt> = {
    at: new HmacJwt(secret, 'bardo-auth/access-token/v2'),
    rt: new HmacJwt(secret, 'bardo-auth/refresh-token/v2'),
  }
  return {
    async issueDeviceCode(nowMs) {
      const expiresAt = Math.floor(nowMs / 1000) + DEVICE_CODE_TTL_SECONDS
      const deviceCode = `${DEVICE_CODE_PREFIX}${await deviceCodes.sign({ exp: expiresAt, jti: randomBytes(32).toString('base64url') })}`
      return { deviceCode, userCode: newUserCode(), expiresAt, id: hashAuthSecret(deviceCode) }
    },

    async readDeviceCode(deviceCode) {
      if (!deviceCode.startsWith(DEVICE_CODE_PREFIX)) return undefined
      const claims = await deviceCodes.claims(deviceCode.slice(DEVICE_CODE_PREFIX.length))
      if (!claims || !isSeconds(claims.exp) || typeof claims.jti !== 'string') return undefined
      return { expiresAt: claims.exp, id: hashAuthSecret(deviceCode) }
    },

    async issueToken(kind, owner, nowMs) {
      const iat = Math.floor(nowMs / 1000)
      const expiresAt = iat + (kind === 'at' ? ACCESS_TOKEN_TTL_SECONDS : REFRESH_TOKEN_TTL_SECONDS)
      const jwt = await tokens[kind].sign({ sub: getAddress(owner), iat, exp: expiresAt, jti: randomBytes(16).toString('base64url') })
      const token = `bardo_${kind}_${jwt}`
      return { token, expiresAt, id: hashAuthSecret(token) }
    },

    async checkToken(kind, token, nowMs) {
      const prefix = `bardo_${kind}_`
      if (!token.startsWith(prefix)) return { ok: false, reason: 'forged' }
      const claims = await tokens[kind].claims(token.slice(prefix.length))
      if (!claims || typeof claims.sub !== 'string' || !isAddress(claims.sub) || !isSeconds(claims.exp)) {
        return { ok: false, reason: 'forged' }
      }
      if (Math.floor(nowMs / 1000) >= claims.exp) return { ok: false, reason: 'expired' }
      return { ok: true, owner: getAddress(claims.sub as Address), expiresAt: claims.exp, id: hashAuthSecret(token) }
    },
  }
}
