import { describe, expect, it } from 'vitest'
import type { CustodyEvent } from './custodyEvents.ts'
import {
  deathCause,
  deathSettlementOf,
  deregisterStep,
  disableSteps,
  KEY_ZEROED_STEP,
  nativeReturnValue,
  returnAssets,
  returnedLine,
  returnStep,
  tokenReturnDecision,
  unsentLine,
} from './deathPlan.ts'
import { ownerOf } from '../custody/golemPolicy.ts'
import { Phase } from './phase.ts'
import { planReprieve } from './reprievePlan.ts'
import { planRotation, profileAfterRotation, rotationStepName } from './rotationPlan.ts'
import { staggerOffset } from './stagger.ts'
import { eventKey, runwayAttemptFromRecord, MAX_REDEMPTION_ATTEMPTS, mergeTickOutcome, phaseStep, planTick } from './tickPlan.ts'
import { born, DAY_S, golemKey, hex32, testProfile, testRead } from '../../test/support/lifecycle/profile.ts'

const noShocks = { shockProbabilityPerDay: 0 }

const read = testRead

const none = { events: [], inFlightAmount: 0n }

describe('planTick', () => {
  it('redeems the period allowance to the Golem key in a fresh period, keyed by the absolute period', () => {
    // At the Golem's offset into its second period, when its runway is due (core/lifecycle/stagger.ts).
    const due = read({ timestamp: born + DAY_S + staggerOffset('g', DAY_S) })
    const plan = planTick({ golemId: 'g', profile: testProfile(), read: due, pending: none, vitalityParameters: noShocks })
    expect(plan.runway).toEqual({
      kind: 'redeem',
      slot: { period: (born + DAY_S) / DAY_S, step: 'runway' },
      attempt: 1,
      amount: 10n,
      token: golemKey,
      recipient: golemKey,
    })
    expect(plan.period).toBe((born + DAY_S) / DAY_S)
    expect(plan.die).toBe(false)
  })

  it('starts past every runway attempt only after a tick of this same period found them all spent', () => {
    expect(runwayAttemptFromRecord({ period: 7n, outcome: 'attempts-spent' }, 7n)).toBe(MAX_REDEMPTION_ATTEMPTS + 1)
    expect(runwayAttemptFromRecord({ period: 6n, outcome: 'attempts-spent' }, 7n)).toBeUndefined()
    expect(runwayAttemptFromRecord({ period: 7n, outcome: 'failed' }, 7n)).toBeUndefined()
    expect(runwayAttemptFromRecord(null, 7n)).toBeUndefined()
  })

  it("redeems under the period's first attempt not spent, and sends nothing once every attempt is spent", () => {
    const due = read({ timestamp: born + DAY_S + staggerOffset('g', DAY_S) })
    const planned = (runwayAttempt: number) =>
      planTick({ golemId: 'g', profile: testProfile(), read: due, pending: { ...none, runwayAttempt }, vitalityParameters: noShocks })
        .runway
    const period = (born + DAY_S) / DAY_S
    expect(planned(2)).toMatchObject({ kind: 'redeem', slot: { period, step: 'runway-a2' }, attempt: 2, amount: 10n })
    expect(planned(MAX_REDEMPTION_ATTEMPTS)).toMatchObject({
      slot: { step: `runway-a${MAX_REDEMPTION_ATTEMPTS}` },
      attempt: MAX_REDEMPTION_ATTEMPTS,
    })
    expect(planned(MAX_REDEMPTION_ATTEMPTS + 1)).toEqual({
      kind: 'none',
      status: 'attempts-spent',
      reason: `this period's ${MAX_REDEMPTION_ATTEMPTS} redemption attempts were sent and none landed: the next period redeems again`,
    })
  })

  it("judges a self-extending Golem's economic clock on what its held runway projects, never past the grant", () => {
    // Ten days into a 30-day grant, TTL paid only one day ahead.
    const now = born + 10n * DAY_S
    const profile = testProfile()
    const lean = { ...profile, life: { ...profile.life, runwayEndsAt: now + DAY_S } }
    const at = (runwayHeld?: bigint) => read({ timestamp: now, ...(runwayHeld === undefined ? {} : { runwayHeld }) })
    const economic = (r: ReturnType<typeof read>, runtimeCostPerHour?: bigint) =>
      planTick({
        golemId: 'g',
        profile: lean,
        read: r,
        pending: none,
        vitalityParameters: noShocks,
        ...(runtimeCostPerHour === undefined ? {} : { runtimeCostPerHour }),
      }).decision.vitality.economic
    const ttlOnly = economic(at(24_000_000n))
    // 24 USDC at 0.5 USDC an hour buys two more days: the clock reads three days left, not one.
    expect(economic(at(24_000_000n), 500_000n)).toBeCloseTo(ttlOnly * 3, 5)
    // Nothing held: the TTL and what the grant still pays (20 days of 10 units: a fraction of a second here).
    expect(economic(at(0n), 500_000n)).toBeCloseTo(ttlOnly, 4)
    // The grant's money counts as much as the key's: 24 USDC a period still to redeem buys the same days.
    const rich = { ...lean, runway: { ...lean.runway, periodAmount: 24_000_000n } }
    const drawable = planTick({
      golemId: 'g',
      profile: rich,
      read: read({ timestamp: now, runwayHeld: 0n, availableInPeriod: 0n, currentPeriod: 10n }),
      pending: none,
      vitalityParameters: noShocks,
      runtimeCostPerHour: 500_000n,
    }).decision.vitality.economic
    expect(drawable).toBeCloseTo(20 / 30, 6)
    // Not read (an older observation): the TTL alone.
    expect(economic(at(), 500_000n)).toBe(ttlOnly)
    // A fortune held still ends at the owner's grant (20 days left of 30).
    expect(economic(at(10n ** 12n), 500_000n)).toBeCloseTo(20 / 30, 6)
  })

  it('plans no second redemption when an earlier tick already sent this period', () => {
    const pending = { events: [], inFlightAmount: 0n, runway: { status: 'confirmed', amount: 10n, txHash: hex32('cd') } }
    const plan = planTick({ golemId: 'g', profile: testProfile(), read: read(), pending, vitalityParameters: noShocks })
    expect(plan.runway).toEqual({ kind: 'settled', status: 'confirmed', amount: 10n, txHash: hex32('cd') })
  })

  it('plans no second redemption in a period whose redemption is recorded, and redeems again in the next', () => {
    const due = read({ timestamp: born + DAY_S + staggerOffset('g', DAY_S) })
    const period = (born + DAY_S) / DAY_S
    const profile = testProfile()
    const redeemed = { ...profile, known: { ...profile.known, runwayRedeemedPeriod: period } }
    const skipped = planTick({ golemId: 'g', profile: redeemed, read: due, pending: none, vitalityParameters: noShocks })
    expect(skipped.runway).toEqual({ kind: 'none', status: 'skipped', reason: 'redeemed-this-period' })
    // Decided where the stagger is: the decision's health counts no redemption this tick.
    expect(skipped.decision.redemption).toEqual({ action: 'skip', reason: 'redeemed-this-period' })
    const earlier = { ...profile, known: { ...profile.known, runwayRedeemedPeriod: period - 1n } }
    expect(planTick({ golemId: 'g', profile: earlier, read: due, pending: none, vitalityParameters: noShocks }).runway.kind).toBe('redeem')
  })

  it('skips the redemption while dreaming and when nothing is left in the period', () => {
    expect(planTick({ golemId: 'g', profile: testProfile(), read: read({ dreaming: true }), pending: none }).runway.kind).toBe('none')
    expect(planTick({ golemId: 'g', profile: testProfile(), read: read({ availableInPeriod: 0n }), pending: none }).runway.kind).toBe(
      'none',
    )
  })

  it('plans the phase post from the reset phase after a reprieve, under the next phase epoch, with the plan should it not land', () => {
    const late = read({ timestamp: born + 29n * DAY_S, phase: Phase.Declining })
    const plain = planTick({ golemId: 'g', profile: testProfile(), read: late, pending: none, vitalityParameters: noShocks })
    expect(plain.reprieve).toEqual({ kind: 'none' })
    expect(plain.phaseEpoch).toBe(0)
    // Fed: the TTL moved far ahead, so the fed vitality points back to an earlier phase than Declining.
    const base = testProfile()
    const fed = {
      ...base,
      life: { ...base.life, runwayEndsAt: born + 60n * DAY_S },
      reprieve: { requestedAt: born + 29n * DAY_S, amount: 12_000_000n, payer: golemKey },
    }
    const reset = planTick({ golemId: 'g', profile: fed, read: late, pending: none, vitalityParameters: noShocks })
    expect(reset.reprieve).toMatchObject({ kind: 'reset', from: Phase.Declining })
    const to = reset.reprieve.kind === 'reset' ? reset.reprieve.to : Phase.Declining
    expect(to).toBeLessThan(Phase.Declining)
    expect(reset.phaseEpoch).toBe(1)
    expect(reset.decision.phase.current).toBe(to)
    if (reset.postPhase) expect(reset.postPhase.step).toBe(phaseStep(reset.postPhase.next, 1))
    // Should the reset not land this tick, the plan for the phase the chain reports, under the same epoch.
    expect(reset.unreset?.decision.phase.current).toBe(Phase.Declining)
    expect(reset.unreset?.phaseEpoch).toBe(0)
  })

  it('records a revocation with its RevocationState and the time it was seen', () => {
    const plan = planTick({ golemId: 'g', profile: testProfile(), read: read({ disabled: true }), pending: none })
    const revoked = plan.events.find((e) => e.type === 'DelegationRevoked') as Extract<CustodyEvent, { type: 'DelegationRevoked' }> & {
      revocation: string
    }
    expect(revoked.revocation).toBe('RevokedByOwner')
    expect(plan.runway).toMatchObject({ kind: 'none', status: 'skipped', reason: 'revoked' })
  })

  it('never plans PhaseChanged itself: the chain writes it once the post confirms', () => {
    const plan = planTick({
      golemId: 'g',
      profile: testProfile(),
      read: read({ timestamp: born + 29n * DAY_S }),
      pending: none,
      vitalityParameters: noShocks,
    })
    expect(plan.events.some((e) => e.type === 'PhaseChanged')).toBe(false)
  })
})

