import { describe, expect, it } from 'vitest'
import { Phase } from './phase.ts'
import { staggerOffset } from './stagger.ts'
import { tickNeed, type TickNeedInput } from './tickNeed.ts'
import { tickPeriod } from './tickPlan.ts'
import { born, DAY_S, testProfile, testRead } from '../../test/support/lifecycle/profile.ts'

const noShocks = { shockProbabilityPerDay: 0 }
const offset = staggerOffset('g', DAY_S)
/** A minute past the Golem's offset into its second period, its runway already redeemed this period. */
const idleRead = testRead({ timestamp: born + DAY_S + offset + 60n, availableInPeriod: 0n })
const profile = testProfile()
const thisPeriod = tickPeriod(profile, idleRead)

function need(o: Partial<TickNeedInput> = {}) {
  return tickNeed({
    golemId: 'g',
    record: { status: 'alive', lastTick: { period: thisPeriod, outcome: 'confirmed' } },
    profile,
    read: idleRead,
    parameters: { beatSeconds: 60n, vitalityParameters: noShocks },
    ...o,
  })
}

describe('tickNeed: whether the walk hands a Golem over', () => {
  it('leaves an idle Golem alone: runway redeemed this period, no phase to post, nothing in flight', () => {
    expect(need()).toBeNull()
    // Every outcome that leaves nothing open is idle the next minute.
    for (const outcome of ['ticked', 'confirmed', 'skipped', 'revoke', 'failed', 'refused', 'reconciled', 'attempts-spent'])
      expect(need({ record: { status: 'alive', lastTick: { period: thisPeriod, outcome } } })).toBeNull()
  })

  it("leaves a Golem alone once this period's redemption is recorded, though its key spent below its target", () => {
    // A just-in-time runway: the key holds 2 of its target of 10 (it spent from it), and the period
    // still allows 4 more. Its one slot of the period is spent: no redemption until the next period.
    const spent = testRead({ timestamp: born + DAY_S + offset + 60n, availableInPeriod: 4n, runwayHeld: 2n })
    const redeemedProfile = { ...profile, known: { ...profile.known, runwayRedeemedPeriod: thisPeriod } }
    expect(need({ read: spent })).toBe('redemption')
    expect(need({ read: spent, profile: redeemedProfile })).toBeNull()
    const nextPeriod = testRead({ timestamp: born + 3n * DAY_S - 60n, currentPeriod: 3n, availableInPeriod: 10n, runwayHeld: 2n })
    expect(need({ read: nextPeriod, profile: redeemedProfile })).toBe('redemption')
  })

  it("leaves a Golem alone once this period's runway attempts are all spent, and hands it over the next period", () => {
    const due = testRead({ timestamp: born + DAY_S + offset + 60n, availableInPeriod: 10n, runwayHeld: 0n })
    const period = tickPeriod(profile, due)
    expect(need({ read: due, record: { status: 'alive', lastTick: { period, outcome: 'failed' } } })).toBe('redemption')
    expect(need({ read: due, record: { status: 'alive', lastTick: { period, outcome: 'attempts-spent' } } })).toBeNull()
    const nextPeriod = testRead({ timestamp: born + 3n * DAY_S - 60n, currentPeriod: 3n, availableInPeriod: 10n, runwayHeld: 0n })
    expect(need({ read: nextPeriod, record: { status: 'alive', lastTick: { period, outcome: 'attempts-spent' } } })).toBe('redemption')
  })

  it('leaves a Golem waiting for its stagger offset alone, and hands it over at the offset', () => {
    const before = testRead({ timestamp: born + DAY_S + offset - 1n })
    const at = testRead({ timestamp: born + DAY_S + offset })
    const record = { status: 'alive' as const, lastTick: { period: tickPeriod(profile, at), outcome: 'skipped' } }
    expect(need({ record, read: before })).toBeNull()
    expect(need({ record, read: at })).toBe('redemption')
  })

  it('hands over a new Golem, an unfinished tick and a transaction in flight', () => {
    expect(need({ record: { status: 'alive', lastTick: null } })).toBe('first-tick')
    for (const outcome of ['running', 'sent', 'busy'])
      expect(need({ record: { status: 'alive', lastTick: { period: thisPeriod, outcome } } })).toBe('in-flight')
  })

  it('hands over a dying Golem every minute until it is dead, and never a dead one', () => {
    expect(need({ record: { status: 'dying', lastTick: { period: thisPeriod, outcome: 'confirmed' } } })).toBe('death')
    expect(need({ record: { status: 'dead', lastTick: null } })).toBeNull()
  })

  it('hands over a Golem whose grant ended, whose owner revoked it, or that reached Terminal: it dies', () => {
    expect(need({ read: { ...idleRead, timestamp: profile.runway.expiresAt + 1n } })).toBe('death')
    expect(need({ read: { ...idleRead, disabled: true } })).toBe('death')
    expect(need({ read: { ...idleRead, phase: Phase.Terminal } })).toBe('death')
  })

  it('hands a halted Golem over for its death only: a revocation or an ended grant, never its work; a halted death stays halted', () => {
    const halted = { status: 'alive' as const, lastTick: { period: thisPeriod - 1n, outcome: 'halted' } }
    // A new period, a redemption to make, a phase to post: the halt stops all of it.
    const busyRead = testRead({ timestamp: born + DAY_S + offset })
    expect(need({ read: busyRead })).toBe('redemption')
    expect(need({ record: halted, read: busyRead })).toBeNull()
    expect(need({ record: halted })).toBeNull()
    expect(need({ record: halted, read: { ...idleRead, disabled: true } })).toBe('death')
    expect(need({ record: halted, read: { ...idleRead, timestamp: profile.runway.expiresAt + 1n } })).toBe('death')
    expect(need({ record: { ...halted, status: 'dying' }, read: { ...idleRead, disabled: true } })).toBeNull()
  })

  it('hands over a Golem whose vitality moved it to the next phase', () => {
    // Twenty-five days into a thirty-day life, the chain still says Thriving.
    const late = testRead({ timestamp: born + 25n * DAY_S + offset + 60n, availableInPeriod: 0n })
    expect(need({ read: late, record: { status: 'alive', lastTick: { period: tickPeriod(profile, late), outcome: 'confirmed' } } })).toBe(
      'phase-change',
    )
  })

  it('hands over a paid feed, a queued renewal coming into force and a rotation in flight', () => {
    expect(need({ profile: { ...profile, reprieve: { requestedAt: 1, amount: 5n, vitality: 0.9, payer: '0x00' } } as never })).toBe(
      'reprieve',
    )
    const renewal = { ...profile.runway, periodStart: profile.runway.expiresAt, expiresAt: profile.runway.expiresAt + 30n * DAY_S }
    const ended = { ...idleRead, timestamp: profile.runway.expiresAt + 1n }
    expect(need({ profile: { ...profile, renewals: [renewal] } as never, read: ended })).toBe('grant-change')
  })

  it('hands over the first minute of a new period once (payment credits are reconciled once a period)', () => {
    expect(need({ record: { status: 'alive', lastTick: { period: thisPeriod - 1n, outcome: 'confirmed' } } })).toBe('new-period')
  })

  it('hands over a self-extending Golem whose paid TTL is within its horizon (three beats and the margin)', () => {
    // What the key holds and the grant still pays projects its economic clock past the paid TTL.
    const read = { ...idleRead, runwayHeld: 10_000n }
    const parameters = { beatSeconds: 60n, vitalityParameters: noShocks, selfExtension: { runtimeCostPerHour: 1n } }
    const ttl = (ahead: bigint) => ({ ...profile, life: { ...profile.life, runwayEndsAt: idleRead.timestamp + ahead } })
    expect(need({ profile: ttl(239n), read, parameters })).toBe('payment')
    expect(need({ profile: ttl(240n), read, parameters })).toBeNull()
  })

  it('hands over a key that reached its maximum age, only when the ticks rotate keys', () => {
    const parameters = { beatSeconds: 60n, vitalityParameters: noShocks, rotationMaxAgeSeconds: Number(DAY_S) }
    expect(need()).toBeNull()
    expect(need({ parameters })).toBe('rotation')
    expect(need({ parameters, profile: { ...profile, keyGrantedAt: idleRead.timestamp - 60n } })).toBeNull()
    // Before its offset into the period the old key has the period's runway to redeem: the rotation waits for it.
    const early = testRead({ timestamp: born + DAY_S + offset - 60n })
    const record = { status: 'alive' as const, lastTick: { period: tickPeriod(profile, early), outcome: 'skipped' } }
    expect(need({ parameters, read: early, record })).toBeNull()
  })
})
