import { describe, expect, it } from 'vitest'
import { revocationState, totalRemaining, type PermissionFacts } from './permissionHealth.ts'

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

describe('permission facts', () => {
  it('an active grant pays out this period and every later one before it ends', () => {
    expect(revocationState(facts())).toEqual({ kind: 'Active' })
    expect(totalRemaining(facts())).toBe(100_000_000n * 21n)
  })

  it('reads an ended grant as Expired with nothing left, and one out of calls as Exhausted', () => {
    expect(revocationState(facts({ now: 1_021n * DAY }))).toEqual({ kind: 'Expired', expiredAt: 1_020n * DAY })
    expect(totalRemaining(facts({ now: 1_021n * DAY }))).toBe(0n)
    expect(revocationState(facts({ callsUsed: 10n, callsLimit: 10n }))).toEqual({ kind: 'Exhausted', totalCalls: 10n })
  })

  it('reads an owner disable as RevokedByOwner', () => {
    expect(revocationState(facts({ disabled: true, disabledAt: 5n, disabledTxHash: '0xabc' }))).toEqual({
      kind: 'RevokedByOwner',
      revokedAt: 5n,
      txHash: '0xabc',
    })
    // Without the transaction of the disable, it carries no time: never the time of the read, which would
    // move with every read. A disable outranks an ended grant.
    expect(revocationState(facts({ disabled: true }))).toEqual({ kind: 'RevokedByOwner' })
    expect(revocationState(facts({ disabled: true, now: 1_021n * DAY })).kind).toBe('RevokedByOwner')
  })

  it('stays Active while calls remain', () => {
    expect(revocationState(facts({ callsUsed: 9n, callsLimit: 10n }))).toEqual({ kind: 'Active' })
  })

  it('counts later periods up to expiry', () => {
    expect(totalRemaining(facts({ availableInPeriod: 1n, expiresAt: 1_001n * DAY - 1n }))).toBe(1n)
    expect(totalRemaining(facts({ availableInPeriod: 1n, expiresAt: 1_001n * DAY }))).toBe(1n + 100_000_000n)
  })
})
