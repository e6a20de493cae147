// Names a revert: finds the revert data in an error's cause chain (estimateGas, call and writeContract
// wrap it differently: `data` on RPC errors, `raw` on ContractFunctionRevertedError) and decodes it
// against every custom error of the Bardo contracts and the DelegationManager (chainErrorsAbi.ts), so
// callers see `ActionNotAllowedInPhase(golem, 2, 0x04e45aaf, 1)` rather than hex.
import { BaseError, decodeErrorResult, isHex, toFunctionSelector, type Hex } from 'viem'
import { formatAbiItem } from 'viem/utils'
import { chainErrorsAbi } from './chainErrorsAbi.ts'

export { chainErrorsAbi }

export type DecodedChainError = { name: string; args: readonly unknown[]; data: Hex }

const knownSelectors = new Set<string>(chainErrorsAbi.map((e) => toFunctionSelector(formatAbiItem(e))))
// Error(string) and Panic(uint256) decode through viem's built-ins.
knownSelectors.add('0x08c379a0')
knownSelectors.add('0x4e487b71')

function revertDataOf(value: unknown): Hex | undefined {
  if (typeof value === 'string' && isHex(value) && value.length >= 10) return value
  if (value && typeof value === 'object' && 'data' in value) return revertDataOf((value as { data: unknown }).data)
  return undefined
}

/** The first revert data in the cause chain. */
export function findRevertData(error: unknown): Hex | undefined {
  let found: Hex | undefined
  const visit = (e: unknown): boolean => {
    const candidate = revertDataOf((e as { raw?: unknown })?.raw) ?? revertDataOf((e as { data?: unknown })?.data)
    if (candidate) found = candidate
    return candidate !== undefined
  }
  if (error instanceof BaseError) error.walk(visit)
  else {
    let at: unknown = error
    while (at && !visit(at)) at = (at as { cause?: unknown }).cause
  }
  return found
}

export function decodeRevertData(data: Hex): DecodedChainError | undefined {
  if (!knownSelectors.has(data.slice(0, 10))) return undefined
  try {
    const decoded = decodeErrorResult({ abi: chainErrorsAbi, data })
    return { name: decoded.errorName, args: decoded.args ?? [], data }
  } catch {
    return undefined
  }
}

/** The named revert behind an error, or undefined when it carries no revert data we know. */
export function decodeChainError(error: unknown): DecodedChainError | undefined {
  const data = findRevertData(error)
  return data ? decodeRevertData(data) : undefined
}
