// The device code and the CLI's tokens as signed JWTs: expiry, kind, and refusal of anything altered.
import { inspect } from 'node:util'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { ACCESS_TOKEN_TTL_SECONDS, DEVICE_CODE_TTL_SECONDS, REFRESH_TOKEN_TTL_SECONDS } from '../../core/auth/deviceCode.ts'
import { deviceAuthTokens } from './deviceTokens.ts'
import { HmacJwt } from './hmacJwt.ts'
import { withClaims } from './testing.ts'

const tokens = deviceAuthTokens(new Uint8Array(32).fill(9))
const other = deviceAuthTokens(new Uint8Array(32).fill(10))
const owner = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d').address
const T0 = 1_750_000_000_000

describe('device codes', () => {
  it('carry their expiry under the MAC and are known by hash', async () => {
    const g = await tokens.issueDeviceCode(T0)
    expect(g.expiresAt).toBe(T0 / 1000 + DEVICE_CODE_TTL_SECONDS)
    expect(await tokens.readDeviceCode(g.deviceCode)).toEqual({ expiresAt: g.expiresAt, id: g.id })
    expect(g.id).not.toContain(g.deviceCode.slice(10))
  })

  it('refuse a code from another secret, an altered expiry or MAC', async () => {
    const g = await tokens.issueDeviceCode(T0)
    expect(await other.readDeviceCode(g.deviceCode)).toBeUndefined()
    expect(await tokens.readDeviceCode(withClaims(g.deviceCode, (c) => ({ ...c, exp: g.expiresAt + 9999 })))).toBeUndefined()
    expect(await tokens.readDeviceCode(`${g.deviceCode.slice(0, -2)}AA`)).toBeUndefined()
    expect(await tokens.readDeviceCode('bardo_dc_')).toBeUndefined()
  })
})

describe('signed tokens', () => {
  it('access tokens last 30 days, refresh tokens longer, and each verifies only as its kind', async () => {
    const at = await tokens.issueToken('at', owner, T0)
    const rt = await tokens.issueToken('rt', owner, T0)
    expect(at.expiresAt).toBe(T0 / 1000 + ACCESS_TOKEN_TTL_SECONDS)
    expect(rt.expiresAt).toBe(T0 / 1000 + REFRESH_TOKEN_TTL_SECONDS)
    expect(await tokens.checkToken('at', at.token, T0)).toEqual({ ok: true, owner, expiresAt: at.expiresAt, id: at.id })
    expect(await tokens.checkToken('rt', at.token, T0)).toEqual({ ok: false, reason: 'forged' })
    expect(await tokens.checkToken('at', rt.token, T0)).toEqual({ ok: false, reason: 'forged' })
    // The prefix alone does not make a kind: the key does.
    expect(await tokens.checkToken('at', rt.token.replace('bardo_rt_', 'bardo_at_'), T0)).toEqual({ ok: false, reason: 'forged' })
  })

  it('end at their expiry, and refuse another secret or an altered owner', async () => {
    const at = await tokens.issueToken('at', owner, T0)
    expect((await tokens.checkToken('at', at.token, at.expiresAt * 1000 - 1)).ok).toBe(true)
    expect(await tokens.checkToken('at', at.token, at.expiresAt * 1000)).toEqual({ ok: false, reason: 'expired' })
    expect(await other.checkToken('at', at.token, T0)).toEqual({ ok: false, reason: 'forged' })
    const swapped = withClaims(at.token, (c) => ({ ...c, sub: `0x${'1'.repeat(40)}` }))
    expect(await tokens.checkToken('at', swapped, T0)).toEqual({ ok: false, reason: 'forged' })
  })

  it('refuse a signature re-encoded in another base64url spelling, so a spent refresh token stays spent', async () => {
    const rt = await tokens.issueToken('rt', owner, T0)
    // The last of 43 characters carries 4 bits; its 2 spare bits set give the same bytes, another string.
    const last = rt.token.at(-1)!
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    const respelled = `${rt.token.slice(0, -1)}${alphabet[alphabet.indexOf(last) + 1]}`
    expect(await tokens.checkToken('rt', respelled, T0)).toEqual({ ok: false, reason: 'forged' })
  })

  it('refuse a token too long to be one of ours before parsing it', async () => {
    const at = await tokens.issueToken('at', owner, T0)
    const long = withClaims(at.token, (c) => ({ ...c, pad: 'x'.repeat(2048) }))
    expect(await tokens.checkToken('at', long, T0)).toEqual({ ok: false, reason: 'forged' })
  })
})

describe('the secret', () => {
  it('must be at least 32 bytes, and the error names it', () => {
    expect(() => deviceAuthTokens(new Uint8Array(31))).toThrow(/^secret: must be at least 32 bytes, got 31$/)
  })

  it('never prints', () => {
    const jwt = new HmacJwt(new Uint8Array(32).fill(9), 'bardo-auth/access-token/v2')
    expect(JSON.stringify(jwt)).not.toContain('9')
    expect(inspect(jwt)).toContain('[redacted]')
  })
})
