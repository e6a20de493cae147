import { ANY_BENEFICIARY, createDelegation, ROOT_AUTHORITY, type Delegation } from '@metamask/smart-accounts-kit'
import { getAddress, toFunctionSelector, zeroAddress, type Address } from 'viem'
import { describe, expect, it } from 'vitest'
import { decodeDelegationCaveats } from '../caveats/caveat.ts'
import { AttenuationError, ObserverScopeError } from '../caveats/errors.ts'
import { OBSERVER_PUBLISH_METHODS } from '../caveats/observerScope.ts'
import { DEPLOYMENT, ENV, FEEDS, GOLEM, LABELS, NOW, OWNER, REPLICANT, USD, USDC } from '../../test/support/caveats/fixtures.ts'
import { buildGolemDelegation } from './buildGolemDelegation.ts'
import { buildObserverDelegation } from './buildObserverDelegation.ts'
import { buildReplicantDelegation } from './buildReplicantDelegation.ts'
import { DelegationShapeError, DelegationTreeError } from './errors.ts'
import { DelegationTree } from './tree.ts'

const SLEEPWALKER: Address = getAddress('0x000000000000000000000000000000000000510E')
const DREAM = getAddress(DEPLOYMENT.dreamOracle)
const DAIMON = getAddress(DEPLOYMENT.daimonOracle)
const PUBLISH = Object.values(OBSERVER_PUBLISH_METHODS)
const APPROVE = toFunctionSelector('function approve(address,uint256)')
const TRANSFER = toFunctionSelector('function transfer(address,uint256)')

const newTree = () => new DelegationTree({ environment: ENV, deployment: DEPLOYMENT, now: () => NOW, labels: LABELS })
const enforcerNames = (d: Delegation) =>
  d.caveats.map((c) => Object.entries(ENV.caveatEnforcers).find(([, a]) => a.toLowerCase() === c.enforcer.toLowerCase())?.[0])
/** The owner's root grant to the Golem, and the Golem's re-delegation to its Sleepwalker. */
function ownerToGolem(tree: DelegationTree, publish?: ('startDream' | 'endDream' | 'setPAD')[]) {
  return buildObserverDelegation({ tree, from: OWNER, observer: GOLEM, ...(publish ? { publish } : {}) })
}

