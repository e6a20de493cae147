// Event-only ABIs for the contracts the indexer listens to. Bardo's come from the generated artifacts
// (contracts/build.ts), the framework's from @metamask/delegation-abis; keeping only events keeps
// Ponder's decoder small and makes the indexer independent of function or error changes.
import type { Abi } from 'viem'
import { entryPoint07Abi } from 'viem/account-abstraction'
import { DelegationManager, ERC20PeriodTransferEnforcer, NativeTokenPeriodTransferEnforcer } from '@metamask/delegation-abis'
import {
  DaimonOracleAbi,
  DailySpendLimitEnforcerAbi,
  DreamOracleAbi,
  GolemPhaseEnforcerAbi,
  ReplicantBudgetEnforcerAbi,
  VitalityOracleAbi,
} from '../../contracts/artifacts/index.ts'

type EventsOf<abi extends Abi> = Extract<abi[number], { type: 'event' }>[]

function eventsOf<const abi extends Abi>(abi: abi): EventsOf<abi> {
  return abi.filter((item) => item.type === 'event') as EventsOf<abi>
}

export const vitalityOracleEvents = eventsOf(VitalityOracleAbi)
export const dreamOracleEvents = eventsOf(DreamOracleAbi)
export const daimonOracleEvents = eventsOf(DaimonOracleAbi)
export const delegationManagerEvents = eventsOf(DelegationManager)
export const dailySpendLimitEvents = eventsOf(DailySpendLimitEnforcerAbi)
export const replicantBudgetEvents = eventsOf(ReplicantBudgetEnforcerAbi)
export const golemPhaseEnforcerEvents = eventsOf(GolemPhaseEnforcerAbi)
export const erc20PeriodTransferEvents = eventsOf(ERC20PeriodTransferEnforcer)
export const nativeTokenPeriodTransferEvents = eventsOf(NativeTokenPeriodTransferEnforcer)
/** The EntryPoint's two events about one user operation's outcome (listened to for named councils only). */
type OutcomeEvent = Extract<EventsOf<typeof entryPoint07Abi>[number], { name: 'UserOperationEvent' | 'UserOperationRevertReason' }>
export const entryPointCouncilEvents = eventsOf(entryPoint07Abi).filter(
  (e): e is OutcomeEvent => e.name === 'UserOperationEvent' || e.name === 'UserOperationRevertReason',
)
