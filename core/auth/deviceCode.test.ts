// The pure rules of device-code sign-in: code formats, MACs, expiry, and the answer to a poll.
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import {
  ACCESS_TOKEN_TTL_SECONDS,
  AuthCodeError,
  AuthSecret,
  checkSignedToken,
  DEVICE_CODE_TTL_SECONDS,
  deviceConfirmMessage,
  devicePollOutcome,
  formatUserCode,
  issueDeviceCode,
  issueSignedToken,
  newUserCode,
  normalizeUserCode,
  readDeviceCode,
  REFRESH_TOKEN_TTL_SECONDS,
} from './deviceCode.ts'

const secret = new AuthSecret(new Uint8Array(32).fill(9))
const other = new AuthSecret(new Uint8Array(32).fill(10))
const owner = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d').address
const T0 = 1_750_000_000_000

describe('user codes', () => {
  it('are 8 consonants shown as XXXX-XXXX, read back whatever the case, spaces or dash', () => {
    for (let i = 0; i < 50; i++) {
      const code = newUserCode()
      expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{8}$/)
      expect(normalizeUserCode(formatUserCode(code).toLowerCase())).toBe(code)
    }
    expect(formatUserCode('BCDFGHJK')).toBe('BCDF-GHJK')
    expect(normalizeUserCode(' bcdf ghjk ')).toBe('BCDFGHJK')
  })

  it('refuses vowels, digits and wrong lengths, naming the field', () => {
    for (const bad of ['ABCD-EFGH', 'BCDF-GHJ1', 'BCDF-GHJ', 'BCDF-GHJKL', '']) {
      expect(() => normalizeUserCode(bad)).toThrow(AuthCodeError)
      expect(() => normalizeUserCode(bad)).toThrow(/^userCode: /)
    }
  })
})

describe('device codes', () => {
  it('carry their expiry under the MAC and are known by hash', () => {
    const g = issueDeviceCode(secret, T0)
    expect(g.expiresAt).toBe(T0 / 1000 + DEVICE_CODE_TTL_SECONDS)
    expect(readDeviceCode(secret, g.deviceCode)).toEqual({ expiresAt: g.expiresAt, id: g.id })
    expect(g.id).not.toContain(g.deviceCode.slice(10))
  })

  it('refuse a code from another secret, an altered expiry or MAC', () => {
    const g = issueDeviceCode(secret, T0)
    expect(readDeviceCode(other, g.deviceCode)).toBeUndefined()
    expect(readDeviceCode(secret, g.deviceCode.replace(`_${g.expiresAt}.`, `_${g.expiresAt + 9999}.`))).toBeUndefined()
    expect(readDeviceCode(secret, `${g.deviceCode.slice(0, -2)}AA`)).toBeUndefined()
    expect(readDeviceCode(secret, 'bardo_dc_')).toBeUndefined()
  })
})

describe('signed tokens', () => {
  it('access tokens last 30 days, refresh tokens longer, and each verifies only as its kind', () => {
    const at = issueSignedToken(secret, 'at', owner, T0)
    const rt = issueSignedToken(secret, 'rt', owner, T0)
    expect(at.expiresAt).toBe(T0 / 1000 + ACCESS_TOKEN_TTL_SECONDS)
    expect(rt.expiresAt).toBe(T0 / 1000 + REFRESH_TOKEN_TTL_SECONDS)
    expect(checkSignedToken(secret, 'at', at.token, T0)).toEqual({ ok: true, owner, expiresAt: at.expiresAt, id: at.id })
    expect(checkSignedToken(secret, 'rt', at.token, T0)).toEqual({ ok: false, reason: 'forged' })
    expect(checkSignedToken(secret, 'at', rt.token, T0)).toEqual({ ok: false, reason: 'forged' })
  })

  it('end at their expiry, and refuse another secret or an altered owner', () => {
    const at = issueSignedToken(secret, 'at', owner, T0)
    expect(checkSignedToken(secret, 'at', at.token, at.expiresAt * 1000 - 1).ok).toBe(true)
    expect(checkSignedToken(secret, 'at', at.token, at.expiresAt * 1000)).toEqual({ ok: false, reason: 'expired' })
    expect(checkSignedToken(other, 'at', at.token, T0)).toEqual({ ok: false, reason: 'forged' })
    const swapped = at.token.replace(owner.slice(2).toLowerCase(), '1'.repeat(40))
    expect(checkSignedToken(secret, 'at', swapped, T0)).toEqual({ ok: false, reason: 'forged' })
  })
})

describe('the confirmation text and the poll', () => {
  it('names the code, the owner, the chain and the decision', () => {
    const text = deviceConfirmMessage({ userCode: 'BCDFGHJK', owner, chainId: 8453, decision: 'approve' })
    expect(text).toContain('BCDF-GHJK')
    expect(text).toContain(`Owner: ${owner}`)
    expect(text).toContain('Chain: 8453')
    expect(text).toContain('Decision: approve')
    expect(deviceConfirmMessage({ userCode: 'BCDFGHJK', owner, chainId: 8453, decision: 'deny' })).not.toBe(text)
  })

  it('maps each state to its RFC 8628 answer', () => {
    expect(devicePollOutcome({ kind: 'pending' })).toEqual({ error: 'authorization_pending' })
    expect(devicePollOutcome({ kind: 'too-fast' })).toEqual({ error: 'slow_down' })
    expect(devicePollOutcome({ kind: 'expired' })).toEqual({ error: 'expired_token' })
    expect(devicePollOutcome({ kind: 'forged' })).toEqual({ error: 'invalid_grant' })
    expect(devicePollOutcome({ kind: 'redeemed' })).toEqual({ error: 'invalid_grant' })
    expect(devicePollOutcome({ kind: 'decided', decision: 'deny', owner })).toEqual({ error: 'access_denied' })
    expect(devicePollOutcome({ kind: 'decided', decision: 'approve', owner })).toEqual({ owner })
  })
})
