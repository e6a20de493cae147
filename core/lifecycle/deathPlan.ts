// The death protocol, run once a Golem is Terminal, its grant has ended or its owner revoked it.
// Irreversible and resumable: every step is a store slot, so a crashed or retried tick continues where
// the last one stopped. The order is the rule:
//   1. settle what the Golem holds open in the owner's account (core/lifecycle/windDownPlan.ts): redeem its
//      vault shares, revoke its allowances while the phase still allows approve; best effort, so a sudden
//      death (revocation, expiry) settles what the grant still lets it and lists the rest as left open
//   2. post Terminal on the VitalityOracle (the Golem's key reports it with score 0; the operator's reset
//      when the key cannot pay), so the oracle, and the death event the indexer reads, end in Terminal
//   3. deregister on the VitalityOracle with the operator key: every Bardo delegation of the Golem then
//      refuses everything (GolemPhase: GolemNotRegistered), so nothing the owner has not disabled yet can
//      still be redeemed while the rest of the protocol runs
//   4. disable every sub-delegation the Golem signed (its Replicants die with it)
//   5. return the key's unspent funds to the owner's account: every runway token first (their gas is
//      paid from the key's ETH), the ETH last, less that transfer's own gas
//   6. zero the key: after this nothing can be signed for the Golem, ever
//   7. write the DeathSettlement record (write-once), then the Golem is dead
// Step 6 is reached only once every sub-delegation is disabled and every return is settled, so a
// resumed protocol lists them all.
import type { Address, Hex } from 'viem'
import { ownerOf } from '../custody/golemPolicy.ts'
import { Phase, phaseNames } from './phase.ts'
import type { GolemProfile } from './profile.ts'
import type { PositionLeftOpen, PositionSettled } from './windDownPlan.ts'

export const KEY_ZEROED_STEP = 'death-key-zeroed'

/** Step 2's slot for the Golem's own post of Terminal. */
export const TERMINAL_STEP = 'death-terminal'

/** Step 2's slot for one attempt of the operator's reset to Terminal, when the key could not post it. */
export function terminalResetStep(attempt: number): string {
  return attemptStep('death-terminal-reset', attempt)
}

/** The survival score a dead Golem reports with Terminal: nothing of its life is left. */
export const FINAL_SURVIVAL_SCORE_BPS = 0

/**
 * What step 2 still has to post: nothing for a Golem the oracle no longer lists (an earlier attempt
 * deregistered it) or holds at Terminal with the final score; the score alone for one whose own post of
 * Terminal started the death; else the phase.
 */
export function terminalPostNeeded(read: { registered: boolean; phase: Phase; survivalScoreBps: number }): 'none' | 'score' | 'phase' {
  if (!read.registered) return 'none'
  if (read.phase !== Phase.Terminal) return 'phase'
  return read.survivalScoreBps === FINAL_SURVIVAL_SCORE_BPS ? 'none' : 'score'
}

/** The reason the operator's reset records on the oracle when the key could not post Terminal itself. */
export function terminalResetReason(read: { disabled: boolean }): string {
  return `death: ${deathCause(read) === 'OwnerRevocation' ? 'the owner revoked the grant' : 'its life ran out'}`
}

/**
 * The operator's attempts at one death step (its reset to Terminal, the deregistration) in one tick,
 * before the tick reports the death as pending; each is one operator transaction at most.
 */
export const MAX_DEREGISTER_ATTEMPTS = 5

/**
 * Attempt slots of an operator death step that earlier ticks spent (their nonce taken by another operator
 * transaction, or refused) and a tick passes over to reach a fresh one: the step is tried again on every
 * tick, not given up after its first ticks' attempts, while each tick's reads stay bounded.
 */
export const MAX_SPENT_OPERATOR_ATTEMPTS = 50

export type DisableStep = { step: string; hash: Hex; delegation: GolemProfile['replicants'][number]['delegation'] }

/** Step 4's slots, one per sub-delegation, in the order the Golem signed them. */
export function disableSteps(profile: GolemProfile): DisableStep[] {
  return profile.replicants.map((r, index) => ({ step: `death-disable-${index}`, hash: r.hash, delegation: r.delegation }))
}

/**
 * Step 3's slot for one attempt. The operator key is shared by every tick, so an attempt can lose its
 * nonce to another operator transaction (its slot ends `reconciled`, nothing deregistered): the next
 * attempt gets a fresh slot while the oracle still lists the Golem.
 */
export function deregisterStep(attempt: number): string {
  return attemptStep('death-deregister', attempt)
}

/** A retried step's slot: the first attempt keeps the plain name, so slots written before stay valid. */
function attemptStep(base: string, attempt: number): string {
  return attempt === 0 ? base : `${base}-${attempt}`
}

