import { contracts, ExecutionMode, type Delegation, type ExecutionStruct } from '@metamask/smart-accounts-kit'
import type { Hex } from 'viem'
import { DelegationShapeError } from './errors.ts'

export type Redemption = {
  /** Leaf first, root last (`tree.chain(hash)`), every delegation signed. */
  chain: readonly Delegation[]
  executions: readonly ExecutionStruct[]
}

/**
 * Calldata for DelegationManager.redeemDelegations: one entry per redemption, single default mode for
 * one execution, batch default for more. Default (not try) mode because the stateful enforcers refuse
 * try-mode: a try call could fail after an enforcer already counted it.
 */
export function encodeRedemptions(redemptions: readonly Redemption[]): Hex {
  if (redemptions.length === 0) throw new DelegationShapeError('redemptions', 'must hold at least one redemption')
  redemptions.forEach((r, i) => {
    if (r.executions.length === 0) throw new DelegationShapeError(`redemptions[${i}].executions`, 'must hold at least one execution')
    const unsigned = r.chain.findIndex((d) => d.signature === '0x')
    if (unsigned >= 0) throw new DelegationShapeError(`redemptions[${i}].chain[${unsigned}]`, 'is unsigned; sign it through the tree first')
  })
  return contracts.DelegationManager.encode.redeemDelegations({
    delegations: redemptions.map((r) => [...r.chain]),
    modes: redemptions.map((r) => (r.executions.length === 1 ? ExecutionMode.SingleDefault : ExecutionMode.BatchDefault)),
    executions: redemptions.map((r) => [...r.executions]),
  })
}
