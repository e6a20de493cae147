import { ExecutionMode, type Delegation, type ExecutionStruct } from '@metamask/smart-accounts-kit'
import { DELEGATION_ARRAY_ABI_TYPE, encodeExecutionCalldatas, toDelegationStruct } from '@metamask/smart-accounts-kit/utils'
import {
  decodeFunctionData,
  encodeAbiParameters,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  hexToBigInt,
  parseTransaction,
  size,
  slice,
  type Hex,
} from 'viem'
import { DelegationShapeError } from './errors.ts'
import { DelegationManagerAbi } from './frameworkAbi.ts'

export type Redemption = {
  /** Leaf first, root last (`tree.chain(hash)`), every delegation signed. */
  chain: readonly Delegation[]
  executions: readonly ExecutionStruct[]
  /**
   * How several executions are redeemed. `split` (the default): one single-call redemption per execution
   * on the same chain, in the same transaction; the framework's period, ValueLte, AllowedTargets and
   * AllowedMethods enforcers admit single calls only, so this is the mode every Golem grant can use.
   * `batch`: one batch execution, for caveats that must see the whole batch (KnowledgeRoyalty) on
   * delegations without single-call-only enforcers.
   */
  mode?: 'split' | 'batch'
}

/**
 * Calldata for DelegationManager.redeemDelegations: single default mode per execution (several
 * executions are split into single-call redemptions on the same chain unless `mode: 'batch'`). Default (not try) mode because the stateful enforcers refuse
 * try-mode: a try call could fail after an enforcer already counted it.
 */
export function encodeRedemptions(redemptions: readonly Redemption[]): Hex {
  if (redemptions.length === 0) throw new DelegationShapeError('redemptions', 'must hold at least one redemption')
  redemptions.forEach((r, i) => {
    if (r.executions.length === 0) throw new DelegationShapeError(`redemptions[${i}].executions`, 'must hold at least one execution')
    const unsigned = r.chain.findIndex((d) => d.signature === '0x')
    if (unsigned >= 0) throw new DelegationShapeError(`redemptions[${i}].chain[${unsigned}]`, 'is unsigned; sign it through the tree first')
  })
  const entries = redemptions.flatMap((r) =>
    r.executions.length > 1 && r.mode === 'batch'
      ? [{ chain: r.chain, mode: ExecutionMode.BatchDefault, executions: [...r.executions] }]
      : r.executions.map((e) => ({ chain: r.chain, mode: ExecutionMode.SingleDefault, executions: [e] })),
  )
  // The kit's `contracts.DelegationManager.encode.redeemDelegations`, built from its parts: the kit's
  // `contracts` object carries every framework ABI, and its `encodeDelegations` MetaMask's utils library,
  // which together would triple a tick's bundle (redeem.test.ts checks the bytes are the kit's).
  return encodeFunctionData({
    abi: DelegationManagerAbi,
    functionName: 'redeemDelegations',
    args: [
      entries.map((e) => encodeDelegationChain(e.chain)),
      entries.map((e) => e.mode),
      encodeExecutionCalldatas(entries.map((e) => e.executions)),
    ],
  })
}

/** A delegation chain as redeemDelegations takes it (the kit's `encodeDelegations`). */
export function encodeDelegationChain(chain: readonly Delegation[]): Hex {
  return encodeAbiParameters([DELEGATION_ARRAY_ABI_TYPE], [chain.map((d) => toDelegationStruct({ ...d }))])
}

/** Calldata for DelegationManager.disableDelegation (what the kit's `encode.disableDelegation` builds). */
export function encodeDisableDelegation(delegation: Delegation): Hex {
  return encodeFunctionData({ abi: DelegationManagerAbi, functionName: 'disableDelegation', args: [toDelegationStruct({ ...delegation })] })
}

/**
 * The first execution of redeemDelegations calldata, when it is a single one (packed as target (20
 * bytes), value (32), calldata). Null for a batch, for other calldata and for bytes that are no calldata.
 */
export function firstSingleExecution(data: Hex): ExecutionStruct | null {
  try {
    const decoded = decodeFunctionData({ abi: DelegationManagerAbi, data })
    if (decoded.functionName !== 'redeemDelegations') return null
    const [, modes, executions] = decoded.args as readonly [readonly Hex[], readonly Hex[], readonly Hex[]]
    const execution = executions[0]
    if (modes[0] !== ExecutionMode.SingleDefault || !execution || size(execution) < 52) return null
    return {
      target: getAddress(slice(execution, 0, 20)),
      value: hexToBigInt(slice(execution, 20, 52)),
      callData: size(execution) > 52 ? slice(execution, 52) : '0x',
    }
  } catch {
    return null
  }
}

/**
 * The native value the first execution of redeemDelegations calldata moves: what a gas top-up redeemed,
 * read back from its signed transaction when it is settled by a later tick. Null for other calldata.
 */
export function firstExecutionValue(data: Hex): bigint | null {
  return firstSingleExecution(data)?.value ?? null
}

/**
 * The token amount the first execution of redeemDelegations calldata transfers (an ERC-20 `transfer`):
 * what a runway redemption redeemed, read back from its signed transaction when a later tick settles it.
 * Null for any other calldata.
 */
export function firstExecutionTransferAmount(data: Hex): bigint | null {
  const execution = firstSingleExecution(data)
  if (execution === null || execution.callData === '0x') return null
  try {
    const call = decodeFunctionData({ abi: erc20Abi, data: execution.callData })
    return call.functionName === 'transfer' ? call.args[1] : null
  } catch {
    return null
  }
}

/** The calldata of a signed transaction; null for bytes that are no transaction. */
function signedCalldata(rawTx: Hex): Hex | null {
  try {
    return parseTransaction(rawTx).data ?? null
  } catch {
    return null
  }
}

/**
 * What a signed runway redemption transfers (its first execution's ERC-20 amount), read from the signed
 * transaction itself: the amount of whichever tick signed it. Null for any other transaction.
 */
export function signedTransferAmount(rawTx: Hex): bigint | null {
  const data = signedCalldata(rawTx)
  return data === null ? null : firstExecutionTransferAmount(data)
}

/** What a signed gas top-up redeems (its first execution's native value), read from the signed transaction. Null for any other. */
export function signedExecutionValue(rawTx: Hex): bigint | null {
  const data = signedCalldata(rawTx)
  return data === null ? null : firstExecutionValue(data)
}