/** Step 5's attempts per asset: an attempt whose nonce another transaction took moved nothing, so a fresh one may follow. */
export const MAX_RETURN_ATTEMPTS = 3

export type ReturnAsset = { kind: 'token'; token: Address } | { kind: 'native' }

/** Step 5's assets in order: the runway token, then the key's ETH (which pays for the token's transfer). */
export function returnAssets(profile: Pick<GolemProfile, 'runway'>): ReturnAsset[] {
  return [{ kind: 'token', token: profile.runway.token }, { kind: 'native' }]
}

/** The slot of one return attempt (a token by its address prefix: steps are short); the first attempt keeps the plain name. */
export function returnStep(asset: ReturnAsset, attempt: number): string {
  return attemptStep(
    asset.kind === 'native' ? 'death-return-native' : `death-return-token-${asset.token.slice(2, 10).toLowerCase()}`,
    attempt,
  )
}

/**
 * Whether a token return is worth sending: nothing to send when the key holds none, and a transfer the
 * key cannot pay gas for is never broadcast (it would sit unmined and hold the death open); the tokens
 * are then recorded as stranded on the retired key.
 */
export function tokenReturnDecision(p: { balance: bigint; ethBalance: bigint; maxGasCost: bigint }): 'send' | 'empty' | 'no-gas' {
  if (p.balance === 0n) return 'empty'
  if (p.ethBalance < p.maxGasCost) return 'no-gas'
  return 'send'
}

/** The ETH a native return sends: the whole balance less the most its own gas can cost; dust stays. */
export function nativeReturnValue(balance: bigint, maxGasCost: bigint): bigint {
  return balance > maxGasCost ? balance - maxGasCost : 0n
}

/** One asset's line of the DeathSettlement record. Amounts are decimal strings of base units. */
export type FundsReturn = {
  asset: Address | 'native'
  status: 'returned' | 'empty' | 'stranded'
  amount: string
  txHash: Hex | null
  reason?: string
}

export function returnedLine(asset: ReturnAsset, amount: bigint, txHash: Hex): FundsReturn {
  return { asset: asset.kind === 'native' ? 'native' : asset.token, status: 'returned', amount: amount.toString(), txHash }
}

export function unsentLine(asset: ReturnAsset, status: 'empty' | 'stranded', amount: bigint, reason?: string): FundsReturn {
  return {
    asset: asset.kind === 'native' ? 'native' : asset.token,
    status,
    amount: amount.toString(),
    txHash: null,
    ...(reason === undefined ? {} : { reason }),
  }
}

/** An owner's disable of the grant killed it; otherwise its life ran out. */
export function deathCause(read: { disabled: boolean }): 'OwnerRevocation' | 'NaturalExpiry' {
  return read.disabled ? 'OwnerRevocation' : 'NaturalExpiry'
}

/** What a DelegationExpiry death settled, as the DeathSettlement record of step 7 holds it. */
export type DelegationExpirySettlement = {
  delegationHash: string
  expiryCause: 'OwnerRevocation' | 'NaturalExpiry'
  /** Every position wind-down closed, with the transaction that closed it (its Declining ticks' included). */
  positionsSettled: PositionSettled[]
  /** What it could not close at death, and why: the owner closes it from their account. */
  positionsLeftOpen: PositionLeftOpen[]
  subDelegationsDisabled: string[]
  deregisterTx: Hex | null
  sessionKeyZeroed: true
  finalPhase: string
  sessionKey: string
  /** The owner's account the unspent funds went to, and what each asset's return did. */
  owner: Address
  fundsReturned: FundsReturn[]
}

/** The DeathSettlement record of step 7. */
export function deathSettlementOf(
  profile: GolemProfile,
  read: { disabled: boolean; phase: Phase },
  done: {
    positionsSettled: readonly PositionSettled[]
    positionsLeftOpen: readonly PositionLeftOpen[]
    subDelegationsDisabled: readonly Hex[]
    deregisterTx: Hex | null
    fundsReturned: readonly FundsReturn[]
  },
): DelegationExpirySettlement {
  return {
    delegationHash: profile.runway.chainHashes[0] as string,
    expiryCause: deathCause(read),
    positionsSettled: done.positionsSettled.map((p) => ({ ...p })),
    positionsLeftOpen: done.positionsLeftOpen.map((p) => ({ ...p })),
    subDelegationsDisabled: [...done.subDelegationsDisabled],
    deregisterTx: done.deregisterTx,
    sessionKeyZeroed: true,
    finalPhase: phaseNames[Math.min(read.phase, 4)] ?? 'Terminal',
    sessionKey: profile.golemKey,
    owner: ownerOf(profile),
    fundsReturned: done.fundsReturned.map((f) => ({ ...f })),
  }
}
