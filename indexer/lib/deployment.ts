// The one place the indexer's deployment is built from where Bardo and the framework live on a chain.
// `npm start` (local/runner.ts), the deployment (stacks/config.ts) and the tests all call it, so none of
// them can index fewer contracts or value spend differently from the others.
import { zeroAddress, type Address } from 'viem'
import { bardoEnforcerNames, type BardoDeployment, type BardoEnforcerName, type LocalAssets } from '../../core/deployment.ts'
import { deploymentJson, type DeploymentJson } from '../../core/deploymentSchema.ts'
import { PUBLIC_ADDRESSES } from '../../core/permissions/protocolRegistry.ts'
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
  enforcers?: Partial<Record<BardoEnforcerName, Address>> | undefined
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

/**
 * The deployment the indexer is given, as JSON holds it: every Bardo contract, the framework's
 * DelegationManager, EntryPoint and caveat enforcers (the indexer listens to the two period ones and names
 * the rest), and the USD prices.
 */
export function toIndexerDeployment(d: IndexerSource): DeploymentJson {
  const enforcers: Partial<Record<BardoEnforcerName, Address>> = {}
  for (const name of bardoEnforcerNames) {
    const value = d.enforcers?.[name]
    if (value !== undefined) enforcers[name] = value
  }
  const prices = { ...defaultPrices(d.chainId, d.assets) }
  for (const [token, price] of Object.entries(d.prices ?? {})) prices[token.toLowerCase()] = price
  const caveatEnforcers: Record<string, Address> = {}
  for (const [name, value] of Object.entries(d.environment.caveatEnforcers)) if (value !== undefined) caveatEnforcers[name] = value
  return deploymentJson({
    chainId: d.chainId,
    ...(d.startBlock === undefined ? {} : { startBlock: BigInt(d.startBlock) }),
    environment: {
      DelegationManager: d.environment.DelegationManager,
      ...(d.environment.EntryPoint === undefined ? {} : { EntryPoint: d.environment.EntryPoint }),
      caveatEnforcers,
    },
    ...(d.vitalityOracle === undefined ? {} : { vitalityOracle: d.vitalityOracle }),
    ...(d.dreamOracle === undefined ? {} : { dreamOracle: d.dreamOracle }),
    ...(d.daimonOracle === undefined ? {} : { daimonOracle: d.daimonOracle }),
    enforcers,
    prices,
    ...(d.councils !== undefined && d.councils.length > 0 ? { councils: [...d.councils] } : {}),
  })
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
