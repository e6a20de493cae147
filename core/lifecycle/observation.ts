// What one tick observes about a Golem: the request the batched chain read answers, the answer, and the
// observation the tick decides from (chain state joined with the stored profile). Pure shapes and joins;
// adapters/chain/readGolems.ts does the reading.
import type { Address, Hex } from 'viem'
import { revocationState, totalRemaining } from '../health/permissionHealth.ts'
import { rotationWaitOf } from '../health/golemHealth.ts'
import type { Phase } from './phase.ts'
import { permissionFactsOf } from './permissionFacts.ts'
import type { GolemProfile } from './profile.ts'
import { projectedEndOf } from './metabolism.ts'
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
  /** The runway's token: what the key holds of it is the money it pays its runtime with. */
  runwayToken?: Address
  /** The grant's NonceEnforcer nonce: a different current nonce is the owner's revocation of every grant. */
  nonce?: { enforcer: Address; delegator: Address; value: bigint }
}

export type GolemChainState = {
  golemId: string
  phase: Phase
  registered: boolean
  dead: boolean
  survivalScoreBps: number
  dreaming: boolean
  /** Any delegation of the runway chain disabled, or the owner's nonce moved past the grant's. */
  disabled: boolean
  availableInPeriod: bigint
  isNewPeriod: boolean
  currentPeriod: bigint
  /** The key's native balance (pays its gas); read by the batched read, absent in older observations. */
  ethBalance?: bigint
  /** What the gas grant still allows this period (null without a gas grant). */
  gasAvailableInPeriod?: bigint | null
  /** The key's balance of the runway's token: redeemed and not yet spent (absent when not read). */
  runwayHeld?: bigint
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
    runwayToken: profile.runway.token,
    ...(profile.runway.nonce ? { nonce: profile.runway.nonce } : {}),
    ...(profile.gas ? { gas: { periodDelegationHash: profile.gas.periodDelegationHash, periodTerms: profile.gas.periodTerms } } : {}),
  }
}

/**
 * How a self-extending Golem's money moves its economic clock: the runway it holds buys runtime, so the
 * clock reads the end its money projects (never past the grant) rather than the TTL paid so far. A Golem
 * that does not buy its own runtime (no price given) is judged on its TTL alone.
 */
export function economicEnd(profile: GolemProfile, read: ObservedGolem, runtimeCostPerHour?: bigint): bigint {
  const ttl = profile.life.runwayEndsAt
  if (runtimeCostPerHour === undefined || runtimeCostPerHour <= 0n || read.runwayHeld === undefined) return ttl
  // The key holds only what the coming period needs (just-in-time runway): the rest of its money is what
  // the owner's grant still pays, which counts as much as what the key holds.
  const facts = permissionFactsOf(profile, read)
  const drawable = revocationState(facts).kind === 'Active' ? totalRemaining(facts) : 0n
  const projected = projectedEndOf({
    now: read.timestamp,
    ttl,
    grantEndsAt: facts.expiresAt,
    held: read.runwayHeld + drawable,
    runtimeCostPerHour,
  })
  return projected > ttl ? projected : ttl
}

export function observationOf(
  golemId: string,
  profile: GolemProfile,
  read: ObservedGolem,
  inFlight: bigint,
  runtimeCostPerHour?: bigint,
): GolemObservation {
  return {
    golemId,
    delegationHash: profile.runway.chainHashes[0] as Hex,
    now: read.timestamp,
    onChainPhase: read.phase,
    registered: read.registered,
    dreaming: read.dreaming,
    bornAt: profile.life.bornAt,
    grantStart: profile.runway.periodStart,
    runwayEndsAt: economicEnd(profile, read, runtimeCostPerHour),
    runwayTotalSeconds: profile.life.runwayTotalSeconds,
    lastInsightAt: profile.life.lastInsightAt,
    inFlightAmount: inFlight,
    known: {
      revokedReported: profile.known.revokedReported,
      expiringWarned: profile.known.expiringWarned,
      ...(profile.known.budgetWarnedPeriod === null ? {} : { budgetWarnedPeriod: profile.known.budgetWarnedPeriod }),
      ...(profile.known.renewalRequestedFor === undefined ? {} : { renewalRequestedFor: profile.known.renewalRequestedFor }),
      ...(profile.known.runwayRedeemedPeriod === undefined ? {} : { runwayRedeemedPeriod: profile.known.runwayRedeemedPeriod }),
    },
    permission: permissionFactsOf(profile, read),
    ...(profile.rotationAwaits ? { rotation: rotationWaitOf(profile) } : {}),
  }
}