describe('event keys and slot names', () => {
  it('keys a phase change by its target, a budget warning by the tick period and a redemption by its own period', () => {
    expect(eventKey({ type: 'PhaseChanged', at: 1n, from: 0, to: 2, survivalScoreBps: 1 }, 9n)).toBe('phase:2')
    expect(eventKey({ type: 'BudgetWarning', at: 1n, remainingPct: 1, estimatedOperationsLeft: 1 }, 9n)).toBe('BudgetWarning:9')
    expect(eventKey({ type: 'RunwayRedeemed', at: 1n, amount: 1n, txHash: hex32('aa'), period: 7n }, 9n)).toBe('RunwayRedeemed:7')
  })

  it('names phase, rotation and deregistration slots so existing first-attempt slots keep their names', () => {
    expect(phaseStep(Phase.Stable, 0)).toBe('phase-1')
    expect(phaseStep(Phase.Stable, 2)).toBe('phase-1-e2')
    expect(rotationStepName(golemKey, 0)).toBe(`rotate-${golemKey.slice(2).toLowerCase()}`)
    expect(rotationStepName(golemKey, 3)).toBe(`rot3-${golemKey.slice(2).toLowerCase()}`)
    expect(deregisterStep(0)).toBe('death-deregister')
    expect(deregisterStep(2)).toBe('death-deregister-2')
  })
})

