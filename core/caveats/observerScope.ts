import { getAddress, toFunctionSelector, type Address, type Hex } from 'viem'
import type { DecodedCaveat, DecodedCaveatOf } from './caveat.ts'
import { ObserverScopeError } from './errors.ts'
import { labelAddress, listPhrase, type Labels } from './format.ts'
import { includesAddress, sameAddress } from './semantics.ts'
import type { BardoDeployment } from './types.ts'

/**
 * The read-only observer ("Sleepwalker"): a delegation that may publish to the Dream and Daimon oracles
 * from its delegator's account and do nothing else. Reading needs no delegation (a view call is free),
 * so publishing is all such a delegation can carry; this module decides whether a proposed one is that
 * narrow, from its own caveats alone (a parent's caveats would also bind on-chain, but the observer's
 * promise must not depend on what it happens to sit under).
 */
export const OBSERVER_PUBLISH_METHODS = {
  startDream: toFunctionSelector('function startDream()'),
  endDream: toFunctionSelector('function endDream()'),
  setPAD: toFunctionSelector('function setPAD(int8,int8,int8)'),
} as const satisfies Record<string, Hex>
export type ObserverPublishMethod = keyof typeof OBSERVER_PUBLISH_METHODS

/** Which oracle each publish method lives on. */
export const OBSERVER_METHOD_ORACLE: Readonly<Record<ObserverPublishMethod, 'dreamOracle' | 'daimonOracle'>> = {
  startDream: 'dreamOracle',
  endDream: 'dreamOracle',
  setPAD: 'daimonOracle',
}

/**
 * Calls that move value, grant an allowance or act on delegations, named so a refusal says what the
 * selector is. The rule itself is the allow-list above; this list only makes the refusal readable.
 */
const VALUE_MOVING_SIGNATURES = [
  'transfer(address,uint256)',
  'transferFrom(address,address,uint256)',
  'approve(address,uint256)',
  'increaseAllowance(address,uint256)',
  'decreaseAllowance(address,uint256)',
  'permit(address,address,uint256,uint256,uint8,bytes32,bytes32)',
  'permit(address,address,uint256,uint256,bool,uint8,bytes32,bytes32)',
  'setApprovalForAll(address,bool)',
  'safeTransferFrom(address,address,uint256)',
  'safeTransferFrom(address,address,uint256,bytes)',
  'safeTransferFrom(address,address,uint256,uint256,bytes)',
  'safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)',
  'transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)',
  'receiveWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)',
  'deposit()',
  'withdraw(uint256)',
  'deposit(uint256,address)',
  'mint(uint256,address)',
  'withdraw(uint256,address,address)',
  'redeem(uint256,address,address)',
  'redeemDelegations(bytes[],bytes32[],bytes[])',
] as const
const VALUE_MOVING: Readonly<Record<string, string>> = Object.fromEntries(
  VALUE_MOVING_SIGNATURES.map((sig) => [toFunctionSelector(`function ${sig}`), sig.slice(0, sig.indexOf('('))]),
)
const UPDATE_PHASE = toFunctionSelector('function updatePhase(uint8,uint16)')

/**
 * Caveats that only narrow what a call may do and never move value themselves. Everything else is
 * refused: a transfer or spending allowance means the delegation was built to spend, KnowledgeRoyalty
 * demands a payment in the batch, and an enforcer Bardo cannot read (some framework enforcers pay from
 * their hooks) cannot be shown to be read-only.
 */
const NARROWING_CAVEATS: ReadonlySet<DecodedCaveat['type']> = new Set([
  'allowedTargets',
  'allowedMethods',
  'valueLte',
  'limitedCalls',
  'timestamp',
  'blockNumber',
  'redeemer',
  'exactCalldata',
  'allowedCalldata',
  'golemPhase',
  'mortalityTimeWindow',
  'dreamMode',
  'emotionalState',
])

export type ObserverScope = {
  deployment: Pick<BardoDeployment, 'vitalityOracle' | 'dreamOracle' | 'daimonOracle'>
  delegationManager: Address
  /** The delegation's delegator and the account a redemption runs as (the chain's root delegator). */
  delegators: readonly Address[]
  labels?: Labels
}

