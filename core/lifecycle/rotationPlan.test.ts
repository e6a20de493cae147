// The rotation policy for keys outside the process (KMS): age since the key took over and the
// transactions it signed, judged from the profile and the chain, not from an in-memory counter.
import type { Address } from 'viem'
import { describe, expect, it } from 'vitest'
import { durableRotationDecision, profileAfterRotation } from './rotationPlan.ts'
import { born, DAY_S, testProfile } from '../../test/support/lifecycle/profile.ts'

const WEEK = Number(7n * DAY_S)
const NEW_KEY: Address = '0x00000000000000000000000000000000000000b2'

describe('durableRotationDecision', () => {
  it("ages the Golem's first key from its birth, and a rotated key from when it took over", () => {
    const first = testProfile()
    expect(durableRotationDecision(first, 0, Number(born) + WEEK - 1).rotate).toBe(false)
    expect(durableRotationDecision(first, 0, Number(born) + WEEK)).toMatchObject({ rotate: true, reasons: ['max-age'] })
    const rotated = testProfile({ keyGrantedAt: born + 10n * DAY_S })
    expect(durableRotationDecision(rotated, 0, Number(born) + WEEK + 1).rotate).toBe(false)
  })

  it('counts the transactions the key signed (its nonce) against the operation limit; the budget floor does not apply', () => {
    const profile = testProfile()
    expect(durableRotationDecision(profile, 9_999, Number(born) + 60).rotate).toBe(false)
    expect(durableRotationDecision(profile, 10_000, Number(born) + 60)).toMatchObject({ rotate: true, reasons: ['max-operations'] })
    expect(durableRotationDecision(profile, 5, Number(born) + 60, { maxOperations: 5 }).rotate).toBe(true)
  })

  it('never rotates a Privy wallet: the tick cannot create one, nor move the Golem out of Privy', () => {
    const privy = testProfile({ signer: { kind: 'privy', walletId: 'id2tptkqrxd39qo9j423etij' } })
    expect(durableRotationDecision(privy, 10_000, Number(born) + 10 * WEEK)).toEqual({ rotate: false, reasons: [] })
  })

  it('refuses a policy that makes no sense, by field', () => {
    expect(() => durableRotationDecision(testProfile(), 0, Number(born), { maxAgeSeconds: 0 })).toThrow(/maxAgeSeconds/)
  })
})

describe('profileAfterRotation', () => {
  it("the new key's age starts when its rotation began", () => {
    const profile = testProfile()
    const pending = {
      to: NEW_KEY,
      signer: { kind: 'kms' as const, keyId: 'arn:aws:kms:us-east-1:111122223333:key/spare' },
      reason: 'max-age',
      runway: { ...profile.runway },
      at: born + 8n * DAY_S,
    }
    const next = profileAfterRotation({ ...profile, pendingRotation: pending }, pending)
    expect(next).toMatchObject({ golemKey: NEW_KEY, keyGrantedAt: born + 8n * DAY_S })
    expect(next.pendingRotation).toBeUndefined()
  })
})
