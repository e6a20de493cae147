import { describe, expect, it } from 'vitest'
import { Phase } from '../lifecycle/phase.ts'
import { golemHealth, renewalRequestOf, rotationWaitOf, stillNeededInPeriod, type GolemHealthInput } from './golemHealth.ts'
import type { PermissionFacts } from './permissionHealth.ts'

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
const input = (over: Partial<PermissionFacts> = {}, rest: Partial<Omit<GolemHealthInput, 'facts'>> = {}): GolemHealthInput => ({
  facts: facts(over),
  lifecycle: 'alive',
  phase: Phase.Thriving,
  runwayEndsAt: facts(over).expiresAt,
  ...rest,
})

describe('golem health: one verdict for the tick, the API and the Snap', () => {
  it("is healthy, not critical, once the period's planned allowance is redeemed", () => {
    const r = golemHealth(input({ availableInPeriod: 0n }))
    expect(r).toMatchObject({
      health: 'healthy',
      reason: "this period's planned allowance is redeemed",
      remaining_today: '0',
      days_remaining: 20,
      renewal: null,
    })
    // A Conservation Golem plans half the cap: with half taken it has what it needs.
    expect(golemHealth(input({ availableInPeriod: 50_000_000n }, { phase: Phase.Conservation })).health).toBe('healthy')
  })

  it('judges the period by what the Golem still needs', () => {
    expect(stillNeededInPeriod(facts({ availableInPeriod: 100_000_000n }), Phase.Stable)).toBe(75_000_000n)
    expect(stillNeededInPeriod(facts({ availableInPeriod: 30_000_000n }), Phase.Stable)).toBe(5_000_000n)
    expect(stillNeededInPeriod(facts({ availableInPeriod: 0n }), Phase.Stable)).toBe(0n)
    // Before and after the period's redemption the verdict is the same; only the reason says which.
    expect(golemHealth(input({ availableInPeriod: 100_000_000n }))).toMatchObject({
      health: 'healthy',
      reason: "this period's planned allowance is available",
    })
    expect(golemHealth(input({ availableInPeriod: 0n }))).toMatchObject({
      health: 'healthy',
      reason: "this period's planned allowance is redeemed",
    })
  })

  it('counts time in runway periods: under one period critical, up to seven low', () => {
    expect(golemHealth(input({ expiresAt: 1_000n * DAY + 3_600n })).health).toBe('critical')
    expect(golemHealth(input({ expiresAt: 1_005n * DAY })).health).toBe('low')
    expect(golemHealth(input({ expiresAt: 1_005n * DAY })).reason).toBe('the grant ends within 7 periods')
    // A minutes-long life on one-minute periods reads the same way.
    const minute = { now: 600n, currentPeriodStart: 600n, periodDuration: 60n, expiresAt: 600n + 10n * 60n }
    expect(golemHealth(input(minute, { runwayEndsAt: minute.expiresAt })).health).toBe('healthy')
    expect(golemHealth(input({ ...minute, expiresAt: 600n + 3n * 60n }, { runwayEndsAt: 600n + 3n * 60n })).health).toBe('low')
    expect(golemHealth(input({ ...minute, expiresAt: 630n }, { runwayEndsAt: 630n })).health).toBe('critical')
  })

  it('says dead for a dead Golem and revoked for an owner revocation, whatever the numbers', () => {
    expect(golemHealth(input({}, { lifecycle: 'dead' }))).toMatchObject({ health: 'dead', reason: 'the Golem is dead', renewal: null })
    expect(golemHealth(input({ disabled: true }))).toMatchObject({
      health: 'revoked',
      revocation: { kind: 'RevokedByOwner' },
      remaining_today: '0',
      total_remaining: '0',
    })
    expect(golemHealth(input({ disabled: true }, { lifecycle: 'dead' })).health).toBe('dead')
    expect(golemHealth(input({ now: 1_021n * DAY }))).toMatchObject({
      health: 'critical',
      reason: 'the grant ended',
      revocation: { kind: 'Expired' },
    })
    expect(golemHealth(input({}, { lifecycle: 'dying' })).health).toBe('critical')
  })

  it('says a key rotation waits for the owner, answered or not, without changing the verdict; never once dead or revoked', () => {
    const OLD = '0x00000000000000000000000000000000000000a1'
    const NEW = '0x00000000000000000000000000000000000000b2'
    const awaits = { to: NEW, requestedAt: 1_000n * DAY } as const
    const rotation = rotationWaitOf({ golemKey: OLD, rotationAwaits: awaits })
    expect(rotation).toEqual({ from: OLD, to: NEW, requestedAt: 1_000n * DAY, answered: false })
    const waiting = golemHealth(input({}, { rotation }))
    expect(waiting).toMatchObject({
      health: 'healthy',
      reason:
        "this period's planned allowance is available; its key rotation waits for the owner's grant to the new key: it keeps its old key meanwhile",
      rotation: { status: 'awaiting-owner', old_key: OLD, new_key: NEW, requested_at: Number(1_000n * DAY) },
    })
    // The owner's grant to the new key arrived: the next tick installs it.
    const answered = rotationWaitOf({ golemKey: OLD, rotationAwaits: awaits, rotationGrant: { to: NEW } })
    expect(golemHealth(input({}, { rotation: answered })).rotation).toMatchObject({ status: 'answered' })
    // A grant to another key answers nothing; no wait, nothing said.
    expect(rotationWaitOf({ golemKey: OLD, rotationAwaits: awaits, rotationGrant: { to: OLD } })?.answered).toBe(false)
    expect(rotationWaitOf({ golemKey: OLD })).toBeUndefined()
    expect(golemHealth(input()).rotation).toBeNull()
    expect(golemHealth(input({}, { lifecycle: 'dead', rotation })).rotation).toBeNull()
    expect(golemHealth(input({ disabled: true }, { rotation })).rotation).toBeNull()
  })

  it('asks for renewal when the grant ends before the paid runway, with the days left', () => {
    const r = golemHealth(input({ expiresAt: 1_002n * DAY + 43_200n }, { runwayEndsAt: 1_040n * DAY }))
    expect(r.renewal).toEqual({
      reason: 'grant-ends-before-runway',
      grant_ends_at: Number(1_002n * DAY + 43_200n),
      runway_ends_at: Number(1_040n * DAY),
      seconds_left: 216_000,
      days_left: 2.5,
    })
    expect(r.reason).toBe('the grant ends within 7 periods; renewal requested')
    expect(r.grant_ends_at).toBe(Number(1_002n * DAY + 43_200n))
    expect(r.runway_ends_at).toBe(Number(1_040n * DAY))
    expect(renewalRequestOf(facts(), 1_020n * DAY)).toBeNull()
    // After the end it still asks (0 left) until the Golem dies; an owner revocation never asks.
    expect(golemHealth(input({ now: 1_030n * DAY }, { runwayEndsAt: 1_040n * DAY })).renewal).toMatchObject({
      seconds_left: 0,
      days_left: 0,
    })
    expect(golemHealth(input({ disabled: true }, { runwayEndsAt: 1_040n * DAY })).renewal).toBeNull()
  })
})