const PUBLISH_RULE = `an observer delegation may call only ${listPhrase(Object.keys(OBSERVER_PUBLISH_METHODS), 'and')}`
const TARGET_RULE = 'an observer delegation may call only the DreamOracle and the DaimonOracle'

/** What a refused target is, in the reader's words. */
function describeTarget(target: Address, scope: ObserverScope): string {
  const labels = scope.labels ?? {}
  if (sameAddress(target, scope.delegationManager)) return 'the DelegationManager (redeeming or disabling delegations is not publishing)'
  if (includesAddress(scope.delegators, target)) return `the delegating account ${target} itself (its execute would run any call)`
  if (sameAddress(target, scope.deployment.vitalityOracle))
    return 'the VitalityOracle (a phase moves only forward, towards Terminal; an observer never decides one)'
  const token = Object.entries(labels.tokens ?? {}).find(([a]) => sameAddress(a as Address, target))
  if (token) return `the token ${token[1].symbol} (${target}), which holds value`
  const label = labelAddress(target, labels)
  return label === getAddress(target)
    ? `${target}, which is not one of the observer's oracles`
    : `${label} (${target}), which holds or moves value`
}

function describeSelector(selector: Hex): string {
  const s = selector.toLowerCase()
  if (s === UPDATE_PHASE) return `updatePhase (${s}), which moves a phase towards Terminal`
  const name = VALUE_MOVING[s]
  return name === undefined ? `${s}, which is not an oracle publish method` : `${name} (${s}), which moves value or grants an allowance`
}

/** The first way `caveats` allow more than publishing to the observer's oracles, or undefined. */
export function findObserverViolation(caveats: readonly DecodedCaveat[], scope: ObserverScope): ObserverScopeError | undefined {
  for (const c of caveats) {
    if (NARROWING_CAVEATS.has(c.type)) continue
    const name = c.type === 'otherStandard' ? c.name : c.type === 'unknown' ? `unknown enforcer ${c.enforcer}` : c.type
    return new ObserverScopeError(
      `caveats.${c.type}`,
      `holds ${name}, which spends, pays or cannot be read here; an observer delegation carries only caveats that narrow calls and never move value`,
      { enforcer: name },
    )
  }

  const values = caveats.filter((c): c is DecodedCaveatOf<'valueLte'> => c.type === 'valueLte')
  if (!values.some((c) => c.maxValue === 0n)) {
    const seen = values.map((c) => `${c.maxValue} wei`)
    return new ObserverScopeError(
      'caveats.valueLte',
      `${seen.length === 0 ? 'is missing' : `allows ${listPhrase(seen, 'and')}`}: an observer delegation must hold ValueLte(0), so no call sends native value`,
    )
  }

  const targetSets = caveats.filter((c): c is DecodedCaveatOf<'allowedTargets'> => c.type === 'allowedTargets')
  if (targetSets.length === 0)
    return new ObserverScopeError('caveats.allowedTargets', `is missing, so any contract could be called; ${TARGET_RULE}`)
  const oracles = [scope.deployment.dreamOracle, scope.deployment.daimonOracle]
  for (const set of targetSets) {
    const wrong = set.targets.find((t) => !includesAddress(oracles, t))
    if (wrong !== undefined)
      return new ObserverScopeError('caveats.allowedTargets', `includes ${describeTarget(wrong, scope)}; ${TARGET_RULE}`, {
        target: getAddress(wrong),
      })
  }

  const methodSets = caveats.filter((c): c is DecodedCaveatOf<'allowedMethods'> => c.type === 'allowedMethods')
  if (methodSets.length === 0)
    return new ObserverScopeError('caveats.allowedMethods', `is missing, so any function of the targets could be called; ${PUBLISH_RULE}`)
  const publish = Object.values(OBSERVER_PUBLISH_METHODS) as string[]
  for (const set of methodSets) {
    const wrong = set.selectors.find((s) => !publish.includes(s.toLowerCase()))
    if (wrong !== undefined)
      return new ObserverScopeError('caveats.allowedMethods', `includes ${describeSelector(wrong)}; ${PUBLISH_RULE}`, {
        selector: wrong.toLowerCase(),
      })
  }
  return undefined
}

/** Throws the ObserverScopeError findObserverViolation finds. */
export function assertObserverScope(caveats: readonly DecodedCaveat[], scope: ObserverScope): void {
  const error = findObserverViolation(caveats, scope)
  if (error) throw error
}
