// What one tick observes about a Golem: the request the batched chain read answers, the answer, and the
// observation the tick decides from (chain state joined with the stored profile). Pure shapes and joins;
// adapters/chain/readGolems.ts does the reading.
import type { Address, Hex } from 'viem'
import type { Phase } from './phase.ts'
import { permissionFactsOf } from './permissionFacts.ts'
import type { GolemProfile } from './profile.ts'
import type { GolemObservation } from './tick.ts'

export type GolemReadRequest = {
  golemId: string
  /** The Golem's session key: its identity on the oracles. */
  golemKey: Address
  /** Hashes of every delegation in the redemption chain (leaf first): any disabled one stops it. */
  chainHashes: readonly Hex[]
  /** The delegation that carries the ERC20 period caveat, and that caveat's terms. */
  periodDelegationHash: Hex
  periodTerms: Hex
  /** The gas grant's NativeTokenPeriodTransfer delegation and terms, when the Golem has one. */
  gas?: { periodDelegationHash: Hex; periodTerms: Hex }
}

export type GolemChainState = {
  golemId: string
  phase: Phase
  registered: boolean
  dead: boolean
  survivalScoreBps: number
  dreaming: boolean
  disabled: boolean
  availableInPeriod: bigint
  isNewPeriod: boolean
  currentPeriod: bigint
  /** The key's native balance (pays its gas); read by the batched read, absent in older observations. */
  ethBalance?: bigint
  /** What the gas grant still allows this period (null without a gas grant). */
  gasAvailableInPeriod?: bigint | null
}

/** What the heartbeat (or the tick itself) read for one Golem, with the chain time of the read. */
export type ObservedGolem = GolemChainState & { timestamp: bigint }

export function readRequestOf(golemId: string, profile: GolemProfile): GolemReadRequest {
  return {
    golemId,
    golemKey: profile.golemKey,
    chainHashes: profile.runway.chainHashes,
    periodDelegationHash: profile.runway.periodDelegationHash,
    periodTerms: profile.runway.periodTerms,
    ...(profile.gas ? { gas: { periodDelegationHash: profile.gas.periodDelegationHash, periodTerms: profile.gas.periodTerms } } : {}),
  }
}

export function observationOf(golemId: string, profile: GolemProfile, read: ObservedGolem, reserved: bigint): GolemObservation {
  return {
    golemId,
    delegationHash: profile.runway.chainHashes[0] as Hex,
    now: read.timestamp,
    onChainPhase: read.phase,
    registered: read.registered,
    dreaming: read.dreaming,
    bornAt: profile.life.bornAt,
    runwayEndsAt: profile.life.runwayEndsAt,
    runwayTotalSeconds: profile.life.runwayTotalSeconds,
    lastInsightAt: profile.life.lastInsightAt,
    reservedAmount: reserved,
    known: {
      revokedReported: profile.known.revokedReported,
      expiringWarned: profile.known.expiringWarned,
      ...(profile.known.budgetWarnedPeriod === null ? {} : { budgetWarnedPeriod: profile.known.budgetWarnedPeriod }),
      ...(profile.known.renewalRequestedFor === undefined ? {} : { renewalRequestedFor: profile.known.renewalRequestedFor }),
    },
    permission: permissionFactsOf(profile, read),
  }
}
