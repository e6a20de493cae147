import { createDelegation } from '@metamask/smart-accounts-kit'
import { generateSalt } from '@metamask/smart-accounts-kit/utils'
import { getAddress, isAddress, isAddressEqual, pad, zeroAddress, type Address, type Hex } from 'viem'
import type { DailySpendLimitCaveat } from '../caveats/types.ts'
import type { CalldataPin, GrantedDelegation } from '../delegations/buildGolemDelegation.ts'
import { extraCaveats } from '../delegations/buildGolemDelegation.ts'
import type { DelegationTree } from '../delegations/tree.ts'
import { CouncilError } from './errors.ts'

/** An address word in the action's calldata pinned to one receiver (byte offset, the selector counted). */
export type PinnedReceiver = { startIndex: number; receiver: Address }

/** What the council may do with the owner's account. Every bound is a caveat the DelegationManager runs. */
export type CouncilBounds = {
  /** AllowedTargets: the only contracts the council may call. */
  targets: readonly Address[]
  /** AllowedMethods: the only functions. */
  selectors: readonly Hex[]
  /** AllowedCalldata: who receives what the action moves (a transfer's `to` at byte 4). */
  receivers: readonly PinnedReceiver[]
  /** ValueLte: native value per call (default 0). */
  maxValue?: bigint
  /** The USD cap per UTC day across every priced token, from the Bardo DailySpendLimit enforcer. */
  dailySpendLimit: Omit<DailySpendLimitCaveat, 'type'>
  /** MortalityTimeWindow: the council's authority ends at `endTime` (unix seconds, inclusive). */
  window: { startTime: bigint; endTime: bigint }
}

export type BuildCouncilDelegationParameters = {
  tree: DelegationTree
  /** The owner's MetaMask smart account (delegator). */
  owner: Address
  /** The council's MultiSig DeleGator (delegate). */
  council: Address
  bounds: CouncilBounds
  salt?: Hex
}

/**
 * The owner's delegation to the council. A council is for high-value cooperative actions, so it is
 * never open-ended: it names its targets and functions, pins every receiver, caps its USD per day and
 * ends at a deadline. Checked by the tree (no contradictions) and returned unsigned; the owner signs it
 * with `tree.sign(hash, smartAccountSigner(owner))` and revokes it with one disableDelegation.
 */
export function buildCouncilDelegation(p: BuildCouncilDelegationParameters): GrantedDelegation {
  const { tree, bounds } = p
  const owner = address('owner', p.owner)
  const council = address('council', p.council)
  if (isAddressEqual(owner, council)) throw new CouncilError('council', 'must not be the owner’s own account')
  if (bounds.targets.length === 0) throw new CouncilError('bounds.targets', 'must list at least one target')
  if (bounds.selectors.length === 0) throw new CouncilError('bounds.selectors', 'must list at least one selector')
  if (bounds.receivers.length === 0)
    throw new CouncilError(
      'bounds.receivers',
      'must pin at least one receiver: an unpinned receiver lets k members send the owner’s tokens anywhere',
    )
  const pins: CalldataPin[] = bounds.receivers.map((r, i) => {
    if (!Number.isSafeInteger(r.startIndex) || r.startIndex < 4)
      throw new CouncilError(
        `bounds.receivers[${i}].startIndex`,
        `must be a byte offset of at least 4 (after the selector), got ${r.startIndex}`,
      )
    return {
      startIndex: r.startIndex,
      value: pad(address(`bounds.receivers[${i}].receiver`, r.receiver).toLowerCase() as Hex, { size: 32 }),
    }
  })
  if (bounds.dailySpendLimit.dailyLimitUsd <= 0n)
    throw new CouncilError('bounds.dailySpendLimit.dailyLimitUsd', `must be positive, got ${bounds.dailySpendLimit.dailyLimitUsd}`)
  const delegation = createDelegation({
    environment: tree.environment,
    from: owner,
    to: council,
    scope: {
      type: 'functionCall',
      targets: bounds.targets.map((t, i) => address(`bounds.targets[${i}]`, t)),
      selectors: [...bounds.selectors],
      valueLte: { maxValue: bounds.maxValue ?? 0n },
      allowedCalldata: pins,
    },
    caveats: extraCaveats(tree, [
      { type: 'dailySpendLimit', ...bounds.dailySpendLimit },
      { type: 'mortalityTimeWindow', startTime: bounds.window.startTime, endTime: bounds.window.endTime },
    ]),
    salt: p.salt ?? generateSalt(),
  })
  return { hash: tree.add(delegation), delegation }
}

function address(field: string, value: unknown): Address {
  if (typeof value !== 'string' || !isAddress(value) || isAddressEqual(value, zeroAddress))
    throw new CouncilError(field, `must be a non-zero 20-byte hex address, got ${JSON.stringify(value)}`)
  return getAddress(value)
}
