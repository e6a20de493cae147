// A valid custody profile for pure lifecycle tests: a 30-day runway of 10 units a day, born at `born`.
import type { Address } from 'viem'
import type { ObservedGolem } from '../../../core/lifecycle/observation.ts'
import { Phase } from '../../../core/lifecycle/phase.ts'
import { parseGolemProfile, serializeGolemProfile, type GolemProfile } from '../../../core/lifecycle/profile.ts'

export const hex32 = (b: string) => `0x${b.repeat(32)}` as const
export const golemKey: Address = '0x90F79bf6EB2c4f870365E785982E1f101E93b906'
export const born = 1_750_000_000n
export const DAY_S = 86_400n

export function testProfile(overrides: Partial<GolemProfile> = {}): GolemProfile {
  const delegation = {
    delegate: golemKey,
    delegator: golemKey,
    authority: hex32('ff'),
    caveats: [],
    salt: '0x00' as const,
    signature: '0x01' as const,
  }
  return parseGolemProfile(
    serializeGolemProfile({
      v: 1,
      chainId: 31337,
      golemKey,
      signer: { kind: 'memory', ref: 'k' },
      runway: {
        chain: [delegation],
        token: golemKey,
        periodAmount: 10n,
        periodDuration: DAY_S,
        periodStart: born,
        periodDelegationHash: hex32('ab'),
        periodTerms: '0x',
        chainHashes: [hex32('ab')],
        expiresAt: born + 30n * DAY_S,
      },
      life: { bornAt: born, runwayEndsAt: born + 30n * DAY_S, runwayTotalSeconds: 30n * DAY_S, lastInsightAt: born },
      replicants: [],
      renewals: [],
      known: { revokedReported: false, expiringWarned: false, budgetWarnedPeriod: null },
      ...overrides,
    }),
  )
}

/** One chain read of that Golem a minute into its second period: registered, Thriving, awake, a full period left. */
export function testRead(o: Partial<ObservedGolem> = {}): ObservedGolem {
  return {
    golemId: 'g',
    phase: Phase.Thriving,
    registered: true,
    dead: false,
    survivalScoreBps: 10_000,
    dreaming: false,
    disabled: false,
    availableInPeriod: 10n,
    isNewPeriod: true,
    currentPeriod: 2n,
    timestamp: born + DAY_S + 60n,
    ...o,
  }
}
