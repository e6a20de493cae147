import type { Address, Hex } from 'viem'
import type { BardoDeployment as FullDeployment, BardoEnforcerName } from '../deployment.ts'
import type { Constitution } from '../policy/constitution.ts'

/**
 * The part of core/deployment.ts's BardoDeployment that caveats need (oracles and the nine enforcer
 * addresses). Derived from it so the two never drift; a full deployment object fits as is.
 */
export type BardoDeployment = Pick<FullDeployment, 'vitalityOracle' | 'dreamOracle' | 'daimonOracle' | 'enforcers'>

/** GolemPhaseEnforcer action classes (bit masks), docs/contracts.md. */
export const ACTION_CLASS = {
  OPEN: 0x01,
  CLOSE: 0x02,
  TRANSFER: 0x04,
  SUBDELEGATION: 0x08,
  SETTLEMENT: 0x10,
} as const
export const ALL_ACTION_CLASSES = 0x1f

/** One mask per phase, Thriving first: byte i of the 25-byte GolemPhase terms. */
export type PhaseMasks = readonly [number, number, number, number, number]

/** The enforcer's defaults when the terms carry no masks (20-byte form). */
export const DEFAULT_PHASE_MASKS: PhaseMasks = [0x1f, 0x17, 0x16, 0x16, 0x10]

/** A token the USD enforcers can price; `token` 0x0 is native ETH (decimals 18). */
export type TokenFeed = { token: Address; decimals: number; feed: Address }

/**
 * The delegation's life window as GolemPhase's 36/41-byte terms carry it: unix seconds, inclusive at both
 * ends (MortalityTimeWindow's rule), each a uint64, `startTime <= endTime`.
 */
export type LifeWindow = { startTime: bigint; endTime: bigint }

/**
 * What runway terms allow, Thriving first: the defaults cut down to TRANSFER (plus the SUBDELEGATION bit a
 * re-delegated redemption needs), so nothing in Terminal. The enforcer's RUNWAY_PHASE_MASKS.
 */
export const RUNWAY_PHASE_MASKS: PhaseMasks = [0x0c, 0x04, 0x04, 0x04, 0x00]

/** The largest bound runway terms can carry: their window is two uint48s. */
export const MAX_RUNWAY_TIME = (1n << 48n) - 1n

/**
 * The phase gate, optionally with the life window (both bounds or neither). `runway: true` is the 32-byte
 * runway shape: the Golem and its window (each bound a uint48), one plain transfer per redemption (an
 * ERC-20 `transfer` or empty calldata, single call), checked without the selector table; its effective
 * masks are RUNWAY_PHASE_MASKS (decoded caveats carry them as `phaseMasks`).
 */
export type GolemPhaseCaveat = { type: 'golemPhase'; golem: Address; phaseMasks?: PhaseMasks } & (
  | (LifeWindow & { runway?: boolean })
  | { startTime?: undefined; endTime?: undefined; runway?: undefined }
)
export type MortalityTimeWindowCaveat = { type: 'mortalityTimeWindow'; startTime: bigint; endTime: bigint }
export type DreamModeCaveat = { type: 'dreamMode'; golem: Address }
export type EmotionalStateCaveat = {
  type: 'emotionalState'
  golem: Address
  minPleasure: number
  maxArousal: number
  minDominance: number
  restrictedSelectors: readonly Hex[]
}
export type VaultNavCaveat = { type: 'vaultNav'; vault: Address; maxNavBps: number }
export type DailySpendLimitCaveat = {
  type: 'dailySpendLimit'
  /** USD with 6 decimals ($100 = 100_000_000n). */
  dailyLimitUsd: bigint
  maxPriceAge: number
  feeds: readonly TokenFeed[]
}
export type ReplicantBudgetCaveat = {
  type: 'replicantBudget'
  maxBudgetUsd: bigint
  maxLifespanSeconds: bigint
  maxPriceAge: number
  feeds: readonly TokenFeed[]
}
export type MaxSlippageCaveat = { type: 'maxSlippage'; maxSlippageBps: number; maxPriceAge: number; feeds: readonly TokenFeed[] }
export type KnowledgeRoyaltyCaveat = { type: 'knowledgeRoyalty'; token: Address; author: Address; royaltyBps: number }
/**
 * The owner's constitution bound on-chain (PolicyCageEnforcer): the PolicyCage that must hold its hash for
 * the Golem's key, and the feeds that price the portfolio's assets (an approved ERC-4626 vault without a
 * feed of its own is priced through its asset's).
 */
export type PolicyCageCaveat = {
  type: 'policyCage'
  policyCage: Address
  golem: Address
  maxPriceAge: number
  constitution: Constitution
  feeds: readonly TokenFeed[]
}

/** The terms of one of the nine Bardo enforcers, typed. */
export type BardoCaveat =
  | GolemPhaseCaveat
  | MortalityTimeWindowCaveat
  | DreamModeCaveat
  | EmotionalStateCaveat
  | VaultNavCaveat
  | DailySpendLimitCaveat
  | ReplicantBudgetCaveat
  | MaxSlippageCaveat
  | KnowledgeRoyaltyCaveat
  | PolicyCageCaveat

export type BardoCaveatType = BardoCaveat['type']
export type BardoCaveatOf<T extends BardoCaveatType> = Extract<BardoCaveat, { type: T }>

export const BARDO_CAVEAT_TYPES = [
  'golemPhase',
  'mortalityTimeWindow',
  'dreamMode',
  'emotionalState',
  'vaultNav',
  'dailySpendLimit',
  'replicantBudget',
  'maxSlippage',
  'knowledgeRoyalty',
  'policyCage',
] as const satisfies readonly BardoCaveatType[]

export const isBardoCaveatType = (type: string): type is BardoCaveatType => (BARDO_CAVEAT_TYPES as readonly string[]).includes(type)

// The caveat types are exactly the deployment's enforcer names, the optional policyCage included (a
// compile error here means they drifted).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const namesMatch: Same<BardoCaveatType, BardoEnforcerName | 'policyCage'> = true
void namesMatch
