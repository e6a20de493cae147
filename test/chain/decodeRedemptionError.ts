// Names the custom error a redemption reverted with. The revert data is dug out of viem's error
// cause chain (estimateGas, call and writeContract all wrap it differently) and decoded against every
// Bardo contract's errors plus the DelegationManager's, so tests assert on names and numbers, never hex.
import { DelegationManager } from '@metamask/delegation-abis'
import { BaseError, decodeErrorResult, isHex, toFunctionSelector, type Abi, type Hex } from 'viem'
import { formatAbiItem } from 'viem/utils'
import * as artifacts from '../../contracts/artifacts/index.ts'

type AbiError = Extract<Abi[number], { type: 'error' }>

export type DecodedRedemptionError = { name: string; args: readonly unknown[]; data: Hex }

/** Every custom error a redemption can surface: the nine enforcers, the oracles, their libraries, the DelegationManager. */
export const redemptionErrorsAbi: readonly AbiError[] = (() => {
  const sources: Abi[] = [
    ...Object.entries(artifacts)
      .filter(([name]) => name.endsWith('Abi'))
      .map(([, abi]) => abi as Abi),
    DelegationManager as Abi,
  ]
  // Several contracts declare the same error (InvalidTermsLength, ZeroAddress, ...): keep one per signature.
  const bySignature = new Map<string, AbiError>()
  for (const abi of sources) {
    for (const item of abi) if (item.type === 'error') bySignature.set(formatAbiItem(item), item)
  }
  return [...bySignature.values()]
})()

const knownSelectors = new Set<string>(redemptionErrorsAbi.map((e) => toFunctionSelector(formatAbiItem(e))))
// Error(string) and Panic(uint256) decode through viem's built-ins.
knownSelectors.add('0x08c379a0')
knownSelectors.add('0x4e487b71')

function revertDataOf(value: unknown): Hex | undefined {
  if (typeof value === 'string' && isHex(value) && value.length >= 10) return value
  if (value && typeof value === 'object' && 'data' in value) return revertDataOf((value as { data: unknown }).data)
  return undefined
}

/** The first revert data in the cause chain (`data` on RPC errors, `raw` on ContractFunctionRevertedError). */
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

/**
 * `{ name, args }` of the custom error a redemption reverted with. Throws (with the original error as
 * cause) when the error carries no revert data or the data matches no known error: a test that expects
 * a named refusal must not pass on an out-of-gas or an RPC failure.
 */
export function decodeRedemptionError(error: unknown): DecodedRedemptionError {
  const data = findRevertData(error)
  if (!data) throw new Error(`no revert data in error: ${(error as Error)?.message ?? String(error)}`, { cause: error })
  if (!knownSelectors.has(data.slice(0, 10))) throw new Error(`revert data ${data} matches no known error`, { cause: error })
  const decoded = decodeErrorResult({ abi: redemptionErrorsAbi, data })
  return { name: decoded.errorName, args: decoded.args ?? [], data }
}
