// The heartbeat suites' Uniswap V3 positions: a position manager stand-in deployed on the devnet, an
// owner holding WETH to provide with, the provideLiquidity request for the USDC/WETH pair (the manager
// takes its tokens sorted, as Uniswap's does), and what the receipts moved in or out of the owner's account.
import { erc20Abi, isAddressEqual, parseEventLogs, type Address, type Hex, type PublicClient } from 'viem'
import { TestPositionManagerAbi, TestPositionManagerBytecode, TestTokenAbi } from '../../contracts/artifacts/index.ts'
import type { ActionRequest } from '../../core/actions/actionCall.ts'
import type { HeartbeatEnv } from './harness.ts'

type Assets = HeartbeatEnv['devnet']['deployment']['assets']

/** Deploys a fresh position manager stand-in (its pools created by their first mint). */
export async function deployPositionManager(env: HeartbeatEnv): Promise<Address> {
  const deployed = await env.client.waitForTransactionReceipt({
    hash: await env.devnet.deployer.deployContract({ abi: TestPositionManagerAbi, bytecode: TestPositionManagerBytecode }),
  })
  return deployed.contractAddress!
}

/** Mints the devnet's test WETH to `to`. */
export async function mintWeth(env: HeartbeatEnv, to: Address, amount: bigint): Promise<void> {
  await env.client.waitForTransactionReceipt({
    hash: await env.devnet.deployer.writeContract({
      address: env.devnet.deployment.assets.weth,
      abi: TestTokenAbi,
      functionName: 'mint',
      args: [to, amount],
    }),
  })
}

/** USDC and WETH in the manager's order (token0 < token1). */
export const sortedPair = (assets: Assets) =>
  (BigInt(assets.usdc) < BigInt(assets.weth) ? [assets.usdc, assets.weth] : [assets.weth, assets.usdc]) as [Address, Address]

/**
 * A USDC/WETH position of `usdc` and `weth` in the `fee` pool, ticks -600..600, its minimums `minBps` of
 * the amounts (10000: exactly the amounts).
 */
export function provideUsdcWeth(p: {
  manager: Address
  assets: Assets
  fee: number
  usdc: bigint
  weth: bigint
  minBps: bigint
}): Extract<ActionRequest, { kind: 'provideLiquidity' }> {
  const [token0, token1] = sortedPair(p.assets)
  const amountOf = (token: Address) => (token === p.assets.usdc ? p.usdc : p.weth)
  return {
    kind: 'provideLiquidity',
    positionManager: p.manager,
    token0,
    token1,
    fee: p.fee,
    tickLower: -600,
    tickUpper: 600,
    amount0Desired: amountOf(token0),
    amount1Desired: amountOf(token1),
    amount0Min: (amountOf(token0) * p.minBps) / 10_000n,
    amount1Min: (amountOf(token1) * p.minBps) / 10_000n,
  }
}

/** What went out of (negative) or came into `account` in `token` by the transactions of `hashes`. */
export async function accountFlow(client: PublicClient, account: Address, token: Address, hashes: readonly Hex[]): Promise<bigint> {
  let flow = 0n
  for (const hash of hashes) {
    const { logs } = await client.getTransactionReceipt({ hash })
    for (const { address, args } of parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs })) {
      if (!isAddressEqual(address, token)) continue
      if (isAddressEqual(args.from, account)) flow -= args.value
      if (isAddressEqual(args.to, account)) flow += args.value
    }
  }
  return flow
}
