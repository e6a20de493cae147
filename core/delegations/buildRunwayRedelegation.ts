import { createDelegation, type Delegation } from '@metamask/smart-accounts-kit'
import { createCaveatBuilder, generateSalt } from '@metamask/smart-accounts-kit/utils'
import { isAddressEqual, toHex, type Address, type Hex } from 'viem'
import type { StandardCaveat } from '../caveats/caveat.ts'
import type { BardoCaveat } from '../caveats/types.ts'
import { extraCaveats, requireGolemCaveats, runwayGates, type GrantedDelegation } from './buildGolemDelegation.ts'
import { DelegationShapeError } from './errors.ts'
import type { DelegationTree } from './tree.ts'

/**
 * The owner -> Session Account delegation of an ERC-7715 periodic permission, built locally the way the
 * wallet builds it (the kit's periodic scope, plus a TimestampEnforcer for the permission's expiry).
 * On a real chain the wallet returns it signed as the permission context; pass `{ context }` instead.
 */
export type LocalRunwayPermission = {
  owner: Address
  sessionAccount: Address
  /** `erc20-token-periodic` (token set) or `native-token-periodic` (no token). */
  token?: Address
  periodAmount: bigint
  periodDuration: number
  startTime: number
  /** Unix seconds after which the permission is void (the 7715 `expiry` rule). */
  expiry?: number
  /**
   * The owner's NonceEnforcer nonce, which MetaMask puts on every grant it makes (so the owner can
   * revoke them all at once by incrementing it); absent, the grant carries no NonceEnforcer.
   */
  nonce?: bigint
  salt?: Hex
}

export type BuildRunwayRedelegationParameters = {
  tree: DelegationTree
  /** The granted permission context (leaf first, signed by the wallet) or a local permission to build. */
  permission: { context: readonly Delegation[] } | LocalRunwayPermission
  /** The Golem's execution key (delegate of the re-delegation, registered in the VitalityOracle). */
  executionKey: Address
  /** Bardo caveats the Session Account adds; must hold golemPhase for the key and a deadline (its window, or a mortalityTimeWindow). */
  bardo: readonly BardoCaveat[]
  /** Further standard caveats on the re-delegation (e.g. limitedCalls). */
  caveats?: readonly StandardCaveat[]
  salt?: Hex
}

export type RunwayRedelegation = {
  /** Owner -> Session Account (the 7715 permission). */
  parent: GrantedDelegation
  /** Session Account -> execution key, adding the Bardo caveats. */
  child: GrantedDelegation
  /** What redeemDelegations takes: `[child, ...parentChain]`, leaf first, so both layers bind. */
  chain: () => Delegation[]
}

function localPermission(tree: DelegationTree, p: LocalRunwayPermission): Delegation {
  const scope =
    p.token === undefined
      ? ({
          type: 'nativeTokenPeriodTransfer',
          periodAmount: p.periodAmount,
          periodDuration: p.periodDuration,
          startDate: p.startTime,
        } as const)
      : ({
          type: 'erc20PeriodTransfer',
          tokenAddress: p.token,
          periodAmount: p.periodAmount,
          periodDuration: p.periodDuration,
          startDate: p.startTime,
        } as const)
  const expiry: StandardCaveat[] =
    p.expiry === undefined ? [] : [{ type: 'timestamp', afterThreshold: 0n, beforeThreshold: BigInt(p.expiry) }]
  const nonce =
    p.nonce === undefined
      ? []
      : createCaveatBuilder(tree.environment)
          .addCaveat('nonce', { nonce: toHex(p.nonce) })
          .build()
  return createDelegation({
    environment: tree.environment,
    from: p.owner,
    to: p.sessionAccount,
    scope,
    caveats: [...extraCaveats(tree, [], expiry), ...nonce],
    salt: p.salt ?? generateSalt(),
  })
}

/**
 * Shape 2, ERC-7715 runway plus a Bardo re-delegation: the owner's periodic permission names the
 * Session Account; the Session Account re-delegates to the Golem's execution key adding the Bardo
 * caveats. Both delegations join the tree (the child checked against the parent); sign the child with
 * the Session Account's signer (`tree.sign(child.hash, ...)`), and a locally built parent with the owner's.
 */
export function buildRunwayRedelegation(params: BuildRunwayRedelegationParameters): RunwayRedelegation {
  const { tree, executionKey, bardo, permission } = params
  requireGolemCaveats('bardo', bardo, executionKey)
  const sessionAccount = 'context' in permission ? permission.context[0]?.delegate : permission.sessionAccount
  if (sessionAccount === undefined) throw new DelegationShapeError('permission.context', 'must hold at least one delegation')
  if (isAddressEqual(sessionAccount, executionKey)) {
    throw new DelegationShapeError('executionKey', 'must differ from the Session Account that holds the permission')
  }
  let parentHash: Hex
  let draft = false
  if ('context' in permission) {
    parentHash = tree.addGranted(permission.context)
  } else {
    const built = localPermission(tree, permission)
    draft = tree.get(tree.hash(built)) === undefined
    parentHash = tree.add(built)
  }
  const parent = tree.get(parentHash)!.delegation
  const child = createDelegation({
    environment: tree.environment,
    from: sessionAccount,
    to: executionKey,
    parentDelegation: parent,
    caveats: extraCaveats(tree, runwayGates(bardo, executionKey), params.caveats),
    salt: params.salt ?? generateSalt(),
  })
  let childHash: Hex
  try {
    childHash = tree.add(child)
  } catch (error) {
    // All or nothing: a locally built permission whose re-delegation is refused is not left behind.
    if (draft) tree.remove(parentHash)
    throw error
  }
  return {
    parent: { hash: parentHash, delegation: parent },
    child: { hash: childHash, delegation: child },
    chain: () => tree.chain(childHash),
  }
}
