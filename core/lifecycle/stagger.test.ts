import { describe, expect, it } from 'vitest'
import { Phase } from './phase.ts'
import { runwayDue, staggerOffset, staggerWindow } from './stagger.ts'
import { decideTick, type GolemObservation } from './tick.ts'
import { planTick } from './tickPlan.ts'
import { testObservation } from '../../test/support/lifecycle/observation.ts'
import { born, DAY_S, testProfile, testRead } from '../../test/support/lifecycle/profile.ts'

const DAY = 86_400n
const HOUR = 3_600n
const ids = (n: number, prefix = 'golem') => Array.from({ length: n }, (_, i) => `${prefix}-${i}`)
/** An id whose offset into a daily period is at least `min` seconds: a Golem the stagger visibly delays. */
const idWithOffsetAtLeast = (min: bigint) => ids(1_000, 'late').find((id) => staggerOffset(id, DAY) >= min)!

describe('staggerWindow', () => {
  it('is a 24th of the period, at most an hour, and nothing for a period too short to spread', () => {
    expect(staggerWindow(DAY)).toBe(HOUR)
    expect(staggerWindow(7n * DAY)).toBe(HOUR)
    expect(staggerWindow(HOUR)).toBe(150n)
    expect(staggerWindow(48n)).toBe(2n)
    expect(staggerWindow(23n)).toBe(0n)
    expect(staggerWindow(0n)).toBe(0n)
  })
})

describe('staggerOffset', () => {
  it('is deterministic: the same id gives the same offset on every call', () => {
    for (const id of ids(50)) expect(staggerOffset(id, DAY)).toBe(staggerOffset(id, DAY))
    expect(staggerOffset('golem-0', DAY)).not.toBe(staggerOffset('golem-1', DAY))
  })

  it('falls within the window, for daily, hourly and too-short periods', () => {
    for (const id of ids(2_000)) {
      const daily = staggerOffset(id, DAY)
      expect(daily >= 0n && daily < HOUR).toBe(true)
      const hourly = staggerOffset(id, HOUR)
      expect(hourly >= 0n && hourly < 150n).toBe(true)
      expect(staggerOffset(id, 10n)).toBe(0n)
    }
  })

  it('spreads 10,000 ids over every minute of an hour, each minute within 40 % of the mean', () => {
    const perMinute = new Array<number>(60).fill(0)
    for (const id of ids(10_000)) perMinute[Number(staggerOffset(id, DAY) / 60n)]! += 1
    const mean = 10_000 / 60
    expect(Math.min(...perMinute)).toBeGreaterThan(mean * 0.6)
    expect(Math.max(...perMinute)).toBeLessThan(mean * 1.4)
  })
})

describe('runwayDue', () => {
  const id = idWithOffsetAtLeast(600n)
  const offset = staggerOffset(id, DAY)
  const base = { golemId: id, bornAt: born, grantStart: born, periodDuration: DAY, expiresAt: born + 30n * DAY }

  it('never delays the period the Golem was born in', () => {
    expect(runwayDue({ ...base, currentPeriodStart: born })).toEqual({ redeemAt: born, immediate: 'first-period' })
    // Born after its grant started (the wallet built the grant a little earlier): still its first period.
    expect(runwayDue({ ...base, bornAt: born + 90n, currentPeriodStart: born }).immediate).toBe('first-period')
  })

  it("never delays the grant's first period when the grant starts less than a period after the birth", () => {
    const grantStart = born + 2n * HOUR
    expect(runwayDue({ ...base, grantStart, currentPeriodStart: grantStart })).toEqual({ redeemAt: grantStart, immediate: 'first-period' })
    expect(runwayDue({ ...base, grantStart, currentPeriodStart: grantStart + DAY })).toEqual({ redeemAt: grantStart + DAY + offset })
  })

  it("staggers every later period, a rotated key's or a renewed grant's first period included", () => {
    expect(runwayDue({ ...base, currentPeriodStart: born + DAY })).toEqual({ redeemAt: born + DAY + offset })
    expect(runwayDue({ ...base, currentPeriodStart: born + 9n * DAY })).toEqual({ redeemAt: born + 9n * DAY + offset })
    const rotated = born + 8n * DAY
    expect(runwayDue({ ...base, grantStart: rotated, currentPeriodStart: rotated })).toEqual({ redeemAt: rotated + offset })
  })

  it('does not delay a last period the grant ends within the window, nor a period too short to spread', () => {
    const last = born + 29n * DAY
    expect(runwayDue({ ...base, expiresAt: last + HOUR - 1n, currentPeriodStart: last })).toEqual({
      redeemAt: last,
      immediate: 'last-period',
    })
    expect(runwayDue({ ...base, expiresAt: last + HOUR, currentPeriodStart: last })).toEqual({ redeemAt: last + offset })
    expect(runwayDue({ ...base, periodDuration: 20n, currentPeriodStart: born + 40n })).toEqual({
      redeemAt: born + 40n,
      immediate: 'no-window',
    })
  })
})

