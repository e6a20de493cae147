// When a tick reads this period's runway slot before it plans: only when the last tick may have left it open.
import { describe, expect, it } from 'vitest'
import { runwaySlotMayBeOpen } from './reconcile.ts'

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
    for (const outcome of ['confirmed', 'failed', 'refused', 'reconciled', 'skipped', 'revoke', 'ticked'])
      expect(runwaySlotMayBeOpen(last(outcome)), outcome).toBe(false)
  })
})
