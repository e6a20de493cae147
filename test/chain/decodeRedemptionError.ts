// The on-chain suites' strict form of functions/shared/decodeChainError: a test that expects a named
// refusal must not pass on an out-of-gas or an RPC failure, so anything unnamed throws.
import { decodeRevertData, findRevertData, chainErrorsAbi, type DecodedChainError } from '../../adapters/chain/decodeChainError.ts'

export type DecodedRedemptionError = DecodedChainError
export const redemptionErrorsAbi = chainErrorsAbi
export { findRevertData }

/** `{ name, args }` of the custom error a redemption reverted with; throws (cause: the error) otherwise. */
export function decodeRedemptionError(error: unknown): DecodedRedemptionError {
  const data = findRevertData(error)
  if (!data) throw new Error(`no revert data in error: ${(error as Error)?.message ?? String(error)}`, { cause: error })
  const decoded = decodeRevertData(data)
  if (!decoded) throw new Error(`revert data ${data} matches no known error`, { cause: error })
  return decoded
}
