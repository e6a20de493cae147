import { describe, expect, it } from 'vitest'
import { SLOT_STATUSES } from './records.ts'
import { isSpent } from './rules.ts'

describe('isSpent', () => {
  it('is a slot that settled without landing: reconciled or failed', () => {
    expect(SLOT_STATUSES.filter((s) => isSpent(s))).toEqual(['failed', 'reconciled'])
  })

  it('is not an absent slot, nor a send still open', () => {
    expect(isSpent(undefined)).toBe(false)
    expect(isSpent('busy')).toBe(false)
    expect(isSpent('pending')).toBe(false)
  })
})