describe('buildObserverDelegation', () => {
  it('builds AllowedTargets(Dream, Daimon oracles), AllowedMethods(startDream, endDream, setPAD), ValueLte(0) with the kit', () => {
    const tree = newTree()
    const built = ownerToGolem(tree)
    expect(enforcerNames(built.delegation)).toEqual(['AllowedTargetsEnforcer', 'AllowedMethodsEnforcer', 'ValueLteEnforcer'])
    expect(decodeDelegationCaveats(built.delegation, DEPLOYMENT, ENV)).toEqual([
      { type: 'allowedTargets', targets: [DREAM, DAIMON] },
      { type: 'allowedMethods', selectors: PUBLISH },
      { type: 'valueLte', maxValue: 0n },
    ])
    expect(built.targets).toEqual([DREAM, DAIMON])
    expect(built.selectors).toEqual(PUBLISH)
    expect(built.delegation.delegator).toBe(OWNER)
    expect(built.delegation.delegate).toBe(GOLEM)
    expect(built.delegation.authority).toBe(ROOT_AUTHORITY)
    expect(tree.get(built.hash)?.observer).toBe(true)
  })

  it('targets only the oracle the chosen methods live on', () => {
    const tree = newTree()
    expect(buildObserverDelegation({ tree, from: OWNER, observer: GOLEM, publish: ['setPAD'] }).targets).toEqual([DAIMON])
    expect(buildObserverDelegation({ tree, from: OWNER, observer: GOLEM, publish: ['startDream', 'endDream'] }).targets).toEqual([DREAM])
  })

  it('adds LimitedCalls, an expiry and narrowing Bardo caveats when asked', () => {
    const tree = newTree()
    const built = buildObserverDelegation({
      tree,
      from: OWNER,
      observer: GOLEM,
      maxCalls: 100,
      expiresAt: NOW + 86_400n,
      bardo: [{ type: 'golemPhase', golem: GOLEM }],
    })
    const types = decodeDelegationCaveats(built.delegation, DEPLOYMENT, ENV).map((c) => c.type)
    expect(types).toEqual(['allowedTargets', 'allowedMethods', 'valueLte', 'limitedCalls', 'timestamp', 'golemPhase'])
  })

  it('re-delegates an observer grant (the Sleepwalker under its Golem): narrower passes, the chain is [child, parent]', () => {
    const tree = newTree()
    const parent = ownerToGolem(tree)
    const child = buildObserverDelegation({ tree, parent: parent.hash, observer: SLEEPWALKER, publish: ['setPAD'] })
    expect(child.delegation.delegator).toBe(GOLEM)
    expect(child.delegation.authority).toBe(parent.hash)
    expect(tree.chain(child.hash).map((d) => d.delegate)).toEqual([SLEEPWALKER, GOLEM])
    expect(tree.get(child.hash)?.observer).toBe(true)
  })

  it('refuses a re-delegation wider than its observer parent (AttenuationError), leaving the tree unchanged', () => {
    const tree = newTree()
    const parent = ownerToGolem(tree, ['setPAD'])
    const before = tree.nodes().length
    expect(() => buildObserverDelegation({ tree, parent: parent.hash, observer: SLEEPWALKER })).toThrow(AttenuationError)
    expect(tree.nodes().length).toBe(before)
  })

  it.each<[string, (tree: DelegationTree) => Parameters<typeof buildObserverDelegation>[0], string]>([
    ['neither from nor parent', (tree) => ({ tree, observer: GOLEM }), 'from|parent'],
    ['both from and parent', (tree) => ({ tree, from: OWNER, parent: ROOT_AUTHORITY, observer: GOLEM }), 'from|parent'],
    ['an unknown parent', (tree) => ({ tree, parent: `0x${'ab'.repeat(32)}`, observer: GOLEM }), 'parent'],
    ['a zero observer', (tree) => ({ tree, from: OWNER, observer: zeroAddress }), 'observer'],
    ['an open (ANY_BENEFICIARY) observer', (tree) => ({ tree, from: OWNER, observer: ANY_BENEFICIARY }), 'observer'],
    ['the delegator as observer', (tree) => ({ tree, from: OWNER, observer: OWNER }), 'observer'],
    ['a malformed from', (tree) => ({ tree, from: '0x1234' as Address, observer: GOLEM }), 'from'],
    ['no publish method', (tree) => ({ tree, from: OWNER, observer: GOLEM, publish: [] }), 'publish'],
    ['a publish method that is not one', (tree) => ({ tree, from: OWNER, observer: GOLEM, publish: ['transfer' as 'setPAD'] }), 'publish'],
    ['maxCalls 0', (tree) => ({ tree, from: OWNER, observer: GOLEM, maxCalls: 0 }), 'maxCalls'],
    ['an expiry in the past', (tree) => ({ tree, from: OWNER, observer: GOLEM, expiresAt: NOW }), 'expiresAt'],
  ])('refuses %s (DelegationShapeError naming the field), changing nothing', (_, params, field) => {
    const tree = newTree()
    expect(() => buildObserverDelegation(params(tree))).toThrow(expect.objectContaining({ name: 'DelegationShapeError', field }))
    expect(tree.nodes()).toEqual([])
  })

  it('refuses a parent that is a spending grant, not an observer delegation', () => {
    const tree = newTree()
    const { runway } = buildGolemDelegation({
      tree,
      owner: OWNER,
      golem: GOLEM,
      bardo: [{ type: 'golemPhase', golem: GOLEM, startTime: NOW, endTime: NOW + 86_400n }],
      runway: { token: USDC, periodAmount: USD(10), periodDuration: 86_400, startDate: Number(NOW) },
    })
    const error = (() => {
      try {
        buildObserverDelegation({ tree, parent: runway!.hash, observer: SLEEPWALKER })
      } catch (e) {
        return e
      }
    })()
    expect(error).toBeInstanceOf(DelegationShapeError)
    expect((error as DelegationShapeError).message).toContain('is not an observer delegation')
    expect(tree.nodes().length).toBe(1)
  })

  it('refuses spending Bardo caveats on an observer (ObserverScopeError), changing nothing', () => {
    const tree = newTree()
    expect(() =>
      buildObserverDelegation({
        tree,
        from: OWNER,
        observer: GOLEM,
        bardo: [{ type: 'dailySpendLimit', dailyLimitUsd: USD(10), maxPriceAge: 3600, feeds: FEEDS }],
      }),
    ).toThrow(/caveats\.dailySpendLimit holds dailySpendLimit/)
    expect(tree.nodes()).toEqual([])
  })
})