describe('mergeTickOutcome', () => {
  it('keeps what was reported, adds what this tick reported, and clears only the reprieve it served', () => {
    const reprieve = { requestedAt: 5n, amount: 1n, payer: golemKey }
    const current = testProfile({ reprieve })
    const merged = mergeTickOutcome(current, {
      events: [{ type: 'DelegationRevoked', at: 1n, delegationHash: hex32('ab'), cause: 'owner' }],
      period: 3n,
      phaseEpoch: 1,
      servedReprieve: reprieve,
    })
    expect(merged.known.revokedReported).toBe(true)
    expect(merged.phaseEpoch).toBe(1)
    expect(merged.reprieve).toBeUndefined()
    const newer = mergeTickOutcome(testProfile({ reprieve: { ...reprieve, amount: 2n } }), {
      events: [],
      period: 3n,
      phaseEpoch: 0,
      servedReprieve: reprieve,
    })
    expect(newer.reprieve?.amount).toBe(2n)
  })

  it('records the latest period whose runway redemption is recorded, never moving it back', () => {
    const redeemed = (period: bigint): CustodyEvent => ({ type: 'RunwayRedeemed', at: 1n, amount: 10n, txHash: hex32('ef'), period })
    const first = mergeTickOutcome(testProfile(), { events: [redeemed(7n)], period: 7n, phaseEpoch: 0 })
    expect(first.known.runwayRedeemedPeriod).toBe(7n)
    // A tick that settles an earlier period's redemption (after a crash) and redeems its own.
    expect(mergeTickOutcome(first, { events: [redeemed(9n), redeemed(8n)], period: 9n, phaseEpoch: 0 }).known.runwayRedeemedPeriod).toBe(9n)
    expect(mergeTickOutcome(first, { events: [redeemed(6n)], period: 7n, phaseEpoch: 0 }).known.runwayRedeemedPeriod).toBe(7n)
    expect(mergeTickOutcome(first, { events: [], period: 8n, phaseEpoch: 0 }).known.runwayRedeemedPeriod).toBe(7n)
    expect(mergeTickOutcome(testProfile(), { events: [], period: 8n, phaseEpoch: 0 }).known.runwayRedeemedPeriod).toBeUndefined()
  })
})

