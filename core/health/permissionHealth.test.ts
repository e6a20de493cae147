import { describe, expect, it } from 'vitest'
import { classifyPermissionHealth, totalRemaining, type PermissionFacts } from './permissionHealth.ts'

const DAY = 86_400n
const facts = (over: Partial<PermissionFacts> = {}): PermissionFacts => ({
  now: 1_000n * DAY,
  disabled: false,
  expiresAt: 1_020n * DAY,
  periodAmount: 100_000_000n,
  periodDuration: DAY,
  availableInPeriod: 100_000_000n,
  currentPeriodStart: 1_000n * DAY,
  ...over,
})

describe('permission health', () => {
  it('is healthy with more than half the cap and more than 7 days', () => {
    const r = classifyPermissionHealth(facts())
    expect(r.health).toBe('healthy')
    expect(r.revocation).toEqual({ kind: 'Active' })
    expect(r.days_remaining).toBe(20)
    expect(r.remaining_today).toBe('100000000')
    expect(r.total_remaining).toBe((100_000_000n * 21n).toString())
  })

  it('is low under half the cap or under 3 days, and in the 3-7 day gap', () => {
    expect(classifyPermissionHealth(facts({ availableInPeriod: 40_000_000n })).health).toBe('low')
    expect(classifyPermissionHealth(facts({ expiresAt: 1_002n * DAY })).health).toBe('low')
    expect(classifyPermissionHealth(facts({ expiresAt: 1_005n * DAY })).health).toBe('low')
    expect(classifyPermissionHealth(facts({ availableInPeriod: 50_000_000n })).health).toBe('low')
  })

  it('is critical under 10% of the cap, under a day, expired or exhausted', () => {
    expect(classifyPermissionHealth(facts({ availableInPeriod: 9_999_999n })).health).toBe('critical')
    expect(classifyPermissionHealth(facts({ expiresAt: 1_000n * DAY + 3_600n })).health).toBe('critical')
    const expired = classifyPermissionHealth(facts({ now: 1_021n * DAY }))
    expect(expired.health).toBe('critical')
    expect(expired.revocation).toEqual({ kind: 'Expired', expiredAt: 1_020n * DAY })
    expect(expired.total_remaining).toBe('0')
    const exhausted = classifyPermissionHealth(facts({ callsUsed: 10n, callsLimit: 10n }))
    expect(exhausted.revocation).toEqual({ kind: 'Exhausted', totalCalls: 10n })
    expect(exhausted.health).toBe('critical')
  })

  it('is revoked once the owner disabled the delegation', () => {
    const r = classifyPermissionHealth(facts({ disabled: true, disabledAt: 5n, disabledTxHash: '0xabc' }))
    expect(r.health).toBe('revoked')
    expect(r.revocation).toEqual({ kind: 'RevokedByOwner', revokedAt: 5n, txHash: '0xabc' })
    expect(r.remaining_today).toBe('0')
  })

  it('counts later periods up to expiry', () => {
    expect(totalRemaining(facts({ availableInPeriod: 1n, expiresAt: 1_001n * DAY - 1n }))).toBe(1n)
    expect(totalRemaining(facts({ availableInPeriod: 1n, expiresAt: 1_001n * DAY }))).toBe(1n + 100_000_000n)
  })

  it('refuses impossible facts naming the field', () => {
    expect(() => classifyPermissionHealth(facts({ periodAmount: 0n }))).toThrow(/periodAmount: must be greater than 0/)
    expect(() => classifyPermissionHealth(facts({ availableInPeriod: -1n }))).toThrow(/availableInPeriod/)
  })
})
