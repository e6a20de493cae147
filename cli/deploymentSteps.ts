// The contracts `bardo deploy` puts on a chain, in order: where the deployment file keeps each one, what
// it is built from, and which contracts its constructor names (so a redeployed dependency redeploys it).
import type { Abi, Address, Hex } from 'viem'
import * as artifacts from '../contracts/artifacts/index.ts'

export type Deployable = { abi: Abi; bytecode: Hex }

/** One contract of the deployment: where the file keeps it, what it is built from, what it is built on. */
export type ContractStep = {
  path: string
  artifact: Deployable
  dependsOn: readonly string[]
  args: (addresses: Record<string, Address>) => readonly unknown[]
}

/** What the constructors are given. */
export type StepSettings = {
  operator: Address
  phaseTableOwner: Address
  sequencerUptimeFeed: Address
  sequencerGraceSeconds: bigint
  localAssets: boolean
}

function a(abi: Abi, bytecode: Hex): Deployable {
  return { abi, bytecode }
}

export function deploymentSteps(o: StepSettings): ContractStep[] {
  const x = artifacts
  const seq = [o.sequencerUptimeFeed, o.sequencerGraceSeconds] as const
  const bardo: ContractStep[] = [
    { path: 'vitalityOracle', artifact: a(x.VitalityOracleAbi, x.VitalityOracleBytecode), dependsOn: [], args: () => [o.operator] },
    { path: 'dreamOracle', artifact: a(x.DreamOracleAbi, x.DreamOracleBytecode), dependsOn: [], args: () => [] },
    { path: 'daimonOracle', artifact: a(x.DaimonOracleAbi, x.DaimonOracleBytecode), dependsOn: [], args: () => [] },
    {
      path: 'policyCage',
      artifact: a(x.PolicyCageAbi, x.PolicyCageBytecode),
      dependsOn: ['vitalityOracle'],
      args: (d) => [d.vitalityOracle],
    },
    {
      path: 'enforcers.golemPhase',
      artifact: a(x.GolemPhaseEnforcerAbi, x.GolemPhaseEnforcerBytecode),
      dependsOn: ['vitalityOracle'],
      args: (d) => [d.vitalityOracle, o.phaseTableOwner],
    },
    {
      path: 'enforcers.mortalityTimeWindow',
      artifact: a(x.MortalityTimeWindowEnforcerAbi, x.MortalityTimeWindowEnforcerBytecode),
      dependsOn: [],
      args: () => [],
    },
    {
      path: 'enforcers.dreamMode',
      artifact: a(x.DreamModeEnforcerAbi, x.DreamModeEnforcerBytecode),
      dependsOn: ['dreamOracle'],
      args: (d) => [d.dreamOracle],
    },
    { path: 'enforcers.vaultNav', artifact: a(x.VaultNAVEnforcerAbi, x.VaultNAVEnforcerBytecode), dependsOn: [], args: () => [] },
    {
      path: 'enforcers.replicantBudget',
      artifact: a(x.ReplicantBudgetEnforcerAbi, x.ReplicantBudgetEnforcerBytecode),
      dependsOn: [],
      args: () => seq,
    },
    { path: 'enforcers.maxSlippage', artifact: a(x.MaxSlippageEnforcerAbi, x.MaxSlippageEnforcerBytecode), dependsOn: [], args: () => [] },
    {
      path: 'enforcers.dailySpendLimit',
      artifact: a(x.DailySpendLimitEnforcerAbi, x.DailySpendLimitEnforcerBytecode),
      dependsOn: [],
      args: () => seq,
    },
    {
      path: 'enforcers.emotionalState',
      artifact: a(x.EmotionalStateEnforcerAbi, x.EmotionalStateEnforcerBytecode),
      dependsOn: ['daimonOracle'],
      args: (d) => [d.daimonOracle],
    },
    {
      path: 'enforcers.policyCage',
      artifact: a(x.PolicyCageEnforcerAbi, x.PolicyCageEnforcerBytecode),
      dependsOn: [],
      args: () => seq,
    },
    {
      path: 'enforcers.knowledgeRoyalty',
      artifact: a(x.KnowledgeRoyaltyEnforcerAbi, x.KnowledgeRoyaltyEnforcerBytecode),
      dependsOn: [],
      args: () => [],
    },
  ]
  if (!o.localAssets) return bardo
  return [
    ...bardo,
    { path: 'assets.usdc', artifact: a(x.TestUSDCAbi, x.TestUSDCBytecode), dependsOn: [], args: () => [] },
    { path: 'assets.weth', artifact: a(x.TestTokenAbi, x.TestTokenBytecode), dependsOn: [], args: () => ['Wrapped Ether', 'WETH', 18] },
    {
      path: 'assets.ethUsdFeed',
      artifact: a(x.MockPriceFeedAbi, x.MockPriceFeedBytecode),
      dependsOn: [],
      args: () => [8, 3_000n * 10n ** 8n, 'ETH / USD'],
    },
    {
      path: 'assets.usdcUsdFeed',
      artifact: a(x.MockPriceFeedAbi, x.MockPriceFeedBytecode),
      dependsOn: [],
      args: () => [8, 10n ** 8n, 'USDC / USD'],
    },
    { path: 'assets.vault', artifact: a(x.TestVaultAbi, x.TestVaultBytecode), dependsOn: ['assets.usdc'], args: (d) => [d['assets.usdc']] },
    { path: 'assets.router', artifact: a(x.TestSwapRouterAbi, x.TestSwapRouterBytecode), dependsOn: [], args: () => [] },
  ]
}