describe('planReprieve', () => {
  it('resets only down to the fed vitality, never for an unregistered Golem', () => {
    const p = testProfile({ reprieve: { requestedAt: 5n, amount: 1n, payer: golemKey } })
    expect(planReprieve(testProfile(), { registered: true, phase: Phase.Declining }, 0.9).kind).toBe('none')
    expect(planReprieve(p, { registered: false, phase: Phase.Declining }, 0.9).kind).toBe('none')
    expect(planReprieve(p, { registered: true, phase: Phase.Thriving }, 0.9).kind).toBe('served')
    expect(planReprieve(p, { registered: true, phase: Phase.Declining }, 0.9)).toMatchObject({
      kind: 'reset',
      step: 'reprieve-5',
      from: Phase.Declining,
    })
  })
})

describe('planRotation', () => {
  it('rotates a registered Golem when its key policy says so, from the next period boundary', () => {
    const p = testProfile()
    expect(planRotation('g', p, read(), () => ({ rotate: false }))).toBeNull()
    expect(planRotation('g', p, read({ registered: false }), () => ({ rotate: true, reason: 'age' }))).toBeNull()
    expect(planRotation('g', p, read(), () => ({ rotate: true, reason: 'age' }))).toEqual({
      reason: 'age',
      nextPeriodStart: born + 2n * DAY_S,
    })
  })

  it("waits while this period's runway is staggered, so the old key redeems the period before its grant hands over", () => {
    const p = testProfile()
    expect(planRotation('g', p, read(), () => ({ rotate: true, reason: 'age' }), true)).toBeNull()
    // A rotation already in flight is finished regardless: the oracle may have moved the identity.
    const pending = {
      to: golemKey,
      signer: { kind: 'memory' as const, ref: 'n' },
      reason: 'age',
      runway: {
        chain: p.runway.chain,
        periodDelegationHash: hex32('cc'),
        periodTerms: '0x' as const,
        chainHashes: [hex32('cc')],
        periodStart: born,
      },
    }
    expect(planRotation('g', testProfile({ pendingRotation: pending }), read(), () => undefined, true)?.reason).toBe('age')
  })

  it('finishes a rotation in flight even when the old key already reads unregistered', () => {
    const pending = {
      to: golemKey,
      signer: { kind: 'memory' as const, ref: 'n' },
      reason: 'operations',
      runway: {
        chain: testProfile().runway.chain,
        periodDelegationHash: hex32('cc'),
        periodTerms: '0x' as const,
        chainHashes: [hex32('cc')],
        periodStart: born,
      },
    }
    const p = testProfile({ pendingRotation: pending })
    expect(planRotation('g', p, read({ registered: false }), () => undefined)?.reason).toBe('operations')
    const after = profileAfterRotation(p, pending)
    expect(after.pendingRotation).toBeUndefined()
    expect(after.runway.chainHashes).toEqual([hex32('cc')])
    expect(after.signer).toEqual({ kind: 'memory', ref: 'n' })
  })
})

