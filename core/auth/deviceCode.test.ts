// The pure rules of device-code sign-in: user codes, the confirmation text, and the answer to a poll.
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { AuthCodeError, deviceConfirmMessage, devicePollOutcome, formatUserCode, newUserCode, normalizeUserCode } from './deviceCode.ts'

const owner = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d').address

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
