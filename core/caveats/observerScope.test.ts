import { getAddress, toFunctionSelector, type Address, type Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import type { DecodedCaveat } from './caveat.ts'
import { ObserverScopeError } from './errors.ts'
import { findObserverViolation, OBSERVER_PUBLISH_METHODS, assertObserverScope, type ObserverScope } from './observerScope.ts'
import { DEPLOYMENT, ENV, FEEDS, GOLEM, LABELS, NOW, OWNER, ROUTER, USD, USDC, VAULT } from '../../test/support/caveats/fixtures.ts'

const scope: ObserverScope = {
  deployment: DEPLOYMENT,
  delegationManager: ENV.DelegationManager,
  delegators: [GOLEM, OWNER],
  labels: LABELS,
}
const ORACLES = [getAddress(DEPLOYMENT.dreamOracle), getAddress(DEPLOYMENT.daimonOracle)]
const PUBLISH = Object.values(OBSERVER_PUBLISH_METHODS) as Hex[]
const sel = (signature: string) => toFunctionSelector(`function ${signature}`)

const targets = (...ts: Address[]): DecodedCaveat => ({ type: 'allowedTargets', targets: ts })
const methods = (...ss: Hex[]): DecodedCaveat => ({ type: 'allowedMethods', selectors: ss })
const valueLte = (maxValue: bigint): DecodedCaveat => ({ type: 'valueLte', maxValue })
const observer = (): DecodedCaveat[] => [targets(...ORACLES), methods(...PUBLISH), valueLte(0n)]

/** The refusal for `caveats`, asserting it is an ObserverScopeError on `field`. */
function refused(caveats: DecodedCaveat[], field: string): ObserverScopeError {
  const error = findObserverViolation(caveats, scope)
  expect(error).toBeInstanceOf(ObserverScopeError)
  expect(error!.field).toBe(field)
  expect(error!.code).toBe('OBSERVER_SCOPE')
  expect(error!.message.startsWith(`${field} `)).toBe(true)
  return error!
}

describe('findObserverViolation: what an observer delegation may hold', () => {
  it('accepts publish-only caveats, and narrowing extras (calls, time, redeemer, phase, dream, calldata)', () => {
    expect(findObserverViolation(observer(), scope)).toBeUndefined()
    const narrower: DecodedCaveat[] = [
      targets(ORACLES[1]!),
      methods(OBSERVER_PUBLISH_METHODS.setPAD),
      valueLte(0n),
      { type: 'limitedCalls', limit: 10n },
      { type: 'timestamp', afterThreshold: 0n, beforeThreshold: NOW + 86_400n },
      { type: 'blockNumber', afterThreshold: 0n, beforeThreshold: 10_000n },
      { type: 'redeemer', redeemers: [GOLEM] },
      { type: 'exactCalldata', calldata: OBSERVER_PUBLISH_METHODS.setPAD },
      { type: 'allowedCalldata', startIndex: 4n, value: `0x${'00'.repeat(32)}` },
      { type: 'golemPhase', golem: GOLEM },
      { type: 'mortalityTimeWindow', startTime: NOW, endTime: NOW + 86_400n },
      { type: 'dreamMode', golem: GOLEM },
      { type: 'emotionalState', golem: GOLEM, minPleasure: -50, maxArousal: 80, minDominance: -50, restrictedSelectors: [] },
    ]
    expect(findObserverViolation(narrower, scope)).toBeUndefined()
    expect(() => assertObserverScope(observer(), scope)).not.toThrow()
  })

  it('refuses a delegation without ValueLte(0): missing, or allowing any wei', () => {
    expect(refused([targets(...ORACLES), methods(...PUBLISH)], 'caveats.valueLte').message).toBe(
      'caveats.valueLte is missing: an observer delegation must hold ValueLte(0), so no call sends native value',
    )
    expect(refused([targets(...ORACLES), methods(...PUBLISH), valueLte(1n)], 'caveats.valueLte').message).toContain('allows 1 wei')
    expect(() => assertObserverScope([targets(...ORACLES), methods(...PUBLISH)], scope)).toThrow(ObserverScopeError)
  })

  it('refuses a delegation without AllowedTargets or AllowedMethods (any contract, any function)', () => {
    expect(refused([methods(...PUBLISH), valueLte(0n)], 'caveats.allowedTargets').message).toContain('is missing')
    expect(refused([targets(...ORACLES), valueLte(0n)], 'caveats.allowedMethods').message).toContain('is missing')
  })

  it.each([
    ['a token', USDC, 'the token USDC'],
    ['a vault', VAULT, 'the USDC vault'],
    ['a router', ROUTER, 'the Uniswap router'],
    ['the DelegationManager', ENV.DelegationManager, 'the DelegationManager'],
    ['the delegator', GOLEM, 'the delegating account'],
    ['the account a redemption runs as', OWNER, 'the delegating account'],
    ['the VitalityOracle', DEPLOYMENT.vitalityOracle, 'the VitalityOracle'],
    ['an unknown contract', getAddress('0x00000000000000000000000000000000DeaDBeef'), "not one of the observer's oracles"],
  ] as const)('refuses a target that is %s, naming it', (_, target, named) => {
    const error = refused([targets(...ORACLES, target), methods(...PUBLISH), valueLte(0n)], 'caveats.allowedTargets')
    expect(error.message).toContain(named)
    expect(error.message).toContain('may call only the DreamOracle and the DaimonOracle')
    expect(error.details).toMatchObject({ target: getAddress(target) })
  })

  it.each([
    ['transfer', sel('transfer(address,uint256)')],
    ['approve', sel('approve(address,uint256)')],
    ['transferFrom', sel('transferFrom(address,address,uint256)')],
    ['permit', sel('permit(address,address,uint256,uint256,uint8,bytes32,bytes32)')],
    ['permit', sel('permit(address,address,uint256,uint256,bool,uint8,bytes32,bytes32)')],
    ['increaseAllowance', sel('increaseAllowance(address,uint256)')],
    ['setApprovalForAll', sel('setApprovalForAll(address,bool)')],
    ['safeTransferFrom', sel('safeTransferFrom(address,address,uint256,bytes)')],
    ['transferWithAuthorization', sel('transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)')],
    ['deposit', sel('deposit(uint256,address)')],
    ['redeemDelegations', sel('redeemDelegations(bytes[],bytes32[],bytes[])')],
  ] as const)('refuses the value-moving method %s (%s)', (name, selector) => {
    const error = refused([targets(...ORACLES), methods(...PUBLISH, selector), valueLte(0n)], 'caveats.allowedMethods')
    expect(error.message).toContain(`includes ${name} (${selector})`)
    expect(error.message).toContain('moves value or grants an allowance')
    expect(error.message).toContain('may call only startDream, endDream and setPAD')
  })

  it('refuses updatePhase (a phase only moves towards Terminal) and any selector that is not a publish method', () => {
    expect(
      refused([targets(...ORACLES), methods(sel('updatePhase(uint8,uint16)')), valueLte(0n)], 'caveats.allowedMethods').message,
    ).toContain('towards Terminal')
    expect(refused([targets(...ORACLES), methods('0x12345678'), valueLte(0n)], 'caveats.allowedMethods').message).toContain(
      '0x12345678, which is not an oracle publish method',
    )
  })

  it.each<[string, DecodedCaveat]>([
    ['erc20PeriodTransfer', { type: 'erc20PeriodTransfer', tokenAddress: USDC, periodAmount: 1n, periodDuration: 86_400n, startDate: NOW }],
    ['nativeTokenPeriodTransfer', { type: 'nativeTokenPeriodTransfer', periodAmount: 1n, periodDuration: 86_400n, startDate: NOW }],
    ['erc20TransferAmount', { type: 'erc20TransferAmount', tokenAddress: USDC, maxAmount: 1n }],
    ['nativeTokenTransferAmount', { type: 'nativeTokenTransferAmount', maxAmount: 1n }],
    ['dailySpendLimit', { type: 'dailySpendLimit', dailyLimitUsd: USD(10), maxPriceAge: 3600, feeds: FEEDS }],
    ['replicantBudget', { type: 'replicantBudget', maxBudgetUsd: USD(10), maxLifespanSeconds: 600n, maxPriceAge: 3600, feeds: FEEDS }],
    ['knowledgeRoyalty', { type: 'knowledgeRoyalty', token: USDC, author: GOLEM, royaltyBps: 100 }],
    ['vaultNav', { type: 'vaultNav', vault: VAULT, maxNavBps: 100 }],
    ['maxSlippage', { type: 'maxSlippage', maxSlippageBps: 50, maxPriceAge: 3600, feeds: FEEDS }],
    ['NativeTokenPaymentEnforcer', { type: 'otherStandard', name: 'NativeTokenPaymentEnforcer', enforcer: GOLEM, terms: '0x' }],
    ['unknown enforcer', { type: 'unknown', enforcer: getAddress('0x00000000000000000000000000000000000E4F00'), terms: '0x' }],
  ])('refuses a %s caveat (it spends, pays, or cannot be read)', (name, caveat) => {
    const error = refused([...observer(), caveat], `caveats.${caveat.type}`)
    expect(error.message).toContain(`holds ${name}`)
  })

  it('checks every AllowedTargets and AllowedMethods caveat, not only the first', () => {
    refused([...observer(), targets(USDC)], 'caveats.allowedTargets')
    refused([...observer(), methods(sel('approve(address,uint256)'))], 'caveats.allowedMethods')
  })
})
