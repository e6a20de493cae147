// Clade session tokens: five minutes, then expired; anything altered or signed elsewhere is refused.
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { cladeSessionTokens } from './cladeSessionTokens.ts'
import { withClaims } from './testing.ts'

const tokens = cladeSessionTokens(new Uint8Array(32).fill(7))
const alice = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d') // caller
const bob = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a') // target
const operatorA = '0x00000000000000000000000000000000000000a1'
const T0 = 1_750_000_000_000

describe('Clade session token', () => {
  const claims = { sub: alice.address, aud: bob.address, op: operatorA as `0x${string}` }

  it('verifies for five minutes and expires after', async () => {
    const { token, session } = await tokens.issue(claims, T0)
    expect(session.exp - session.iat).toBe(300)
    expect((await tokens.verify(token, T0 + 299_999)).sub).toBe(alice.address)
    await expect(tokens.verify(token, T0 + 300_000)).rejects.toThrow(expect.objectContaining({ code: 'CLADE_TOKEN_EXPIRED' }))
  })

  it('refuses a token with a changed payload, a foreign secret or a bad shape', async () => {
    const { token } = await tokens.issue(claims, T0)
    const [header, payload] = token.split('.') as [string, string, string]
    const forged = withClaims(token, (c) => ({ ...c, exp: 9_999_999_999 }))
    for (const t of [forged, 'abc', `${header}.${payload}.`, `${header}.${payload}.AAAA`]) {
      await expect(tokens.verify(t, T0)).rejects.toThrow(expect.objectContaining({ code: 'CLADE_TOKEN_INVALID' }))
    }
    await expect(cladeSessionTokens(new Uint8Array(32).fill(9)).verify(token, T0)).rejects.toThrow(
      expect.objectContaining({ code: 'CLADE_TOKEN_INVALID' }),
    )
  })
})
