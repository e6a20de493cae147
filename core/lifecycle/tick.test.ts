import { describe, expect, it } from 'vitest'
import { decideTick } from './tick.ts'
import { Phase } from './phase.ts'
import { staggerOffset } from './stagger.ts'
import { testObservation } from '../../test/support/lifecycle/observation.ts'

const DAY = 86_400n
/** The default Golem's second period, at its offset into the period: its runway is due (core/lifecycle/stagger.ts). */
const DUE = 1n * DAY + staggerOffset('g1', DAY)
const obs = testObservation

describe('decideTick', () => {
  it('redeems the full period in Thriving and posts nothing when the phase holds', () => {
    const d = decideTick(obs({ now: DUE }))
    expect(d.phase).toEqual({ current: Phase.Thriving, next: Phase.Thriving, post: false })
    expect(d.redemption).toEqual({ action: 'redeem', amount: 100n, multiplierBps: 10_000n })
    expect(d.period).toBe(1n)
    expect(d.die).toBe(false)
    expect(d.health.health).toBe('healthy')
  })

  it('posts a forward phase change and redeems at the new phase multiplier', () => {
    const d = decideTick(obs({ now: 20n * DAY }, { now: 20n * DAY, currentPeriodStart: 20n * DAY }))
    expect(d.phase.post).toBe(true)
    expect(d.phase.next).toBeGreaterThan(Phase.Thriving)
    expect(d.events.map((e) => e.type)).toContain('PhaseChanged')
  })

  it('starts the death protocol in Terminal instead of redeeming', () => {
    const d = decideTick(
      obs({ now: 30n * DAY, onChainPhase: Phase.Declining }, { now: 30n * DAY, currentPeriodStart: 30n * DAY, expiresAt: 31n * DAY }),
    )
    expect(d.phase.next).toBe(Phase.Terminal)
    expect(d.die).toBe(true)
    expect(d.redemption).toEqual({ action: 'revoke', reason: 'terminal' })
    expect(d.events.map((e) => e.type)).toContain('DeathProtocolStarted')
  })

  it('stops redeeming and reports an owner revocation once', () => {
    const d = decideTick(obs({}, { disabled: true, disabledAt: 5n }))
    expect(d.redemption).toEqual({ action: 'skip', reason: 'revoked' })
    expect(d.health.health).toBe('revoked')
    expect(d.events).toContainEqual(expect.objectContaining({ type: 'DelegationRevoked', cause: 'owner' }))
    const again = decideTick(obs({ known: { revokedReported: true, expiringWarned: false } }, { disabled: true }))
    expect(again.events.filter((e) => e.type === 'DelegationRevoked')).toHaveLength(0)
  })

  it('does nothing while dreaming or once deregistered', () => {
    expect(decideTick(obs({ dreaming: true })).redemption.action).toBe('skip')
    const dead = decideTick(obs({ registered: false, onChainPhase: Phase.Terminal }))
    expect(dead.phase.post).toBe(false)
    expect(dead.die).toBe(false)
    expect(dead.redemption.action).toBe('skip')
  })

  it('warns when the delegation expires within a day and when the whole budget runs low, once', () => {
    const d = decideTick(
      obs({ now: 29n * DAY + 3_600n }, { now: 29n * DAY + 3_600n, availableInPeriod: 10n, currentPeriodStart: 29n * DAY }),
    )
    const types = d.events.map((e) => e.type)
    expect(types).toContain('DelegationExpiringWarning')
    expect(types).toContain('BudgetWarning')
    const again = decideTick(
      obs(
        { now: 29n * DAY + 3_600n, known: { revokedReported: false, expiringWarned: true, budgetWarnedPeriod: 29n } },
        { now: 29n * DAY + 3_600n, availableInPeriod: 10n, currentPeriodStart: 29n * DAY },
      ),
    )
    expect(again.events.map((e) => e.type).filter((t) => t === 'BudgetWarning' || t === 'DelegationExpiringWarning')).toEqual([])
  })

  it('does not warn about the budget when a Thriving Golem takes its full daily cap', () => {
    expect(decideTick(obs()).events.map((e) => e.type)).not.toContain('BudgetWarning')
  })

  it('asks for renewal once per grant end when the paid runway outlives the grant', () => {
    const extended = { runwayEndsAt: 60n * DAY }
    const first = decideTick(obs(extended))
    expect(first.health.renewal).toMatchObject({
      reason: 'grant-ends-before-runway',
      grant_ends_at: Number(30n * DAY),
      runway_ends_at: Number(60n * DAY),
    })
    expect(first.events.filter((e) => e.type === 'RenewalRequested')).toEqual([
      {
        type: 'RenewalRequested',
        at: DAY,
        delegationHash: '0x01',
        grantEndsAt: 30n * DAY,
        runwayEndsAt: 60n * DAY,
        secondsLeft: 29n * DAY,
      },
    ])
    const again = decideTick(obs({ ...extended, known: { revokedReported: false, expiringWarned: false, renewalRequestedFor: 30n * DAY } }))
    expect(again.events.map((e) => e.type)).not.toContain('RenewalRequested')
    // A renewed grant that still ends before the TTL asks again, for its own end.
    const renewed = decideTick(
      obs(
        { ...extended, known: { revokedReported: false, expiringWarned: false, renewalRequestedFor: 30n * DAY } },
        { expiresAt: 40n * DAY },
      ),
    )
    expect(renewed.events.find((e) => e.type === 'RenewalRequested')).toMatchObject({ grantEndsAt: 40n * DAY })
    expect(decideTick(obs()).events.map((e) => e.type)).not.toContain('RenewalRequested')
  })

  it('dies by delegation expiry at the first tick after an unrenewed grant ended, whatever the paid runway', () => {
    const d = decideTick(
      obs({ now: 31n * DAY, runwayEndsAt: 60n * DAY }, { now: 31n * DAY, currentPeriodStart: 31n * DAY, expiresAt: 30n * DAY }),
    )
    expect(d.die).toBe(true)
    expect(d.redemption).toEqual({ action: 'skip', reason: 'revoked' })
    expect(d.events.find((e) => e.type === 'DeathProtocolStarted')).toMatchObject({ trigger: 'delegation-expired' })
    expect(d.health).toMatchObject({ health: 'critical', revocation: { kind: 'Expired' } })
    // Not before the end.
    expect(
      decideTick(obs({ now: 30n * DAY - 1n, runwayEndsAt: 60n * DAY }, { now: 30n * DAY - 1n, currentPeriodStart: 29n * DAY })).die,
    ).toBe(false)
  })

  it("dies at the first tick after the owner's revocation, not at its grant's end", () => {
    const revoked = { disabled: true, disabledAt: 10n * DAY }
    const d = decideTick(obs({ now: 20n * DAY }, { ...revoked, now: 20n * DAY, currentPeriodStart: 20n * DAY }))
    expect(d.die).toBe(true)
    expect(d.redemption).toEqual({ action: 'skip', reason: 'revoked' })
    expect(d.events.find((e) => e.type === 'DeathProtocolStarted')).toMatchObject({ trigger: 'owner-revoked' })
    expect(d.health).toMatchObject({ health: 'revoked', revocation: { kind: 'RevokedByOwner' } })
  })

  it('keeps a Golem whose grant ran out of calls alive: only the owner revokes', () => {
    const d = decideTick(obs({ now: DUE }, { callsLimit: 3n, callsUsed: 3n }))
    expect(d.die).toBe(false)
    expect(d.redemption).toEqual({ action: 'skip', reason: 'revoked' })
  })

  it('redeems just in time: only what the key lacks of its target, never past the period cap', () => {
    const jit = (held: bigint, target: bigint) => decideTick({ ...obs({ now: DUE }), runwayTarget: { held, target } }).redemption
    expect(jit(0n, 30n)).toEqual({ action: 'redeem', amount: 30n, multiplierBps: 10_000n })
    expect(jit(25n, 30n)).toEqual({ action: 'redeem', amount: 5n, multiplierBps: 10_000n })
    expect(jit(30n, 30n)).toEqual({ action: 'skip', reason: 'held', held: 30n, target: 30n })
    expect(jit(0n, 1_000n)).toEqual({ action: 'redeem', amount: 100n, multiplierBps: 10_000n })
  })

  it('reports the health the chain shows once its redemption lands: a redeemed period is not critical', () => {
    const d = decideTick(obs({ now: DUE }))
    expect(d.redemption).toMatchObject({ action: 'redeem', amount: 100n })
    expect(d.health).toMatchObject({ health: 'healthy', remaining_today: '0', reason: "this period's planned allowance is redeemed" })
  })
})
