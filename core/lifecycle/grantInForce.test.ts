import { describe, expect, it } from 'vitest'
import { grantEndOf, grantInForce, latestGrant, withRenewalsFolded } from './grantInForce.ts'
import { profileAfterRotation } from './rotationPlan.ts'
import { renewalStart } from './renewal.ts'
import { installRenewal } from './renewalCheck.ts'
import { born, DAY_S, golemKey, hex32, testProfile } from '../../test/support/lifecycle/profile.ts'

const renewal = (n: number, periodStart: bigint, expiresAt: bigint) => ({
  chain: [
    { delegate: golemKey, delegator: golemKey, authority: hex32('ff'), caveats: [], salt: `0x0${n}` as const, signature: '0x01' as const },
  ],
  periodAmount: 10n,
  periodDelegationHash: hex32(`0${n}`),
  periodTerms: '0x' as const,
  chainHashes: [hex32(`0${n}`)],
  periodStart,
  expiresAt,
})

describe("the owner's runway grants in force", () => {
  // A 30-day grant from `born`, periods of a day.
  const end = born + 30n * DAY_S

  it('starts a renewal on the grid after the period the newest grant ends in, never one already under way', () => {
    const profile = testProfile()
    // The grant's end is inclusive: the period that starts at its end is still its own to pay.
    expect(renewalStart(profile, born + DAY_S)).toBe(end + DAY_S)
    const midPeriod = { ...profile, runway: { ...profile.runway, expiresAt: end - DAY_S / 2n } }
    expect(renewalStart(midPeriod, born + DAY_S)).toBe(end)
    // After a queued renewal, the next one follows it.
    const queued = installRenewal(profile, renewal(1, end + DAY_S, end + 10n * DAY_S))
    expect(renewalStart(queued, born + DAY_S)).toBe(end + 11n * DAY_S)
    expect(latestGrant(queued).expiresAt).toBe(end + 10n * DAY_S)
    expect(grantEndOf(queued)).toBe(end + 10n * DAY_S)
    // A Golem whose grant already ended is never renewed into a period already under way.
    expect(renewalStart(profile, end + 3n * DAY_S + 5n)).toBe(end + 4n * DAY_S)
  })

  it('keeps the runway in force to its end, then puts the queued renewals in force in order', () => {
    const first = renewal(1, end + DAY_S, end + 10n * DAY_S)
    const second = renewal(2, end + 11n * DAY_S, end + 20n * DAY_S)
    const profile = installRenewal(installRenewal(testProfile(), first), second)
    expect(profile.renewals).toHaveLength(2)
    // Queued: the runway is untouched.
    expect(profile.runway.periodDelegationHash).toBe(hex32('ab'))
    expect(grantInForce(profile, end)).toBe(profile)
    const next = grantInForce(profile, end + 1n)
    expect(next.runway).toMatchObject({ periodDelegationHash: hex32('01'), periodStart: end + DAY_S, expiresAt: end + 10n * DAY_S })
    expect(next.runway.token).toBe(profile.runway.token)
    expect(next.renewals).toEqual([second])
    // Past both ends at once (a Golem not ticked for a while): the last one.
    expect(grantInForce(profile, end + 15n * DAY_S).runway.periodDelegationHash).toBe(hex32('02'))
    expect(grantInForce(profile, end + 15n * DAY_S).renewals).toEqual([])
  })

  it('a renewal resets the expiry warning (the end moved) and keeps a revocation reported', () => {
    const warned = { ...testProfile(), known: { revokedReported: true, expiringWarned: true, budgetWarnedPeriod: 3n } }
    expect(installRenewal(warned, renewal(1, end + DAY_S, end + 10n * DAY_S)).known).toEqual({
      revokedReported: true,
      expiringWarned: false,
      budgetWarnedPeriod: 3n,
    })
  })

  it("a key rotation folds the queued renewals into the new key's one grant, never wider than any of them", () => {
    const narrower = { ...renewal(1, end + DAY_S, end + 10n * DAY_S), periodAmount: 7n }
    const profile = installRenewal(testProfile(), narrower)
    const folded = withRenewalsFolded(profile)
    expect(folded.renewals).toEqual([])
    expect(folded.runway).toMatchObject({ expiresAt: end + 10n * DAY_S, periodAmount: 7n, periodDelegationHash: hex32('ab') })
    expect(withRenewalsFolded(testProfile())).toEqual(testProfile())
    const rotated = profileAfterRotation(profile, {
      to: golemKey,
      signer: { kind: 'memory', ref: 'k2' },
      reason: 'age',
      runway: {
        chain: narrower.chain,
        periodDelegationHash: hex32('03'),
        periodTerms: '0x',
        chainHashes: [hex32('03')],
        periodStart: born + DAY_S,
      },
    })
    expect(rotated.renewals).toEqual([])
    expect(rotated.runway).toMatchObject({ expiresAt: end + 10n * DAY_S, periodAmount: 7n, periodDelegationHash: hex32('03') })
  })
})