/** Golem `id`, born at 0 with a 30-day daily grant, `into` seconds into the period starting at `periodStart`. */
const observe = (
  id: string,
  periodStart: bigint,
  into: bigint,
  permission: Partial<GolemObservation['permission']> = {},
  over: Partial<GolemObservation> = {},
) => {
  const now = periodStart + into
  return testObservation({ golemId: id, now, ...over }, { currentPeriodStart: periodStart, ...permission })
}

describe("the tick's redemption, staggered", () => {
  const id = idWithOffsetAtLeast(600n)
  const offset = staggerOffset(id, DAY)
  const obs = (
    periodStart: bigint,
    into: bigint,
    permission: Partial<GolemObservation['permission']> = {},
    over: Partial<GolemObservation> = {},
  ) => observe(id, periodStart, into, permission, over)

  it('redeems at once in the first period, whatever the offset', () => {
    expect(decideTick(obs(0n, 0n)).redemption).toEqual({ action: 'redeem', amount: 100n, multiplierBps: 10_000n })
  })

  it('skips a later period before the offset, naming the time it will redeem, and changes nothing else', () => {
    const before = decideTick(obs(DAY, offset - 1n))
    expect(before.redemption).toEqual({ action: 'skip', reason: 'staggered', redeemAt: DAY + offset })
    // The rest of the decision is the one it would make after the offset: same phase, period, events, no death.
    const after = decideTick(obs(DAY, offset))
    expect(before.period).toBe(after.period)
    expect(before.phase).toEqual(after.phase)
    expect(before.die).toBe(false)
    // Nothing redeemed yet: the health shows the whole period still there.
    expect(before.health.remaining_today).toBe('100')
  })

  it('redeems at the offset and after it, the same amount in the same period', () => {
    for (const into of [offset, offset + 1n, offset + 59n, 5n * HOUR]) {
      const d = decideTick(obs(DAY, into))
      expect(d.redemption, `${into}s into the period`).toEqual({ action: 'redeem', amount: 100n, multiplierBps: 10_000n })
      expect(d.period).toBe(1n)
    }
  })

  it('a period already partly redeemed waits for the offset too, then tops up only what the phase allows', () => {
    expect(decideTick(obs(DAY, 0n, { availableInPeriod: 40n })).redemption).toEqual({
      action: 'skip',
      reason: 'staggered',
      redeemAt: DAY + offset,
    })
    expect(decideTick(obs(DAY, offset, { availableInPeriod: 40n })).redemption).toEqual({
      action: 'redeem',
      amount: 40n,
      multiplierBps: 10_000n,
    })
  })

  it('says "staggered" only when there is something to redeem: other skips keep their own reason', () => {
    expect(decideTick(obs(DAY, 0n, { availableInPeriod: 0n })).redemption).toEqual({ action: 'skip', reason: 'exhausted' })
    expect(decideTick(obs(DAY, 0n, {}, { inFlightAmount: 100n })).redemption).toEqual({ action: 'skip', reason: 'exhausted' })
    expect(decideTick(obs(DAY, 0n, {}, { dreaming: true })).redemption).toEqual({ action: 'skip', reason: 'nothing-to-redeem' })
    expect(decideTick(obs(DAY, 0n, { disabled: true })).redemption).toEqual({ action: 'skip', reason: 'revoked' })
    // Conservation takes half the period: with half already taken there is nothing to wait for.
    const conserving = obs(DAY, 0n, { availableInPeriod: 50n }, { onChainPhase: Phase.Conservation })
    expect(decideTick(conserving).redemption).toEqual({ action: 'skip', reason: 'nothing-to-redeem' })
  })

  it('never delays Terminal: the death protocol starts at once', () => {
    const d = decideTick(obs(DAY, 0n, {}, { onChainPhase: Phase.Declining, runwayEndsAt: DAY }))
    expect(d.redemption).toEqual({ action: 'revoke', reason: 'terminal' })
    expect(d.die).toBe(true)
  })

  it('reaches the tick plan as a skipped runway step carrying redeemAt, and the slot stays keyed by the period', () => {
    const golemId = idWithOffsetAtLeast(600n)
    const o = staggerOffset(golemId, DAY_S)
    const at = (t: bigint) =>
      planTick({ golemId, profile: testProfile(), read: testRead({ timestamp: t }), pending: { events: [], inFlightAmount: 0n } })
    const start = born + DAY_S
    expect(at(start + 60n).runway).toEqual({ kind: 'none', status: 'skipped', reason: 'staggered', redeemAt: start + o })
    expect(at(start + o).runway).toMatchObject({ kind: 'redeem', slot: { period: start / DAY_S, step: 'runway' }, amount: 10n })
  })
})

