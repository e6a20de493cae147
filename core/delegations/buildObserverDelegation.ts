import { ANY_BENEFICIARY, createDelegation } from '@metamask/smart-accounts-kit'
import { generateSalt } from '@metamask/smart-accounts-kit/utils'
import { getAddress, isAddress, isAddressEqual, zeroAddress, type Address, type Hex } from 'viem'
import type { StandardCaveat } from '../caveats/caveat.ts'
import { OBSERVER_METHOD_ORACLE, OBSERVER_PUBLISH_METHODS, type ObserverPublishMethod } from '../caveats/observerScope.ts'
import type { BardoCaveat } from '../caveats/types.ts'
import { extraCaveats, type GrantedDelegation } from './buildGolemDelegation.ts'
import { DelegationShapeError } from './errors.ts'
import type { DelegationTree } from './tree.ts'

export type BuildObserverDelegationParameters = {
  tree: DelegationTree
  /**
   * Either `from`, a smart account granting publish authority at the root (the owner's account: the
   * observer publishes that account's Dream and Daimon entries), or `parent`, the hash of an observer
   * delegation in the tree whose delegate (a Golem) passes it on, narrower or equal, to its observer.
   */
  from?: Address
  parent?: Hex
  /** The observer's key or account: the delegate. */
  observer: Address
  /** Which publish calls; default all three (startDream, endDream, setPAD). */
  publish?: readonly ObserverPublishMethod[]
  /** Optional LimitedCalls; observation has no natural budget, so none by default. */
  maxCalls?: number
  /** Optional expiry (unix seconds, exclusive, the TimestampEnforcer's rule); none by default, as publishing cannot cost the owner anything. */
  expiresAt?: bigint
  /** Narrowing Bardo caveats (golemPhase, mortalityTimeWindow, dreamMode, emotionalState). */
  bardo?: readonly BardoCaveat[]
  salt?: Hex
}

export type ObserverDelegation = GrantedDelegation & { targets: Address[]; selectors: Hex[] }

function checkAddress(field: string, value: unknown): Address {
  if (typeof value !== 'string' || !isAddress(value) || isAddressEqual(value, zeroAddress)) {
    throw new DelegationShapeError(field, `must be a non-zero 20-byte hex address, got ${JSON.stringify(value)}`)
  }
  return getAddress(value)
}

/**
 * The read-only observer (the "Sleepwalker"): AllowedTargets (the Dream and Daimon oracles the
 * chosen methods live on), AllowedMethods (startDream, endDream, setPAD), ValueLte(0), through the
 * kit's `functionCall` scope, plus optional LimitedCalls, Timestamp and narrowing Bardo caveats.
 *
 * The oracles key every write by msg.sender and a redemption calls as the chain's root delegator, so
 * the observer publishes the root account's entries. Its own key's entries need no delegation: it
 * calls the oracles directly. The VitalityOracle is left out: a phase only moves forward, towards
 * Terminal, so publishing one is a decision about a life, not an observation.
 *
 * The delegation joins the tree as an observer: the tree refuses it, and anything later re-delegated
 * under it, if it allows more than publishing (ObserverScopeError). Sign with the delegator's signer.
 */
export function buildObserverDelegation(params: BuildObserverDelegationParameters): ObserverDelegation {
  const { tree } = params
  if ((params.from === undefined) === (params.parent === undefined))
    throw new DelegationShapeError(
      'from|parent',
      'exactly one is required: a root grant from an account, or a re-delegation of an observer',
    )
  const observer = checkAddress('observer', params.observer)
  if (isAddressEqual(observer, ANY_BENEFICIARY))
    throw new DelegationShapeError('observer', 'must name one delegate; an open observer delegation could be redeemed by anyone')

  let delegator: Address
  let parentNode: ReturnType<DelegationTree['get']>
  if (params.parent !== undefined) {
    parentNode = tree.get(params.parent)
    if (!parentNode) throw new DelegationShapeError('parent', `${params.parent} names no delegation in the tree`)
    if (parentNode.observer !== true) {
      throw new DelegationShapeError(
        'parent',
        `${params.parent} is not an observer delegation: a spending grant holds no oracle calls to pass on, so an observer under it could never publish`,
      )
    }
    delegator = parentNode.delegation.delegate
  } else {
    delegator = checkAddress('from', params.from)
  }
  if (isAddressEqual(observer, delegator)) throw new DelegationShapeError('observer', `must differ from the delegator ${delegator}`)

  const publish = params.publish ?? (Object.keys(OBSERVER_PUBLISH_METHODS) as ObserverPublishMethod[])
  if (publish.length === 0) throw new DelegationShapeError('publish', 'must name at least one publish method')
  const unknown = publish.find((m) => !Object.hasOwn(OBSERVER_PUBLISH_METHODS, m))
  if (unknown !== undefined)
    throw new DelegationShapeError(
      'publish',
      `${JSON.stringify(unknown)} is not one of ${Object.keys(OBSERVER_PUBLISH_METHODS).join(', ')}`,
    )
  const methods = [...new Set(publish)]
  const selectors = methods.map((m) => OBSERVER_PUBLISH_METHODS[m])
  const targets = [...new Set(methods.map((m) => getAddress(tree.deployment[OBSERVER_METHOD_ORACLE[m]])))]
  if (params.maxCalls !== undefined && (!Number.isSafeInteger(params.maxCalls) || params.maxCalls <= 0))
    throw new DelegationShapeError('maxCalls', `must be a positive integer, got ${params.maxCalls}`)
  if (params.expiresAt !== undefined && params.expiresAt <= tree.nowSeconds())
    throw new DelegationShapeError('expiresAt', `${params.expiresAt} is not after now (${tree.nowSeconds()})`)

  const standard: StandardCaveat[] = [
    ...(params.maxCalls === undefined ? [] : [{ type: 'limitedCalls' as const, limit: BigInt(params.maxCalls) }]),
    ...(params.expiresAt === undefined ? [] : [{ type: 'timestamp' as const, afterThreshold: 0n, beforeThreshold: params.expiresAt }]),
  ]
  const scope = { type: 'functionCall' as const, targets, selectors, valueLte: { maxValue: 0n } }
  const caveats = extraCaveats(tree, params.bardo ?? [], standard)
  const salt = params.salt ?? generateSalt()
  const delegation = parentNode
    ? createDelegation({
        environment: tree.environment,
        from: delegator,
        to: observer,
        scope,
        parentDelegation: parentNode.delegation,
        caveats,
        salt,
      })
    : createDelegation({ environment: tree.environment, from: delegator, to: observer, scope, caveats, salt })
  return { hash: tree.add(delegation, { observer: true }), delegation, targets, selectors }
}
