import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { planRedemption } from './redemption.ts'
import { Phase, phaseMultiplierBps } from './phase.ts'

const cap = 100_000_000n // 100 USDC

describe('planRedemption', () => {
  it('applies the phase multiplier to a fresh period', () => {
    expect(planRedemption({ phase: Phase.Thriving, periodAmount: cap, availableAmount: cap, revoked: false })).toEqual({
      action: 'redeem',
      amount: cap,
      multiplierBps: 10_000n,
    })
    expect(planRedemption({ phase: Phase.Stable, periodAmount: cap, availableAmount: cap, revoked: false })).toMatchObject({
      amount: 75_000_000n,
    })
    expect(planRedemption({ phase: Phase.Conservation, periodAmount: cap, availableAmount: cap, revoked: false })).toMatchObject({
      amount: 50_000_000n,
    })
    expect(planRedemption({ phase: Phase.Declining, periodAmount: cap, availableAmount: cap, revoked: false })).toMatchObject({
      amount: 10_000_000n,
    })
  })

  it('revokes instead of redeeming in Terminal and stops after an owner revocation', () => {
    expect(planRedemption({ phase: Phase.Terminal, periodAmount: cap, availableAmount: cap, revoked: false })).toEqual({
      action: 'revoke',
      reason: 'terminal',
    })
    expect(planRedemption({ phase: Phase.Thriving, periodAmount: cap, availableAmount: cap, revoked: true })).toEqual({
      action: 'skip',
      reason: 'revoked',
    })
  })

  it('never takes more than the multiplier allows in a period, across any number of ticks', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3 }),
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        fc.integer({ min: 1, max: 5 }),
        (p, periodAmount, ticks) => {
          let available = periodAmount
          let taken = 0n
          for (let i = 0; i < ticks; i++) {
            const plan = planRedemption({ phase: p as Phase, periodAmount, availableAmount: available, revoked: false })
            if (plan.action !== 'redeem') break
            expect(plan.amount).toBeLessThanOrEqual(available)
            available -= plan.amount
            taken += plan.amount
          }
          expect(taken).toBeLessThanOrEqual((periodAmount * phaseMultiplierBps[p as Phase]) / 10_000n)
        },
      ),
    )
  })

  it('leaves room for reservations of in-flight redemptions', () => {
    expect(planRedemption({ phase: Phase.Thriving, periodAmount: cap, availableAmount: cap, inFlightAmount: cap, revoked: false })).toEqual(
      { action: 'skip', reason: 'exhausted' },
    )
  })

  it('refuses negative inputs naming the field', () => {
    expect(() => planRedemption({ phase: Phase.Thriving, periodAmount: -1n, availableAmount: 0n, revoked: false })).toThrow(
      /periodAmount: must not be negative/,
    )
  })
})
