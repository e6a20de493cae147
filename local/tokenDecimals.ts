// Reads what each token's own decimals() returns, so a grant's price-feed entries can be checked
// against it before the owner signs (buildPlanGrant's usdCaps.tokenDecimals).
import { erc20Abi, getAddress, isAddressEqual, zeroAddress, type Address, type PublicClient } from 'viem'
import type { TokenDecimals } from '../core/permissions/index.ts'

/** The decimals() of every token (native ETH, the zero address, is skipped: it has no contract). */
export async function readTokenDecimals(client: Pick<PublicClient, 'readContract'>, tokens: readonly Address[]): Promise<TokenDecimals[]> {
  const erc20s = [...new Set(tokens.filter((t) => !isAddressEqual(t, zeroAddress)).map((t) => getAddress(t)))]
  return Promise.all(
    erc20s.map(async (token) => ({
      token,
      decimals: await client.readContract({ address: token, abi: erc20Abi, functionName: 'decimals' }),
    })),
  )
}
