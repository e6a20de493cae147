// Names a revert: walks viem's error chain for revert data and decodes it against every Bardo contract
// and the DelegationManager, so callers see `ActionNotAllowedInPhase(golem, 2, 0x04e45aaf, 1)` rather
// than hex.
import { BaseError, decodeErrorResult, type Abi, type Hex } from 'viem'
import { DelegationManager } from '@metamask/delegation-abis'
import * as artifacts from '../../contracts/artifacts/index.ts'

export type DecodedChainError = { name: string; args: readonly unknown[]; data: Hex }

const abi: Abi = (() => {
  const items = new Map<string, Abi[number]>()
  const add = (list: readonly unknown[]) => {
    for (const item of list as Abi) if (item.type === 'error') items.set(`${item.name}(${item.inputs.map((i) => i.type).join(',')})`, item)
  }
  for (const [name, value] of Object.entries(artifacts)) if (name.endsWith('Abi')) add(value as readonly unknown[])
  add(DelegationManager)
  return [...items.values()]
})()

function revertData(error: unknown): Hex | undefined {
  if (!(error instanceof BaseError)) return undefined
  let data: Hex | undefined
  error.walk((e) => {
    const d = (e as { data?: unknown }).data
    if (typeof d === 'string' && d.startsWith('0x') && d.length >= 10) data = d as Hex
    else if (d && typeof d === 'object' && typeof (d as { data?: unknown }).data === 'string') data = (d as { data: Hex }).data
    return false
  })
  return data
}

export function decodeRevertData(data: Hex): DecodedChainError | undefined {
  try {
    const decoded = decodeErrorResult({ abi: [...abi, { type: 'error', name: 'Error', inputs: [{ type: 'string', name: 'message' }] }], data })
    return { name: decoded.errorName, args: decoded.args ?? [], data }
  } catch {
    return undefined
  }
}

/** The named revert behind an error from viem, or undefined when it was not a revert we know. */
export function decodeChainError(error: unknown): DecodedChainError | undefined {
  const data = revertData(error)
  return data ? decodeRevertData(data) : undefined
}
