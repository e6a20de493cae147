// The owner's observer grant as the API takes it, checked without a chain: the builder's own delegation
// accepted with its terms read back, and each way a posted delegation is not the owner's observer grant
// refused with the field and the rule.
import { ANY_BENEFICIARY, createDelegation, type Delegation } from '@metamask/smart-accounts-kit'
import { getAddress, toFunctionSelector } from 'viem'
import { describe, expect, it } from 'vitest'
import { OBSERVER_PUBLISH_METHODS } from '../caveats/observerScope.ts'
import { DEPLOYMENT, ENV, GOLEM, LABELS, NOW, OWNER, USDC } from '../../test/support/caveats/fixtures.ts'
import { buildObserverDelegation } from '../delegations/buildObserverDelegation.ts'
import { DelegationTree } from '../delegations/tree.ts'
import { checkObserverDraft, checkObserverGrant, ObserverGrantError, observerTermsOf } from './observerGrant.ts'
import { decodeDelegationCaveats } from '../caveats/caveat.ts'

const OBSERVER = getAddress('0x000000000000000000000000000000000000510E')
const SIGNED = `0x${'11'.repeat(65)}` as const
const newTree = () => new DelegationTree({ environment: ENV, deployment: DEPLOYMENT, now: () => NOW, labels: LABELS })
const built = (o: Partial<Parameters<typeof buildObserverDelegation>[0]> = {}) =>
  buildObserverDelegation({ tree: newTree(), from: OWNER, observer: OBSERVER, ...o })
const input = (delegation: Delegation) => ({ delegation, owner: OWNER, deployment: DEPLOYMENT, environment: ENV, now: NOW, labels: LABELS })

function refusal(run: () => unknown): ObserverGrantError {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(ObserverGrantError)
    return error as ObserverGrantError
  }
  throw new Error('expected a refusal')
}

describe('checkObserverGrant', () => {
  it("accepts the builder's grant from the owner, with its terms read from its caveats", () => {
    const { delegation, hash } = built({ publish: ['setPAD'], expiresAt: NOW + 3600n, maxCalls: 7 })
    expect(checkObserverGrant(input({ ...delegation, signature: SIGNED }))).toEqual({
      hash,
      observer: OBSERVER,
      publish: ['setPAD'],
      expiresAt: NOW + 3600n,
      maxCalls: 7n,
    })
    // The draft, unsigned, is what an owner's signer checks before signing.
    expect(checkObserverDraft(input(delegation)).hash).toBe(hash)
    expect(refusal(() => checkObserverGrant(input(delegation)))).toMatchObject({ field: 'delegation.signature' })
  })

  it('reads a method as published only where its oracle is a target as well', () => {
    const onlyDream = createDelegation({
      environment: ENV,
      from: OWNER,
      to: OBSERVER,
      scope: {
        type: 'functionCall',
        targets: [DEPLOYMENT.dreamOracle],
        selectors: [OBSERVER_PUBLISH_METHODS.startDream, OBSERVER_PUBLISH_METHODS.setPAD],
        valueLte: { maxValue: 0n },
      },
    })
    expect(observerTermsOf(OBSERVER, decodeDelegationCaveats(onlyDream, DEPLOYMENT, ENV), DEPLOYMENT).publish).toEqual(['startDream'])
  })

  it('refuses what is not the owner’s observer grant, naming the field', () => {
    const { delegation } = built()
    const signed = { ...delegation, signature: SIGNED }
    const cases: [Delegation, string, RegExp][] = [
      [{ ...signed, delegator: GOLEM }, 'delegation.delegator', /must be the Golem's owner/],
      [{ ...signed, authority: `0x${'22'.repeat(32)}` }, 'delegation.authority', /must be the root authority/],
      [{ ...signed, delegate: ANY_BENEFICIARY }, 'delegation.delegate', /must name one observer/],
      [{ ...signed, delegate: OWNER }, 'delegation.delegate', /must differ from the owner/],
    ]
    for (const [d, field, rule] of cases)
      expect(refusal(() => checkObserverGrant(input(d)))).toMatchObject({ field, message: expect.stringMatching(rule) })
  })

  it('refuses a scope wider than an observer’s and an expiry already past, by the caveat', () => {
    const wide = createDelegation({
      environment: ENV,
      from: OWNER,
      to: OBSERVER,
      scope: {
        type: 'functionCall',
        targets: [DEPLOYMENT.daimonOracle, USDC],
        selectors: [OBSERVER_PUBLISH_METHODS.setPAD, toFunctionSelector('function transfer(address,uint256)')],
        valueLte: { maxValue: 0n },
      },
    })
    expect(refusal(() => checkObserverGrant(input({ ...wide, signature: SIGNED })))).toMatchObject({
      field: 'delegation.caveats.allowedTargets',
      message: expect.stringMatching(/includes the token USDC .*which holds value; an observer delegation may call only/),
    })
    const expired = createDelegation({
      environment: ENV,
      from: OWNER,
      to: OBSERVER,
      scope: {
        type: 'functionCall',
        targets: [DEPLOYMENT.daimonOracle],
        selectors: [OBSERVER_PUBLISH_METHODS.setPAD],
        valueLte: { maxValue: 0n },
      },
      caveats: [
        {
          enforcer: ENV.caveatEnforcers.TimestampEnforcer!,
          terms: `0x${0n.toString(16).padStart(32, '0')}${(NOW - 1n).toString(16).padStart(32, '0')}`,
          args: '0x',
        },
      ],
    })
    expect(refusal(() => checkObserverGrant(input({ ...expired, signature: SIGNED })))).toMatchObject({
      field: 'delegation.caveats.timestamp',
      message: expect.stringMatching(/expired/),
    })
  })
})
