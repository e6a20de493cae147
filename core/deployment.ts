// Where Bardo and the MetaMask framework live on one chain. Produced by the local devnet, or by
// configuration for real chains (the framework's addresses from getSmartAccountsEnvironment).
import type { Address } from 'viem'
import type { SmartAccountsEnvironment } from '@metamask/smart-accounts-kit'

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
  enforcers: Record<BardoEnforcerName, Address>
  /** Block at which the Bardo contracts were deployed (the indexer starts here). */
  startBlock: bigint
  assets?: LocalAssets
}
