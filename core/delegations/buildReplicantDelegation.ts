import { createDelegation } from '@metamask/smart-accounts-kit'
import { generateSalt } from '@metamask/smart-accounts-kit/utils'
import { isAddressEqual, type Address, type Hex } from 'viem'
import type { DecodedCaveatOf, StandardCaveat } from '../caveats/caveat.ts'
import { effectiveMasks } from '../caveats/semantics.ts'
import { ACTION_CLASS, type BardoCaveat, type TokenFeed } from '../caveats/types.ts'
import { extraCaveats, type GrantedDelegation } from './buildGolemDelegation.ts'
import { DelegationShapeError } from './errors.ts'
import type { DelegationTree } from './tree.ts'

export type BuildReplicantDelegationParameters = {
  tree: DelegationTree
  /** Hash of the Golem's delegation (a node of the tree whose delegate is the Golem). */
  parent: Hex
  /** The Replicant's key or account: the only address that may redeem the sub-delegation. */
  replicant: Address
  budget: { maxBudgetUsd: bigint; maxLifespanSeconds: bigint; maxPriceAge: number; feeds: readonly TokenFeed[] }
  maxCalls: number
  /** Hard window; default from now to now + maxLifespanSeconds. */
  window?: { startTime: bigint; endTime: bigint }
  /** Default: the nearest ancestor's allowedTargets, if any. Must lie within them. */
  targets?: readonly Address[]
  selectors?: readonly Hex[]
  /** A slice of the parent's runway (2 of 10 USDC/day). */
  runway?: { token: Address; periodAmount: bigint; periodDuration: number; startDate: number }
  /** More Bardo caveats (a Replicant's own golemPhase, dreamMode, ...). */
  bardo?: readonly BardoCaveat[]
  salt?: Hex
}

/**
 * Shape 3, a Replicant: the Golem re-delegates a strictly narrower slice of its own delegation:
 * ReplicantBudget (USD budget and lifespan from first use), MortalityTimeWindow (hard deadline: a
 * Replicant's delegation has no phase gate of its own, the root's GolemPhase already runs for every
 * redemption through it, so the stand-alone window is the cheaper caveat, with no oracle read),
 * LimitedCalls, AllowedTargets within the parent's, every ancestor's AllowedCalldata pin (an approval
 * delegation's spender), and "no further delegation", expressed as the
 * framework's RedeemerEnforcer naming the Replicant: every caveat in a chain sees the final redeemer,
 * so a chain one level deeper (redeemed by someone else) fails this caveat. The parent chain's
 * GolemPhase additionally gates every redemption through a Replicant by the SUBDELEGATION class.
 * Authority is the parent's hash; the tree checks attenuation against every ancestor. Sign with the
 * Golem's signer: `tree.sign(hash, signedDelegationSigner(golemSigner))`.
 */
export function buildReplicantDelegation(params: BuildReplicantDelegationParameters): GrantedDelegation {
  const { tree, replicant, budget } = params
  const parentNode = tree.get(params.parent)
  if (!parentNode) throw new DelegationShapeError('parent', `${params.parent} names no delegation in the tree`)
  const golem = parentNode.delegation.delegate
  if (isAddressEqual(replicant, golem)) throw new DelegationShapeError('replicant', 'must differ from the Golem that delegates to it')
  if (!Number.isSafeInteger(params.maxCalls) || params.maxCalls <= 0) {
    throw new DelegationShapeError('maxCalls', `must be a positive integer, got ${params.maxCalls}`)
  }

  const chain = tree.chain(params.parent)
  const inherited = chain.flatMap((d) => tree.get(tree.hash(d))!.caveats)
  const phaseGates = inherited.filter((c): c is DecodedCaveatOf<'golemPhase'> => c.type === 'golemPhase')
  const closed = phaseGates.find((g) => effectiveMasks(g.phaseMasks).every((m) => (m & ACTION_CLASS.SUBDELEGATION) === 0))
  if (closed) {
    throw new DelegationShapeError(
      'parent',
      `golemPhase for ${closed.golem} allows sub-delegation in no phase, so a Replicant could never redeem`,
    )
  }

  const now = tree.nowSeconds()
  const window = params.window ?? { startTime: now, endTime: now + budget.maxLifespanSeconds }
  const parentTargets = inherited.find((c): c is DecodedCaveatOf<'allowedTargets'> => c.type === 'allowedTargets')?.targets
  const targets = params.targets ?? parentTargets
  // An ancestor's allowedCalldata pin (an approval's spender) must reappear in the child, so it is carried.
  const pins = inherited.filter(
    (c, i): c is DecodedCaveatOf<'allowedCalldata'> =>
      c.type === 'allowedCalldata' &&
      inherited.findIndex((x) => x.type === 'allowedCalldata' && x.startIndex === c.startIndex && x.value === c.value) === i,
  )
  const standard: StandardCaveat[] = [
    { type: 'limitedCalls', limit: BigInt(params.maxCalls) },
    ...(targets ? [{ type: 'allowedTargets' as const, targets: [...targets] }] : []),
    ...(params.selectors ? [{ type: 'allowedMethods' as const, selectors: [...params.selectors] }] : []),
    ...pins,
    ...(params.runway
      ? [
          { type: 'valueLte' as const, maxValue: 0n },
          {
            type: 'erc20PeriodTransfer' as const,
            tokenAddress: params.runway.token,
            periodAmount: params.runway.periodAmount,
            periodDuration: BigInt(params.runway.periodDuration),
            startDate: BigInt(params.runway.startDate),
          },
        ]
      : []),
    { type: 'redeemer', redeemers: [replicant] },
  ]
  const bardo: BardoCaveat[] = [
    { type: 'replicantBudget', ...budget, feeds: [...budget.feeds] },
    { type: 'mortalityTimeWindow', startTime: window.startTime, endTime: window.endTime },
    ...(params.bardo ?? []),
  ]
  const delegation = createDelegation({
    environment: tree.environment,
    from: golem,
    to: replicant,
    parentDelegation: parentNode.delegation,
    caveats: extraCaveats(tree, bardo, standard),
    salt: params.salt ?? generateSalt(),
  })
  return { hash: tree.add(delegation), delegation }
}
