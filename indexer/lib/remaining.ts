// What a delegation still allows, from the views its caveats' enforcers expose: DailySpendLimit's
// remainingToday, ReplicantBudget's remaining, the time windows' timeRemaining and the framework's
// period enforcers' getAvailableAmount. This module plans the reads and shapes the answers; the read
// API (src/api/routes.ts) performs them at the chain's latest block.
import type { Address, Hex } from 'viem'
import { ERC20PeriodTransferEnforcer, NativeTokenPeriodTransferEnforcer } from '@metamask/delegation-abis'
import {
  DailySpendLimitEnforcerAbi,
  GolemPhaseEnforcerAbi,
  MortalityTimeWindowEnforcerAbi,
  ReplicantBudgetEnforcerAbi,
} from '../../contracts/artifacts/index.ts'

export type RemainingView =
  | { kind: 'daily-spend-limit'; enforcer: Address; remainingUsd6: bigint; resetsAt: bigint }
  | { kind: 'replicant-budget'; enforcer: Address; remainingUsd6: bigint; remainingSeconds: bigint }
  | { kind: 'golem-phase' | 'mortality-time-window'; enforcer: Address; timeRemaining: bigint }
  | { kind: 'erc20-period' | 'native-period'; enforcer: Address; availableAmount: bigint; isNewPeriod: boolean; currentPeriod: bigint }

/** One view call: a viem readContract request and how to turn its result into a RemainingView. */
export type RemainingRead = {
  request: { address: Address; abi: readonly unknown[]; functionName: string; args: readonly unknown[] }
  shape(result: unknown): RemainingView
}

/** Normalised enforcer names (lower case, no "Enforcer") the indexer's settings key addresses by. */
const VIEWS: Record<string, (enforcer: Address, terms: Hex, dm: Address, hash: Hex) => RemainingRead> = {
  dailyspendlimit: (enforcer, terms, dm, hash) => ({
    request: { address: enforcer, abi: DailySpendLimitEnforcerAbi, functionName: 'remainingToday', args: [dm, hash, terms] },
    shape: (r) => {
      const [remainingUsd6, resetsAt] = r as readonly [bigint, bigint]
      return { kind: 'daily-spend-limit', enforcer, remainingUsd6, resetsAt }
    },
  }),
  replicantbudget: (enforcer, terms, dm, hash) => ({
    request: { address: enforcer, abi: ReplicantBudgetEnforcerAbi, functionName: 'remaining', args: [dm, hash, terms] },
    shape: (r) => {
      const [remainingUsd6, remainingSeconds] = r as readonly [bigint, bigint]
      return { kind: 'replicant-budget', enforcer, remainingUsd6, remainingSeconds }
    },
  }),
  golemphase: (enforcer, terms) => ({
    request: { address: enforcer, abi: GolemPhaseEnforcerAbi, functionName: 'timeRemaining', args: [terms] },
    shape: (r) => ({ kind: 'golem-phase', enforcer, timeRemaining: r as bigint }),
  }),
  mortalitytimewindow: (enforcer, terms) => ({
    request: { address: enforcer, abi: MortalityTimeWindowEnforcerAbi, functionName: 'timeRemaining', args: [terms] },
    shape: (r) => ({ kind: 'mortality-time-window', enforcer, timeRemaining: r as bigint }),
  }),
  erc20periodtransfer: (enforcer, terms, dm, hash) => periodRead('erc20-period', ERC20PeriodTransferEnforcer, enforcer, terms, dm, hash),
  nativetokenperiodtransfer: (enforcer, terms, dm, hash) =>
    periodRead('native-period', NativeTokenPeriodTransferEnforcer, enforcer, terms, dm, hash),
}

function periodRead(
  kind: 'erc20-period' | 'native-period',
  abi: readonly unknown[],
  enforcer: Address,
  terms: Hex,
  dm: Address,
  hash: Hex,
): RemainingRead {
  return {
    request: { address: enforcer, abi, functionName: 'getAvailableAmount', args: [hash, dm, terms] },
    shape: (r) => {
      const [availableAmount, isNewPeriod, currentPeriod] = r as readonly [bigint, boolean, bigint]
      return { kind, enforcer, availableAmount, isNewPeriod, currentPeriod }
    },
  }
}

/**
 * The reads for a delegation's caveats whose enforcer has a remaining-budget view; `names` maps a
 * lower-case enforcer address to its normalised name. Caveats of other enforcers have nothing to read.
 */
export function remainingReads(
  caveats: readonly { enforcer: string; terms: string }[],
  names: Readonly<Record<string, string>>,
  delegationManager: Address,
  delegationHash: Hex,
): RemainingRead[] {
  const reads: RemainingRead[] = []
  for (const caveat of caveats) {
    const name = names[caveat.enforcer.toLowerCase()]
    const view = name === undefined ? undefined : VIEWS[name]
    if (view !== undefined) reads.push(view(caveat.enforcer as Address, caveat.terms as Hex, delegationManager, delegationHash))
  }
  return reads
}
