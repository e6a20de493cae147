import { describe, expect, it } from 'vitest'
import { adjustmentStart, installAdjustment, supersededBy, supersededGrants } from './adjustment.ts'
import { adjustmentInForce, type PendingAdjustment } from './adjustmentInForce.ts'
import { installRenewal } from './renewalCheck.ts'
import { mergeTickOutcome } from './tickPlan.ts'
import { born, DAY_S, golemKey, hex32, testProfile } from '../../test/support/lifecycle/profile.ts'

const grant = (n: number, periodStart: bigint, expiresAt: bigint, periodAmount = 5n) => ({
  chain: [
    { delegate: golemKey, delegator: golemKey, authority: hex32('ff'), caveats: [], salt: `0x0${n}` as const, signature: '0x01' as const },
  ],
  periodAmount,
  periodDelegationHash: hex32(`0${n}`),
  periodTerms: '0x' as const,
  chainHashes: [hex32(`0${n}`)],
  periodStart,
  expiresAt,
})

describe("the owner's adjustment", () => {
  const profile = testProfile()
  const end = profile.runway.expiresAt
  const pending = (p = profile): PendingAdjustment => ({
    ...grant(2, adjustmentStart(p, born + DAY_S / 2n), end - DAY_S),
    supersedes: supersededBy(p),
  })

  it('starts at the next boundary of the runway grid and supersedes the runway, its renewals and a waiting adjustment', () => {
    expect(adjustmentStart(profile, born + DAY_S / 2n)).toBe(profile.runway.periodStart + DAY_S)
    expect(adjustmentStart(profile, profile.runway.periodStart + DAY_S)).toBe(profile.runway.periodStart + 2n * DAY_S)
    const renewed = installRenewal(profile, grant(1, end + DAY_S, end + 10n * DAY_S))
    expect(supersededBy(renewed)).toEqual([...profile.runway.chainHashes, hex32('01')])
    const waiting = installAdjustment(renewed, pending(renewed))
    expect(supersededBy(waiting)).toEqual([...profile.runway.chainHashes, hex32('01'), hex32('02')])
    expect(supersededGrants(waiting).map((g) => g.label)).toEqual(['runway', 'runway renewal', 'runway adjustment'])
  })

  it('waits while the runway is enabled, and takes its place once the runway reads disabled', () => {
    const waiting = installAdjustment(installRenewal(profile, grant(1, end + DAY_S, end + 10n * DAY_S)), pending())
    expect(adjustmentInForce(waiting, { disabled: false })).toBe(waiting)
    const adjusted = adjustmentInForce(waiting, { disabled: true })
    expect(adjusted.adjustment).toBeUndefined()
    expect(adjusted.renewals).toEqual([])
    expect(adjusted.runway).toMatchObject({ periodAmount: 5n, periodDelegationHash: hex32('02'), expiresAt: end - DAY_S })
    expect(adjusted.runway.token).toBe(profile.runway.token)
    expect(adjusted.known.expiringWarned).toBe(false)
  })

  it('is a revocation when nothing waits, or when what waits does not supersede the runway in force', () => {
    expect(adjustmentInForce(profile, { disabled: true })).toBe(profile)
    const stale = installAdjustment(profile, { ...pending(), supersedes: [hex32('aa')] })
    expect(adjustmentInForce(stale, { disabled: true })).toBe(stale)
  })

  it("is written back in force by the tick's last write, whatever the record holds when it lands", () => {
    const waiting = installAdjustment(profile, pending())
    const outcome = { events: [], period: 1n, phaseEpoch: 0, adjusted: hex32('02') }
    expect(mergeTickOutcome(waiting, outcome).runway.periodDelegationHash).toBe(hex32('02'))
    // Another adjustment stored meanwhile is not the one this tick saw take over: it keeps waiting.
    const newer = installAdjustment(profile, { ...pending(), periodDelegationHash: hex32('03') })
    expect(mergeTickOutcome(newer, outcome)).toMatchObject({ adjustment: { periodDelegationHash: hex32('03') } })
  })
})
