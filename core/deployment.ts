// Where Bardo and the MetaMask framework live on one chain. Produced by the local devnet, or by
// configuration for real chains (the framework's addresses from getSmartAccountsEnvironment).
import type { Address } from 'viem'
import type { SmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import { InvariantError } from './errors.ts'

export type BardoEnforcerName =
  | 'golemPhase'
  | 'mortalityTimeWindow'
  | 'dreamMode'
  | 'vaultNav'
  | 'replicantBudget'
  | 'maxSlippage'
  | 'dailySpendLimit'
  | 'emotionalState'
  | 'knowledgeRoyalty'

export const bardoEnforcerNames: readonly BardoEnforcerName[] = [
  'golemPhase',
  'mortalityTimeWindow',
  'dreamMode',
  'vaultNav',
  'replicantBudget',
  'maxSlippage',
  'dailySpendLimit',
  'emotionalState',
  'knowledgeRoyalty',
] as const

/** Test assets exist only on the local devnet. */
export type LocalAssets = {
  usdc: Address
  weth: Address
  ethUsdFeed: Address
  usdcUsdFeed: Address
  vault: Address
  router: Address
}

export type BardoDeployment = {
  chainId: number
  /** The MetaMask Delegation Framework (DelegationManager, EntryPoint, standard enforcers). */
  environment: SmartAccountsEnvironment
  vitalityOracle: Address
  dreamOracle: Address
  daimonOracle: Address
  /** Each Golem's constitution hash (PolicyCage); absent on deployments made before it. */
  policyCage?: Address
  /** The nine enforcers, and the PolicyCageEnforcer (optional: deployments made before it still parse). */
  enforcers: Record<BardoEnforcerName, Address> & { policyCage?: Address }
  /** Block at which the Bardo contracts were deployed (the indexer starts here). */
  startBlock: bigint
  assets?: LocalAssets
}

/**
 * The framework contracts a tick calls: the DelegationManager it redeems and disables through, and of the
 * enforcers only those it reads (TICK_ENFORCERS; the kit types enforcers as a record by name, and a
 * deployed tick's holds just these).
 */
export type TickFramework = Pick<SmartAccountsEnvironment, 'DelegationManager' | 'caveatEnforcers'>

/** The enforcers a tick reads, by the kit's names. */
export const TICK_ENFORCERS = [
  'ERC20PeriodTransferEnforcer',
  'NativeTokenPeriodTransferEnforcer',
  // A payment by delegation from the owner's grant is built from these.
  'ValueLteEnforcer',
  'ERC20TransferAmountEnforcer',
  'RedeemerEnforcer',
  'AllowedCalldataEnforcer',
  // Wind-down reads from the action grant which vaults and approvals the Golem may hold open.
  'AllowedTargetsEnforcer',
  'AllowedMethodsEnforcer',
] as const

/**
 * A deployment as a tick sees it: every Bardo contract, and of the framework only what a tick calls. The
 * deployed tick gets these addresses from the stack instead of bundling the kit's table of every chain's
 * framework.
 */
export type TickDeployment = Omit<BardoDeployment, 'environment'> & { environment: TickFramework }

/** The tick's part of a framework environment. */
export function tickFrameworkOf(environment: SmartAccountsEnvironment): TickFramework {
  const caveatEnforcers: Record<string, Address> = {}
  for (const name of TICK_ENFORCERS) {
    const address = environment.caveatEnforcers[name]
    if (address === undefined) throw new InvariantError('FRAMEWORK_MISSING', `deployment: the framework has no ${name}`)
    caveatEnforcers[name] = address
  }
  return { DelegationManager: environment.DelegationManager, caveatEnforcers }
}