describe('DelegationTree: the observer rule where attenuation is checked', () => {
  it('refuses a hand-built wider delegation added as an observer (a token target, approve, no ValueLte)', () => {
    const tree = newTree()
    const wide = createDelegation({
      environment: ENV,
      from: OWNER,
      to: GOLEM,
      scope: { type: 'functionCall', targets: [DAIMON, USDC], selectors: [OBSERVER_PUBLISH_METHODS.setPAD, APPROVE] },
      salt: '0x01',
    })
    expect(() => tree.add(wide, { observer: true })).toThrow(ObserverScopeError)
    expect(() => tree.add(wide, { observer: true })).toThrow(/caveats\.allowedTargets includes the token USDC/)
    expect(tree.nodes()).toEqual([])
    // Without the observer mark it is an ordinary (if unwise) delegation; the mark is what holds it to the rule.
    expect(() => tree.check(wide)).not.toThrow()
  })

  it('holds everything re-delegated under an observer to the rule: a hand-built transfer child, a Replicant', () => {
    const tree = newTree()
    const parent = ownerToGolem(tree)
    const transfer = createDelegation({
      environment: ENV,
      from: GOLEM,
      to: SLEEPWALKER,
      parentDelegation: parent.delegation,
      scope: { type: 'functionCall', targets: [DAIMON], selectors: [TRANSFER], valueLte: { maxValue: 0n } },
      salt: '0x02',
    })
    expect(() => tree.add(transfer)).toThrow(/caveats\.allowedMethods includes transfer \(0xa9059cbb\), which moves value/)
    expect(() =>
      buildReplicantDelegation({
        tree,
        parent: parent.hash,
        replicant: REPLICANT,
        budget: { maxBudgetUsd: USD(5), maxLifespanSeconds: 600n, maxPriceAge: 3600, feeds: FEEDS },
        maxCalls: 3,
      }),
    ).toThrow(ObserverScopeError)
    expect(tree.nodes().length).toBe(1)
  })

  it('checks again at signing time, and refuses re-adding a non-observer delegation as an observer', async () => {
    const tree = newTree()
    const built = ownerToGolem(tree)
    const signed = await tree.sign(built.hash, async () => '0x1234')
    expect(signed.signature).toBe('0x1234')
    const plain = createDelegation({
      environment: ENV,
      from: OWNER,
      to: GOLEM,
      scope: { type: 'functionCall', targets: [DAIMON], selectors: [OBSERVER_PUBLISH_METHODS.setPAD], valueLte: { maxValue: 0n } },
      salt: '0x03',
    })
    const hash = tree.add(plain)
    expect(() => tree.add(plain, { observer: true })).toThrow(DelegationTreeError)
    expect(tree.get(hash)?.observer).toBeUndefined()
  })
})
