// Reads, for each position a removal names, what MaxSlippage reads before it lets the removal through:
// the position's tokens and fee, the pool its manager's factory names for them, and the pool's price.
// Each read depends on the one before, so they are three deployless multicalls (every position at once,
// all at the observation's block), not one call per position.
import { zeroAddress, type Address, type PublicClient } from 'viem'
import { INonfungiblePositionManagerViewsAbi, IUniswapV3FactoryViewsAbi, IUniswapV3PoolViewsAbi } from '../../contracts/artifacts/index.ts'
import { deploylessMulticall } from '../../adapters/chain/deploylessMulticall.ts'
import { removalKey, type ObservationNeeds, type RemovalPool } from '../../core/actions/index.ts'

export async function readRemovalPools(
  client: Pick<PublicClient, 'request' | 'getCode'>,
  removals: ObservationNeeds['removals'],
  blockNumber: bigint,
): Promise<Map<string, RemovalPool>> {
  const out = new Map<string, RemovalPool>()
  if (removals.length === 0) return out
  const at = { allowFailure: true, blockNumber } as const
  const first = await deploylessMulticall(client, {
    ...at,
    contracts: removals.flatMap((r) => [
      { address: r.positionManager, abi: INonfungiblePositionManagerViewsAbi, functionName: 'positions', args: [r.tokenId] } as const,
      { address: r.positionManager, abi: INonfungiblePositionManagerViewsAbi, functionName: 'factory' } as const,
    ]),
  })
  const positions = removals.map((r, i) => {
    const [position, factory] = [first[2 * i]!, first[2 * i + 1]!]
    if (position.status !== 'success' || factory.status !== 'success') return undefined
    const [, , token0, token1, fee] = position.result as readonly [bigint, Address, Address, Address, number, ...unknown[]]
    return { ...r, token0, token1, fee: Number(fee), factory: factory.result as Address }
  })
  const known = positions.filter((p) => p !== undefined)
  for (const [i, r] of removals.entries()) if (!positions[i]) out.set(removalKey(r.positionManager, r.tokenId), 'unreadable')
  if (known.length === 0) return out
  const pools = await deploylessMulticall(client, {
    ...at,
    contracts: known.map(
      (p) => ({ address: p.factory, abi: IUniswapV3FactoryViewsAbi, functionName: 'getPool', args: [p.token0, p.token1, p.fee] }) as const,
    ),
  })
  const prices = await deploylessMulticall(client, {
    ...at,
    contracts: pools.map((pool) => ({
      address: pool.status === 'success' ? (pool.result as Address) : zeroAddress,
      abi: IUniswapV3PoolViewsAbi,
      functionName: 'slot0',
    })),
  })
  for (const [i, p] of known.entries()) {
    const key = removalKey(p.positionManager, p.tokenId)
    const pool = pools[i]!
    if (pool.status !== 'success') {
      out.set(key, 'unreadable')
      continue
    }
    const slot0 = prices[i]!
    const base = { token0: p.token0, token1: p.token1, fee: p.fee, pool: pool.result as Address }
    if (slot0.status === 'success') out.set(key, { ...base, sqrtPriceX96: (slot0.result as readonly [bigint, ...unknown[]])[0] })
    // The enforcer refuses NoPool for an address without code; a pool whose slot0 reverts is the chain's to judge.
    else if (!(await client.getCode({ address: base.pool, blockNumber }))) out.set(key, { ...base, sqrtPriceX96: undefined })
    else out.set(key, 'unreadable')
  }
  return out
}