describe('the death plan', () => {
  it('disables every sub-delegation in order, then names the cause and the final phase', () => {
    const delegation = testProfile().runway.chain[0]!
    const p = testProfile({
      replicants: [
        { hash: hex32('01'), delegation },
        { hash: hex32('02'), delegation },
      ],
    })
    expect(disableSteps(p).map((d) => d.step)).toEqual(['death-disable-0', 'death-disable-1'])
    expect(KEY_ZEROED_STEP).toBe('death-key-zeroed')
    expect(deathCause({ disabled: true })).toBe('OwnerRevocation')
    const settlement = deathSettlementOf(
      p,
      { disabled: false, phase: Phase.Terminal },
      { positionsSettled: [], positionsLeftOpen: [], subDelegationsDisabled: [hex32('01')], deregisterTx: null, fundsReturned: [] },
    )
    expect(settlement).toMatchObject({
      expiryCause: 'NaturalExpiry',
      finalPhase: 'Terminal',
      sessionKeyZeroed: true,
      subDelegationsDisabled: [hex32('01')],
    })
  })

  it("returns the runway token first and the ETH last, to the root delegator (the owner's account)", () => {
    const p = testProfile()
    const assets = returnAssets(p)
    expect(assets).toEqual([{ kind: 'token', token: p.runway.token }, { kind: 'native' }])
    expect(assets.map((a) => returnStep(a, 0))).toEqual([
      `death-return-token-${p.runway.token.slice(2, 10).toLowerCase()}`,
      'death-return-native',
    ])
    expect(returnStep({ kind: 'native' }, 2)).toBe('death-return-native-2')
    const root = p.runway.chain[p.runway.chain.length - 1]!.delegator
    expect(ownerOf(p)).toBe(root)
    const settlement = deathSettlementOf(
      p,
      { disabled: false, phase: Phase.Terminal },
      {
        positionsSettled: [],
        positionsLeftOpen: [],
        subDelegationsDisabled: [],
        deregisterTx: null,
        fundsReturned: [returnedLine(assets[0]!, 5n, hex32('aa')), unsentLine({ kind: 'native' }, 'empty', 0n)],
      },
    )
    expect(settlement.owner).toBe(root)
    expect(settlement.fundsReturned).toEqual([
      { asset: p.runway.token, status: 'returned', amount: '5', txHash: hex32('aa') },
      { asset: 'native', status: 'empty', amount: '0', txHash: null },
    ])
  })

  it('sends a token only when there is some and the key can pay its gas; the ETH less its own gas, never less than nothing', () => {
    expect(tokenReturnDecision({ balance: 0n, ethBalance: 10n, maxGasCost: 1n })).toBe('empty')
    expect(tokenReturnDecision({ balance: 5n, ethBalance: 0n, maxGasCost: 1n })).toBe('no-gas')
    expect(tokenReturnDecision({ balance: 5n, ethBalance: 1n, maxGasCost: 1n })).toBe('send')
    expect(nativeReturnValue(100n, 30n)).toBe(70n)
    expect(nativeReturnValue(30n, 30n)).toBe(0n)
    expect(nativeReturnValue(10n, 30n)).toBe(0n)
  })
})