describe('a fleet sharing one period start', () => {
  /**
   * 1,000 Golems onboarded in the same second tick once a minute on a virtual clock; each tick decides from
   * the Golem's own period state, which its redemption empties. Counts redemptions per minute of a period.
   */
  function redemptionsPerMinute(periodStart: bigint, minutes: number): { perMinute: number[]; redeemed: Set<string> } {
    const fleet = ids(1_000)
    const available = new Map(fleet.map((id) => [id, 100n]))
    const perMinute = new Array<number>(minutes).fill(0)
    const redeemed = new Set<string>()
    for (let minute = 0; minute < minutes; minute++) {
      for (const golemId of fleet) {
        const d = decideTick(observe(golemId, periodStart, BigInt(minute) * 60n, { availableInPeriod: available.get(golemId)! }))
        if (d.redemption.action !== 'redeem') continue
        expect(redeemed.has(golemId), `${golemId} redeemed twice`).toBe(false)
        redeemed.add(golemId)
        available.set(golemId, available.get(golemId)! - d.redemption.amount)
        perMinute[minute]! += 1
      }
    }
    return { perMinute, redeemed }
  }

  it('redeems all at once in the first period: a new Golem gets its runway at once', () => {
    const { perMinute } = redemptionsPerMinute(0n, 2)
    expect(perMinute).toEqual([1_000, 0])
  })

  it('redeems spread over the hour in a later period: about 1,000/60 a minute, not 1,000', () => {
    const { perMinute, redeemed } = redemptionsPerMinute(5n * DAY, 63)
    expect(redeemed.size).toBe(1_000)
    // A Golem redeems at the first tick at or after its offset: by the tick an hour into the period, none later.
    expect(perMinute.slice(61).every((n) => n === 0)).toBe(true)
    expect(perMinute.slice(1, 61).every((n) => n > 0)).toBe(true)
    // 16.7 a minute on average; the busiest minute stays within twice that.
    expect(Math.max(...perMinute)).toBeLessThanOrEqual(Math.ceil((2 * 1_000) / 60))
  })
})
