// A Golem's observation for pure decideTick tests: golem g1, born at 0 with a 30-day daily grant of 100,
// registered and Thriving, a day in (the start of its second period). `permission.now` follows `now`.
import { Phase } from '../../../core/lifecycle/phase.ts'
import type { GolemObservation } from '../../../core/lifecycle/tick.ts'

const DAY = 86_400n

export function testObservation(
  over: Partial<GolemObservation> = {},
  permission: Partial<GolemObservation['permission']> = {},
): GolemObservation {
  return {
    golemId: 'g1',
    delegationHash: '0x01',
    now: 1n * DAY,
    onChainPhase: Phase.Thriving,
    registered: true,
    dreaming: false,
    bornAt: 0n,
    grantStart: 0n,
    runwayEndsAt: 30n * DAY,
    runwayTotalSeconds: 30n * DAY,
    lastInsightAt: 0n,
    vitalityParameters: { shockProbabilityPerDay: 0 },
    known: { revokedReported: false, expiringWarned: false },
    permission: {
      now: over.now ?? 1n * DAY,
      disabled: false,
      expiresAt: 30n * DAY,
      periodAmount: 100n,
      periodDuration: DAY,
      availableInPeriod: 100n,
      currentPeriodStart: 1n * DAY,
      ...permission,
    },
    ...over,
  }
}
