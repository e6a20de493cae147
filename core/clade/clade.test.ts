import { inspect } from 'node:util'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import {
  cladeChallengeSchema,
  cladeChallengeTypedData,
  cladeDomain,
  issueCladeChallenge,
  isIssuedCladeChallenge,
  type CladeChallenge,
} from './challenge.ts'
import { CladeAuthError } from './errors.ts'
import { ConfigOperatorRegistry, MemoryNonceStore } from '../../test/support/memoryPorts.ts'
import { CladeSecret } from './secret.ts'
import { verifyCladeChallenge } from './verify.ts'

const chainId = 31337
const secret = new CladeSecret(new Uint8Array(32).fill(7))
const alice = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d') // caller
const bob = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a') // target
const mallory = privateKeyToAccount('0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6')
const operatorA = '0x00000000000000000000000000000000000000a1'
const operatorB = '0x00000000000000000000000000000000000000b2'
const T0 = 1_750_000_000_000

const operators = new ConfigOperatorRegistry({ [alice.address]: operatorA, [bob.address]: operatorA, [mallory.address]: operatorB })

function challengeFor(caller = alice.address, nowMs = T0): CladeChallenge {
  return issueCladeChallenge({ secret, chainId, caller, target: bob.address, nowMs })
}

async function verify(challenge: CladeChallenge, signature: `0x${string}`, opts: { nowMs?: number; nonces?: MemoryNonceStore } = {}) {
  return verifyCladeChallenge({
    challenge,
    signature,
    secret,
    chainId,
    nowMs: opts.nowMs ?? T0 + 5_000,
    operators,
    nonces: opts.nonces ?? new MemoryNonceStore(),
  })
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p
  } catch (err) {
    expect(err).toBeInstanceOf(CladeAuthError)
    return (err as CladeAuthError).code
  }
  return 'OK'
}

describe('CladeChallenge', () => {
  it('is recognised as issued, and not after any field changes', () => {
    const c = challengeFor()
    expect(isIssuedCladeChallenge(secret, c, chainId)).toBe(true)
    expect(isIssuedCladeChallenge(secret, { ...c, expiresAt: c.expiresAt + 3600 }, chainId)).toBe(false)
    expect(isIssuedCladeChallenge(secret, { ...c, caller: mallory.address }, chainId)).toBe(false)
    expect(isIssuedCladeChallenge(secret, c, 1)).toBe(false)
    expect(isIssuedCladeChallenge(new CladeSecret(new Uint8Array(32).fill(8)), c, chainId)).toBe(false)
    expect(c.expiresAt - c.issuedAt).toBe(60)
  })

  it('round-trips through its JSON form and names a bad field', () => {
    const c = challengeFor()
    expect(cladeChallengeSchema.parse(JSON.parse(JSON.stringify(c)))).toEqual(c)
    const bad = cladeChallengeSchema.safeParse({ ...c, nonce: '0x12' })
    expect(bad.success).toBe(false)
    expect(bad.error?.issues[0]?.path).toEqual(['nonce'])
    expect(cladeChallengeSchema.safeParse({ ...c, caller: '0x1234' }).error?.issues[0]).toMatchObject({
      path: ['caller'],
      message: 'must be a 20-byte hex address',
    })
  })

  it('refuses a secret shorter than 32 bytes and never prints one', () => {
    expect(() => new CladeSecret(new Uint8Array(16))).toThrow(/at least 32 bytes/)
    const s = new CladeSecret(new Uint8Array(32).fill(0xab))
    expect(JSON.stringify(s)).not.toMatch(/abab|171/)
    expect(inspect(s)).not.toMatch(/abab|171/)
  })
})

describe('verifyCladeChallenge', () => {
  it('accepts a viem-signed challenge from a same-operator sibling', async () => {
    const c = challengeFor()
    const signature = await alice.signTypedData(cladeChallengeTypedData(c, chainId))
    await expect(verify(c, signature)).resolves.toEqual({
      caller: alice.address,
      target: bob.address,
      operator: '0x00000000000000000000000000000000000000A1',
    })
  })

  it('refuses a replay of the same nonce', async () => {
    const nonces = new MemoryNonceStore()
    const c = challengeFor()
    const signature = await alice.signTypedData(cladeChallengeTypedData(c, chainId))
    expect(await codeOf(verify(c, signature, { nonces }))).toBe('OK')
    expect(await codeOf(verify(c, signature, { nonces }))).toBe('CLADE_NONCE_REUSED')
  })

  it('refuses an expired challenge', async () => {
    const c = challengeFor()
    const signature = await alice.signTypedData(cladeChallengeTypedData(c, chainId))
    expect(await codeOf(verify(c, signature, { nowMs: T0 + 60_000 }))).toBe('CLADE_CHALLENGE_EXPIRED')
  })

  it('refuses a caller with another operator, and an unregistered caller', async () => {
    const c = challengeFor(mallory.address)
    expect(await codeOf(verify(c, await mallory.signTypedData(cladeChallengeTypedData(c, chainId))))).toBe('CLADE_OPERATOR_MISMATCH')
    const stranger = privateKeyToAccount('0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a')
    const s = challengeFor(stranger.address)
    expect(await codeOf(verify(s, await stranger.signTypedData(cladeChallengeTypedData(s, chainId))))).toBe('CLADE_UNKNOWN_AGENT')
  })

  it('refuses signatures over a wrong domain (chainId, name, version)', async () => {
    const c = challengeFor()
    const typed = cladeChallengeTypedData(c, chainId)
    for (const domain of [cladeDomain(1), { ...cladeDomain(chainId), name: 'Bardo' }, { ...cladeDomain(chainId), version: '2' }]) {
      const signature = await alice.signTypedData({ ...typed, domain })
      expect(await codeOf(verify(c, signature))).toBe('CLADE_BAD_SIGNATURE')
    }
  })

  it('refuses a forged signature, a garbage signature, and an altered challenge', async () => {
    const c = challengeFor()
    expect(await codeOf(verify(c, await mallory.signTypedData(cladeChallengeTypedData(c, chainId))))).toBe('CLADE_BAD_SIGNATURE')
    expect(await codeOf(verify(c, `0x${'11'.repeat(65)}`))).toBe('CLADE_BAD_SIGNATURE')
    const altered = { ...c, expiresAt: c.expiresAt + 3600 }
    expect(await codeOf(verify(altered, await alice.signTypedData(cladeChallengeTypedData(altered, chainId))))).toBe(
      'CLADE_CHALLENGE_NOT_ISSUED',
    )
  })

  it('does not burn the nonce when a request fails before the last check', async () => {
    const nonces = new MemoryNonceStore()
    const c = challengeFor()
    await codeOf(verify(c, await mallory.signTypedData(cladeChallengeTypedData(c, chainId)), { nonces }))
    expect(await codeOf(verify(c, await alice.signTypedData(cladeChallengeTypedData(c, chainId)), { nonces }))).toBe('OK')
  })
})
