import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DEFAULT_ROTATION_POLICY, resolveRotationPolicy, shouldRotate, type RotationPolicy, type RotationState } from './rotation.ts'

const DAY = 86_400
const T0 = 1_750_000_000
const fresh = (over: Partial<RotationState> = {}): RotationState => ({
  grantedAt: T0,
  operationsSigned: 0,
  initialBudget: 1_000_000_000n,
  remainingBudget: 1_000_000_000n,
  ...over,
})

describe('RotationPolicy defaults', () => {
  it('is 10,000 operations, 7 days, 10% budget floor', () => {
    expect(DEFAULT_ROTATION_POLICY).toEqual({ maxOperations: 10_000, maxAgeSeconds: 7 * DAY, budgetFloorFraction: 0.1 })
  })

  it('rotates at each boundary and not one step before', () => {
    const p = DEFAULT_ROTATION_POLICY
    expect(shouldRotate(fresh({ operationsSigned: 9_999 }), p, T0).rotate).toBe(false)
    expect(shouldRotate(fresh({ operationsSigned: 10_000 }), p, T0)).toMatchObject({ rotate: true, reasons: ['max-operations'] })
    expect(shouldRotate(fresh(), p, T0 + 7 * DAY - 1).rotate).toBe(false)
    expect(shouldRotate(fresh(), p, T0 + 7 * DAY)).toMatchObject({ rotate: true, reasons: ['max-age'] })
    expect(shouldRotate(fresh({ remainingBudget: 100_000_001n }), p, T0).rotate).toBe(false)
    expect(shouldRotate(fresh({ remainingBudget: 100_000_000n }), p, T0)).toMatchObject({ rotate: true, reasons: ['budget-floor'] })
    expect(shouldRotate(fresh({ remainingBudget: 0n }), p, T0)).toMatchObject({ rotate: true, reasons: ['budget-floor'] })
  })

  it('gives every reason that holds, with a readable sentence', () => {
    const d = shouldRotate(fresh({ operationsSigned: 10_000, remainingBudget: 0n }), DEFAULT_ROTATION_POLICY, T0 + 8 * DAY)
    expect(d).toMatchObject({ rotate: true, reasons: ['max-operations', 'max-age', 'budget-floor'] })
    expect(d.rotate && d.reason).toMatch(/10000 operations signed.*old.*remaining budget 0 of 1000000000/)
  })

  it('validates a policy, naming the field', () => {
    expect(() => resolveRotationPolicy({ maxOperations: 0 })).toThrow(/rotationPolicy.maxOperations/)
    expect(() => resolveRotationPolicy({ maxAgeSeconds: 1.5 })).toThrow(/rotationPolicy.maxAgeSeconds/)
    expect(() => resolveRotationPolicy({ budgetFloorFraction: 1 })).toThrow(/rotationPolicy.budgetFloorFraction/)
    expect(() => resolveRotationPolicy({ budgetFloorFraction: Number.NaN })).toThrow(/budgetFloorFraction/)
  })
})

const policyArb: fc.Arbitrary<RotationPolicy> = fc.record({
  maxOperations: fc.integer({ min: 1, max: 100_000 }),
  maxAgeSeconds: fc.integer({ min: 1, max: 60 * DAY }),
  // Whole percent floors keep the expected outcome exactly computable below.
  budgetFloorFraction: fc.integer({ min: 0, max: 99 }).map((p) => p / 100),
})
const stateArb: fc.Arbitrary<RotationState> = fc
  .record({
    grantedAt: fc.integer({ min: 0, max: 2_000_000_000 }),
    operationsSigned: fc.integer({ min: 0, max: 200_000 }),
    initialBudget: fc.bigInt({ min: 0n, max: 10n ** 24n }),
    spentPermille: fc.integer({ min: 0, max: 1000 }),
  })
  .map(({ spentPermille, ...s }) => ({ ...s, remainingBudget: s.initialBudget - (s.initialBudget * BigInt(spentPermille)) / 1000n }))
const nowArb = fc.integer({ min: 0, max: 2_100_000_000 })

describe('shouldRotate (properties)', () => {
  it('rotates exactly when a spec condition holds, and reports exactly those conditions', () => {
    fc.assert(
      fc.property(stateArb, policyArb, nowArb, (s, p, now) => {
        const d = shouldRotate(s, p, now)
        const floorPct = BigInt(Math.round(p.budgetFloorFraction * 100))
        const expected = [
          ...(s.operationsSigned >= p.maxOperations ? ['max-operations'] : []),
          ...(Math.max(0, now - s.grantedAt) >= p.maxAgeSeconds ? ['max-age'] : []),
          ...(s.initialBudget > 0n && s.remainingBudget * 100n <= s.initialBudget * floorPct ? ['budget-floor'] : []),
        ]
        expect(d.reasons).toEqual(expected)
        expect(d.rotate).toBe(expected.length > 0)
      }),
      { numRuns: 2000 },
    )
  })

  it('once due, stays due as time passes, operations grow and budget shrinks (monotone)', () => {
    fc.assert(
      fc.property(
        stateArb,
        policyArb,
        nowArb,
        fc.nat(10 * DAY),
        fc.nat(1000),
        fc.bigInt({ min: 0n, max: 10n ** 24n }),
        (s, p, now, dt, dops, dspend) => {
          fc.pre(shouldRotate(s, p, now).rotate)
          const later = {
            ...s,
            operationsSigned: s.operationsSigned + dops,
            remainingBudget: s.remainingBudget > dspend ? s.remainingBudget - dspend : 0n,
          }
          expect(shouldRotate(later, p, now + dt).rotate).toBe(true)
        },
      ),
      { numRuns: 1000 },
    )
  })

  it('a fresh key with an untouched budget is never due, and a clock behind grantedAt counts as age 0', () => {
    fc.assert(
      fc.property(
        policyArb,
        fc.integer({ min: 0, max: 2_000_000_000 }),
        fc.bigInt({ min: 0n, max: 10n ** 24n }),
        fc.nat(1_000_000),
        (p, t, budget, skew) => {
          const s = { grantedAt: t, operationsSigned: 0, initialBudget: budget, remainingBudget: budget }
          expect(shouldRotate(s, p, t).rotate).toBe(false)
          expect(shouldRotate(s, p, t - skew).rotate).toBe(false)
        },
      ),
    )
  })

  it('with no budget (initialBudget 0) the floor never triggers', () => {
    fc.assert(
      fc.property(policyArb, (p) => {
        expect(shouldRotate({ grantedAt: T0, operationsSigned: 0, initialBudget: 0n, remainingBudget: 0n }, p, T0).reasons).not.toContain(
          'budget-floor',
        )
      }),
    )
  })
})
