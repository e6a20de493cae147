// When a tick reads this period's runway slots before it plans: only when the last tick may have left one
// open, or spent one.
import { describe, expect, it } from 'vitest'
import { runwayAttemptMayBeSpent, runwaySlotMayBeOpen } from './reconcile.ts'

const last = (outcome: string) => ({ at: 1_000, period: 3n, outcome, txHash: null })

describe('runwaySlotMayBeOpen', () => {
  it('reads the slot after a tick that never finished, one still pending, one that met the slot busy, or any outcome it does not know', () => {
    for (const outcome of ['running', 'pending', 'busy', 'halted', 'death-pending', 'something new'])
      expect(runwaySlotMayBeOpen(last(outcome)), outcome).toBe(true)
  })

  it('reads it for a Golem never ticked', () => {
    expect(runwaySlotMayBeOpen(null)).toBe(true)
  })

  it('skips it after a tick that settled its slot or sent none', () => {
    for (const outcome of ['confirmed', 'failed', 'refused', 'reconciled', 'skipped', 'revoke', 'ticked', 'attempts-spent'])
      expect(runwaySlotMayBeOpen(last(outcome)), outcome).toBe(false)
  })
})

describe('runwayAttemptMayBeSpent', () => {
  it('reads the attempts after a tick of this period whose redemption reverted, was never mined, or was refused', () => {
    for (const outcome of ['failed', 'reconciled', 'refused']) expect(runwayAttemptMayBeSpent(last(outcome), 3n), outcome).toBe(true)
  })

  it('skips them after a tick of an earlier period, one that redeemed or sent none, and for a Golem never ticked', () => {
    for (const outcome of ['failed', 'reconciled', 'refused']) expect(runwayAttemptMayBeSpent(last(outcome), 4n), outcome).toBe(false)
    for (const outcome of ['confirmed', 'skipped', 'revoke', 'ticked'])
      expect(runwayAttemptMayBeSpent(last(outcome), 3n), outcome).toBe(false)
    expect(runwayAttemptMayBeSpent(null, 3n)).toBe(false)
  })
})
