// Ponder config: one chain chosen by BARDO_CHAIN_ID (local anvil by default, Base 8453 or Base Sepolia
// 84532 by configuration) and the Bardo contracts on it. See docs/indexer.md for every variable.
import { createConfig } from 'ponder'
import { getSmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import { loadIndexerSettings } from './lib/settings.ts'
import {
  daimonOracleEvents,
  dailySpendLimitEvents,
  delegationManagerEvents,
  dreamOracleEvents,
  entryPointCouncilEvents,
  erc20PeriodTransferEvents,
  golemPhaseEnforcerEvents,
  nativeTokenPeriodTransferEvents,
  replicantBudgetEvents,
  vitalityOracleEvents,
} from './lib/abis.ts'

export const settings = loadIndexerSettings(process.env, (chainId) => getSmartAccountsEnvironment(chainId))
const { addresses, startBlock } = settings
const chain = settings.chainName
// Only the named councils' operations: the EntryPoint carries every smart account's on the chain.
const councils = settings.councils
const councilFilter =
  councils.length === 0
    ? {}
    : {
        filter: [
          { event: 'UserOperationEvent' as const, args: { sender: councils } },
          { event: 'UserOperationRevertReason' as const, args: { sender: councils } },
        ],
      }

export default createConfig({
  database: settings.database,
  ordering: 'omnichain',
  chains: {
    [chain]: {
      id: settings.chainId,
      rpc: settings.rpcUrl,
      pollingInterval: settings.pollingInterval,
      ...(settings.ethGetLogsBlockRange === undefined ? {} : { ethGetLogsBlockRange: settings.ethGetLogsBlockRange }),
    },
  },
  contracts: {
    VitalityOracle: { chain, abi: vitalityOracleEvents, address: addresses.vitalityOracle, startBlock },
    DreamOracle: { chain, abi: dreamOracleEvents, address: addresses.dreamOracle, startBlock },
    DaimonOracle: { chain, abi: daimonOracleEvents, address: addresses.daimonOracle, startBlock },
    DelegationManager: { chain, abi: delegationManagerEvents, address: addresses.delegationManager, startBlock },
    DailySpendLimitEnforcer: { chain, abi: dailySpendLimitEvents, address: addresses.enforcers.dailySpendLimit, startBlock },
    ReplicantBudgetEnforcer: { chain, abi: replicantBudgetEvents, address: addresses.enforcers.replicantBudget, startBlock },
    GolemPhaseEnforcer: { chain, abi: golemPhaseEnforcerEvents, address: addresses.enforcers.golemPhase, startBlock },
    ERC20PeriodTransferEnforcer: {
      chain,
      abi: erc20PeriodTransferEvents,
      address: addresses.enforcers.erc20PeriodTransfer,
      startBlock,
    },
    NativeTokenPeriodTransferEnforcer: {
      chain,
      abi: nativeTokenPeriodTransferEvents,
      address: addresses.enforcers.nativeTokenPeriodTransfer,
      startBlock,
    },
    EntryPoint: { chain, abi: entryPointCouncilEvents, address: addresses.entryPoint, startBlock, ...councilFilter },
  },
})
