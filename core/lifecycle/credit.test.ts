import fc from 'fast-check'
import type { Address } from 'viem'
import { describe, expect, it } from 'vitest'
import { applyCredit, MAX_APPLIED_CREDITS, paymentCreditId, runwaySecondsFor, type ProfileCredit } from './credit.ts'
import { parseGolemProfile, serializeGolemProfile, type GolemProfile } from './profile.ts'

const hex32 = (b: string) => `0x${b.repeat(32)}` as const
const payer: Address = '0x90F79bf6EB2c4f870365E785982E1f101E93b906'
const born = 1_750_000_000n

function profile(overrides: Partial<GolemProfile['life']> = {}): GolemProfile {
  const delegation = {
    delegate: payer,
    delegator: payer,
    authority: hex32('ff'),
    caveats: [],
    salt: '0x00' as const,
    signature: '0x01' as const,
  }
  return parseGolemProfile(
    serializeGolemProfile({
      v: 1,
      chainId: 31337,
      golemKey: payer,
      signer: { kind: 'memory', ref: 'k' },
      runway: {
        chain: [delegation],
        token: payer,
        periodAmount: 10n,
        periodDuration: 86_400n,
        periodStart: born,
        periodDelegationHash: hex32('ab'),
        periodTerms: '0x',
        chainHashes: [hex32('ab')],
        expiresAt: born + 30n * 86_400n,
      },
      life: { bornAt: born, runwayEndsAt: born + 30n * 86_400n, runwayTotalSeconds: 30n * 86_400n, lastInsightAt: born, ...overrides },
      replicants: [],
      renewals: [],
      known: { revokedReported: false, expiringWarned: false, budgetWarnedPeriod: null },
    }),
  )
}

let n = 0
function credit(o: Partial<ProfileCredit> = {}): ProfileCredit {
  n++
  return {
    kind: 'extend',
    id: paymentCreditId(payer, `0x${n.toString(16).padStart(64, '0')}`),
    payer,
    amount: 500_000n,
    seconds: 3600n,
    creditedAtMs: 1_750_000_100_000 + n,
    ...o,
  }
}

describe('applyCredit', () => {
  it('extend adds the seconds to runwayEndsAt and keeps runwayTotalSeconds (the clock scale)', () => {
    const p = profile()
    const r = applyCredit(p, credit(), born + 100n)
    expect(r.applied).toBe(true)
    expect(r.profile.life.runwayEndsAt).toBe(p.life.runwayEndsAt + 3600n)
    expect(r.profile.life.runwayTotalSeconds).toBe(p.life.runwayTotalSeconds)
    expect(r.profile.runway.expiresAt).toBe(p.runway.expiresAt)
    expect(r.profile.reprieve).toBeUndefined()
  })

  it('an extension of a runway that already ended starts now', () => {
    const p = profile({ runwayEndsAt: born + 10n })
    expect(applyCredit(p, credit(), born + 1000n).profile.life.runwayEndsAt).toBe(born + 1000n + 3600n)
  })

  it('the same payment is applied once, however often it is retried', () => {
    const c = credit()
    const once = applyCredit(profile(), c, born)
    const twice = applyCredit(once.profile, c, born + 5n)
    expect(twice).toEqual({ applied: false, reason: 'already', profile: once.profile })
    // A round trip through the store's JSON keeps the applied list.
    const stored = parseGolemProfile(serializeGolemProfile(once.profile))
    expect(applyCredit(stored, c, born).applied).toBe(false)
  })

  it('feed extends the runway and leaves one reprieve request that accumulates', () => {
    const first = applyCredit(profile(), credit({ kind: 'feed', amount: 5_000_000n, seconds: 36_000n }), born + 7n)
    expect(first.profile.reprieve).toEqual({ requestedAt: born + 7n, amount: 5_000_000n, payer })
    expect(first.profile.life.runwayEndsAt).toBe(born + 30n * 86_400n + 36_000n)
    const other = '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65'
    const second = applyCredit(first.profile, credit({ kind: 'feed', amount: 6_000_000n, seconds: 43_200n, payer: other }), born + 9n)
    expect(second.profile.reprieve).toEqual({ requestedAt: born + 7n, amount: 11_000_000n, payer: other })
    expect(parseGolemProfile(serializeGolemProfile(second.profile)).reprieve).toEqual(second.profile.reprieve)
  })

  it('keeps at most MAX_APPLIED_CREDITS ids and refuses anything at or before the dropped horizon', () => {
    let p = profile()
    const all: ProfileCredit[] = []
    for (let i = 0; i < MAX_APPLIED_CREDITS + 5; i++) {
      const c = credit({ seconds: 1n })
      all.push(c)
      p = applyCredit(p, c, born).profile
    }
    expect(p.credits!.applied).toHaveLength(MAX_APPLIED_CREDITS)
    expect(p.credits!.horizonMs).toBe(BigInt(all[4]!.creditedAtMs))
    expect(p.life.runwayEndsAt).toBe(born + 30n * 86_400n + BigInt(all.length))
    for (const old of all.slice(0, 5)) expect(applyCredit(p, old, born)).toMatchObject({ applied: false, reason: 'beforeHorizon' })
    for (const recent of all.slice(5)) expect(applyCredit(p, recent, born)).toMatchObject({ applied: false, reason: 'already' })
  })

  it('property: any sequence of credits with retries and reorderings adds each payment exactly once', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 7 }), fc.integer({ min: 1, max: 10_000 })), { minLength: 1, maxLength: 60 }),
        (steps) => {
          const credits = Array.from({ length: 8 }, (_, i) => credit({ seconds: BigInt(i + 1) * 1000n }))
          let p = profile()
          const seen = new Set<number>()
          for (const [i] of steps) {
            p = applyCredit(p, credits[i]!, born).profile
            seen.add(i)
          }
          const expected = [...seen].reduce((s, i) => s + BigInt(i + 1) * 1000n, 0n)
          return p.life.runwayEndsAt === born + 30n * 86_400n + expected
        },
      ),
    )
  })

  it('refuses a malformed credit with the field and the rule', () => {
    expect(() => applyCredit(profile(), credit({ amount: 0n }), born)).toThrow('amount: must be positive')
    expect(() => applyCredit(profile(), credit({ id: 'nope' }), born)).toThrow('id: must be paymentCreditId(payer, nonce)')
    expect(() => applyCredit(profile(), credit({ seconds: -1n }), born)).toThrow('seconds: must not be negative')
  })
})

describe('profile compatibility', () => {
  it('parses a profile written before reprieve and credits existed', () => {
    const p = profile()
    const text = serializeGolemProfile(p)
    expect(text).not.toContain('reprieve')
    expect(parseGolemProfile(text).credits).toBeUndefined()
  })
})

describe('paymentCreditId and runwaySecondsFor', () => {
  it('is per (payer, nonce), case-insensitive', () => {
    const nonce = hex32('0a')
    expect(paymentCreditId(payer, nonce)).toBe(
      paymentCreditId(payer.toLowerCase() as never, nonce.toUpperCase().replace('0X', '0x') as never),
    )
    expect(paymentCreditId(payer, nonce)).not.toBe(paymentCreditId('0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65', nonce))
    expect(paymentCreditId(payer, nonce)).toMatch(/^0x[0-9a-f]{32}$/)
  })

  it('rounds down like core/x402', () => {
    expect(runwaySecondsFor(5_000_000n, 500_000n)).toBe(36_000n)
    expect(runwaySecondsFor(1n, 500_000n)).toBe(0n)
  })
})
