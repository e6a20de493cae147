// The owner's grant to a read-only observer (the "Sleepwalker"), as the API takes it: a root delegation
// from the Golem's owner account that may only publish to the Dream and Daimon oracles. The check is the
// tree's own (core/delegations/tree.ts with `observer: true`: the observer scope, then contradictions),
// judged from the delegation's caveats alone, plus what makes it the owner's grant for this Golem. Pure:
// the edge verifies the signature against the owner's account and records what this accepts.
import { ANY_BENEFICIARY, ROOT_AUTHORITY, type Delegation, type SmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import { getAddress, isAddressEqual, zeroAddress, type Address, type Hex } from 'viem'
import type { DecodedCaveat } from '../caveats/caveat.ts'
import type { Labels } from '../caveats/format.ts'
import { AttenuationError, ContradictionError, InvalidTermsError, ObserverScopeError } from '../caveats/errors.ts'
import { OBSERVER_METHOD_ORACLE, OBSERVER_PUBLISH_METHODS, type ObserverPublishMethod } from '../caveats/observerScope.ts'
import { includesAddress } from '../caveats/semantics.ts'
import type { BardoDeployment } from '../caveats/types.ts'
import { DelegationTreeError } from '../delegations/errors.ts'
import type { UnsignedDelegation } from '../delegations/signers.ts'
import { DelegationTree } from '../delegations/tree.ts'
import { BardoError } from '../errors.ts'
import { grantHash } from './grantLedger.ts'

export class ObserverGrantError extends BardoError {
  readonly field: string
  constructor(field: string, rule: string, details: Record<string, unknown> = {}) {
    super('OBSERVER_GRANT_REFUSED', `${field}: ${rule}`, { details: { field, rule, ...details } })
    this.field = field
  }
}

/** What an observer grant allows, read from its caveats. */
export type ObserverTerms = {
  observer: Address
  publish: ObserverPublishMethod[]
  /** The Timestamp caveat's end (exclusive, unix seconds); null: no expiry. */
  expiresAt: bigint | null
  /** The LimitedCalls caveat's limit; null: unlimited. */
  maxCalls: bigint | null
}

const METHOD_OF: Readonly<Record<string, ObserverPublishMethod>> = Object.fromEntries(
  Object.entries(OBSERVER_PUBLISH_METHODS).map(([name, selector]) => [selector, name as ObserverPublishMethod]),
)

/**
 * The terms of an observer delegation whose caveats passed the observer scope (several caveats of a kind:
 * the narrowest binds). A method publishes only where every AllowedMethods names it and every
 * AllowedTargets names its oracle (a selector sent to the other oracle reverts there).
 */
export function observerTermsOf(
  delegate: Address,
  caveats: readonly DecodedCaveat[],
  deployment: Pick<BardoDeployment, 'dreamOracle' | 'daimonOracle'>,
): ObserverTerms {
  const methodSets = caveats.flatMap((c) => (c.type === 'allowedMethods' ? [c.selectors.map((s) => METHOD_OF[s.toLowerCase()]!)] : []))
  const targetSets = caveats.flatMap((c) => (c.type === 'allowedTargets' ? [c.targets] : []))
  const publish = (Object.keys(OBSERVER_PUBLISH_METHODS) as ObserverPublishMethod[]).filter(
    (m) =>
      methodSets.every((set) => set.includes(m)) && targetSets.every((set) => includesAddress(set, deployment[OBSERVER_METHOD_ORACLE[m]])),
  )
  const ends = caveats.flatMap((c) => (c.type === 'timestamp' && c.beforeThreshold !== 0n ? [c.beforeThreshold] : []))
  const limits = caveats.flatMap((c) => (c.type === 'limitedCalls' ? [c.limit] : []))
  const least = (xs: bigint[]) => (xs.length === 0 ? null : xs.reduce((a, b) => (b < a ? b : a)))
  return { observer: getAddress(delegate), publish, expiresAt: least(ends), maxCalls: least(limits) }
}

/** The tree's refusal as a field of the delegation and its rule. */
function refusalOf(error: unknown): [field: string, rule: string] {
  // "<field> <rule>": the observer scope (field `caveats.<type>`) and the tree's structure (field `delegate`, ...).
  if (error instanceof ObserverScopeError || error instanceof DelegationTreeError)
    return [error.field, error.message.slice(error.field.length + 1)]
  // A sentence about one caveat: undecodable terms, contradictions.
  if (error instanceof InvalidTermsError || error instanceof ContradictionError || error instanceof AttenuationError)
    return [`caveats.${error.caveat}`, error.message]
  throw error
}

export type ObserverGrantInput = {
  /** The delegation: signed as posted, or unsigned as drafted (checkObserverDraft). */
  delegation: UnsignedDelegation | Delegation
  /** The Golem's owner: the smart account that must have granted it. */
  owner: Address
  deployment: BardoDeployment
  environment: SmartAccountsEnvironment
  /** Chain time (unix seconds): a grant that has already expired is refused. */
  now: bigint
  /** Token and target names, so a refused target is named for what it is. */
  labels?: Labels
}

/**
 * The observer grant a delegation makes, or ObserverGrantError naming the field and the rule: a root
 * delegation from the owner's account to one named observer (not the owner itself) whose caveats allow
 * publishing to the Dream and Daimon oracles and nothing else (ObserverScopeError's rule, e.g. a token
 * target or a transfer selector), and not contradictory (an expiry already past). What an owner's signer
 * checks of a draft before signing it.
 */
export function checkObserverDraft(input: ObserverGrantInput): ObserverTerms & { hash: Hex } {
  const { delegation: d, owner, deployment, environment, now, labels } = input
  const refuse = (field: string, rule: string, details?: Record<string, unknown>) =>
    new ObserverGrantError(`delegation.${field}`, rule, details)
  if (!isAddressEqual(d.delegator, owner))
    throw refuse('delegator', `must be the Golem's owner ${getAddress(owner)}: only the owner's account grants an observer for its Golem`)
  if (d.authority.toLowerCase() !== ROOT_AUTHORITY.toLowerCase())
    throw refuse('authority', "must be the root authority: an observer grant comes straight from the owner's account")
  if (isAddressEqual(d.delegate, zeroAddress) || isAddressEqual(d.delegate, ANY_BENEFICIARY))
    throw refuse('delegate', 'must name one observer; an open delegation could be redeemed by anyone')
  if (isAddressEqual(d.delegate, owner)) throw refuse('delegate', `must differ from the owner ${getAddress(owner)}`)
  const tree = new DelegationTree({ environment, deployment, now: () => now, ...(labels ? { labels } : {}) })
  let caveats: DecodedCaveat[]
  try {
    caveats = tree.check(d, { observer: true })
  } catch (error) {
    throw refuse(...refusalOf(error), { refusal: (error as BardoError).code })
  }
  return { hash: grantHash({ ...d, signature: '0x' }), ...observerTermsOf(d.delegate, caveats, deployment) }
}

/** checkObserverDraft for a posted grant, which must also carry a signature (the edge verifies it against the owner's account). */
export function checkObserverGrant(input: ObserverGrantInput & { delegation: Delegation }): ObserverTerms & { hash: Hex } {
  const terms = checkObserverDraft(input)
  if (input.delegation.signature === '0x')
    throw new ObserverGrantError('delegation.signature', "is empty: post the delegation the owner's wallet signed")
  return terms
}
