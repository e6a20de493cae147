// The one place the indexer's deployment is built from where Bardo and the framework live on a chain.
// `npm start` (local/runner.ts), the deployment (stacks/config.ts) and the tests all call it, so none of
// them can index fewer contracts or value spend differently from the others.
import { zeroAddress, type Address } from 'viem'
import type { BardoDeployment, LocalAssets } from '../../core/deployment.ts'
import { PUBLIC_ADDRESSES } from '../../core/permissions/protocolRegistry.ts'
import type { IndexerDeployment } from './settings.ts'
import type { TokenPrice } from './usd.ts'

/** What the builder reads: a BardoDeployment, or the looser shape a deploy-time configuration gives. */
export type IndexerSource = {
  chainId: number
  /** The framework's DelegationManager and its period-transfer enforcers (the runway's caveats). */
  environment: Pick<BardoDeployment['environment'], 'DelegationManager' | 'caveatEnforcers'> &
    Partial<Pick<BardoDeployment['environment'], 'EntryPoint'>>
  vitalityOracle?: Address | undefined
  dreamOracle?: Address | undefined
  daimonOracle?: Address | undefined
  /** An explicit DelegationManager wins over the environment's. */
  delegationManager?: Address | undefined
  enforcers?: Partial<Record<string, Address>> | undefined
  startBlock?: bigint | number | undefined
  assets?: LocalAssets | undefined
  /** Added to (and overriding) the default prices. */
  prices?: Record<string, TokenPrice> | undefined
  /** The Coordination Councils whose executions are indexed (none by default). */
  councils?: readonly Address[] | undefined
}

/**
 * Default USD pricing: on the devnet its own feeds for USDC, WETH and native ETH; on Base and Base
 * Sepolia USDC at par (a deployment names Chainlink feeds in `prices` to value other tokens or ETH).
 */
export function defaultPrices(chainId: number, assets?: LocalAssets): Record<string, TokenPrice> {
  if (assets !== undefined) {
    return {
      [assets.usdc.toLowerCase()]: { decimals: 6, feed: assets.usdcUsdFeed },
      [assets.weth.toLowerCase()]: { decimals: 18, feed: assets.ethUsdFeed },
      [zeroAddress]: { decimals: 18, feed: assets.ethUsdFeed },
    }
  }
  const known = (PUBLIC_ADDRESSES as Record<number, { usdc: string } | undefined>)[chainId]
  return known === undefined ? {} : { [known.usdc.toLowerCase()]: { decimals: 6 } }
}

/** Every address the indexer listens to (all nine Bardo enforcers and the framework's two period enforcers) and the USD prices. */
export function toIndexerDeployment(d: IndexerSource): IndexerDeployment {
  const enforcers: Record<string, Address> = {}
  for (const [name, value] of Object.entries(d.enforcers ?? {})) if (value !== undefined) enforcers[name] = value
  const framework = d.environment.caveatEnforcers
  if (framework.ERC20PeriodTransferEnforcer !== undefined) enforcers.erc20PeriodTransfer = framework.ERC20PeriodTransferEnforcer
  if (framework.NativeTokenPeriodTransferEnforcer !== undefined)
    enforcers.nativeTokenPeriodTransfer = framework.NativeTokenPeriodTransferEnforcer
  const prices = { ...defaultPrices(d.chainId, d.assets) }
  for (const [token, price] of Object.entries(d.prices ?? {})) prices[token.toLowerCase()] = price
  const caveatEnforcers: Record<string, Address> = {}
  for (const [name, value] of Object.entries(framework)) if (value !== undefined) caveatEnforcers[name] = value
  const out: IndexerDeployment = {
    delegationManager: d.delegationManager ?? d.environment.DelegationManager,
    enforcers,
    prices,
    caveatEnforcers,
  }
  if (d.vitalityOracle !== undefined) out.vitalityOracle = d.vitalityOracle
  if (d.dreamOracle !== undefined) out.dreamOracle = d.dreamOracle
  if (d.daimonOracle !== undefined) out.daimonOracle = d.daimonOracle
  if (d.startBlock !== undefined) out.startBlock = Number(d.startBlock)
  if (d.environment.EntryPoint !== undefined) out.entryPoint = d.environment.EntryPoint
  if (d.councils !== undefined && d.councils.length > 0) out.councils = [...d.councils]
  return out
}

/**
 * Everything but the database that `startIndexer` needs for a running stack: what `npm start` passes and
 * what the tests pass, so a test indexes exactly what a user's local stack indexes.
 */
export function stackIndexerOptions(
  chain: { rpcUrl: string; deployment: IndexerSource & { startBlock: bigint } },
  options: { local: boolean },
) {
  return {
    rpcUrl: chain.rpcUrl,
    chainId: chain.deployment.chainId,
    deployment: toIndexerDeployment(chain.deployment),
    startBlock: chain.deployment.startBlock,
    // Local blocks come as fast as the demo sends them; a public chain's every two seconds.
    pollingInterval: options.local ? 250 : 2_000,
  }
}
