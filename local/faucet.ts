// The local faucet behind `npm run faucet -- <address> [usdc] [eth]`: sends test USDC and ETH to any
// address on the running local stack from the faucet account's reserve, so a payer with a fresh key can pay the API with a stock x402
// client. It reads the stack's addresses from <BARDO_STATE_DIR>/stack.json, written by `npm start`.
import { join, resolve } from 'node:path'
import { createPublicClient, createWalletClient, http, isAddress, getAddress, parseEther, parseUnits, type Address } from 'viem'
import { TestUSDCAbi } from '../contracts/artifacts/index.ts'
import { FAUCET_ACCOUNT_INDEX, devnetAccount, localChain } from './devnet.ts'
import { findStackInfo, type StackInfo } from './stackFile.ts'

export type FaucetRequest = { to: Address; usdc: bigint; eth: bigint }

export type { StackInfo } from './stackFile.ts'

export const DEFAULT_FAUCET_USDC = '100'
export const DEFAULT_FAUCET_ETH = '1'
/** Caps keep a typo from minting absurd amounts into a demo. */
const MAX_USDC = parseUnits('1000000', 6)
const MAX_ETH = parseEther('100')

export class FaucetUsageError extends Error {}

/** Parses `<address> [usdc] [eth]` (decimal amounts in token units). */
export function parseFaucetArgs(args: readonly string[]): FaucetRequest {
  const [to, usdc = DEFAULT_FAUCET_USDC, eth = DEFAULT_FAUCET_ETH] = args
  if (!to || !isAddress(to, { strict: false }))
    throw new FaucetUsageError(`address: must be a 20-byte hex address, got ${to ?? '(nothing)'}`)
  const amount = (field: string, raw: string, decimals: number, max: bigint) => {
    if (!/^\d+(\.\d+)?$/.test(raw)) throw new FaucetUsageError(`${field}: must be a decimal amount, got ${raw}`)
    const v = parseUnits(raw, decimals)
    if (v > max) throw new FaucetUsageError(`${field}: must be at most ${max / 10n ** BigInt(decimals)}, got ${raw}`)
    return v
  }
  return { to: getAddress(to), usdc: amount('usdc', usdc, 6, MAX_USDC), eth: amount('eth', eth, 18, MAX_ETH) }
}

export function readStackInfo(stateDir: string = resolve(process.env.BARDO_STATE_DIR ?? '.bardo')): StackInfo {
  const info = findStackInfo(stateDir)
  if (!info)
    throw new FaucetUsageError(
      `${join(stateDir, 'stack.json')}: not found; start the local stack first (npm start), with the same BARDO_STATE_DIR`,
    )
  return info
}

/**
 * Sends from the faucet's own account (anvil account 7, given its USDC reserve at deployment), never from an
 * account the running stack signs with, and waits for both transactions.
 */
export async function fund(stack: StackInfo, request: FaucetRequest): Promise<{ usdcBalance: bigint; ethBalance: bigint }> {
  const chain = localChain(stack.rpcUrl, stack.chainId)
  const transport = http(stack.rpcUrl)
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 50 })
  const wallet = createWalletClient({ account: devnetAccount(FAUCET_ACCOUNT_INDEX), chain, transport })
  if (request.usdc > 0n) {
    const hash = await wallet.writeContract({
      address: stack.usdc,
      abi: TestUSDCAbi,
      functionName: 'transfer',
      args: [request.to, request.usdc],
    })
    await publicClient.waitForTransactionReceipt({ hash })
  }
  if (request.eth > 0n) {
    const hash = await wallet.sendTransaction({ to: request.to, value: request.eth })
    await publicClient.waitForTransactionReceipt({ hash })
  }
  const [usdcBalance, ethBalance] = await Promise.all([
    publicClient.readContract({ address: stack.usdc, abi: TestUSDCAbi, functionName: 'balanceOf', args: [request.to] }) as Promise<bigint>,
    publicClient.getBalance({ address: request.to }),
  ])
  return { usdcBalance, ethBalance }
}
