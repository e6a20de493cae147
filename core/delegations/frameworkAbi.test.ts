import {
  DeleGatorCore,
  DelegationManager,
  ERC1967Proxy,
  ERC20PeriodTransferEnforcer,
  MultiSigDeleGator,
  NativeTokenPeriodTransferEnforcer,
  NonceEnforcer,
  SimpleFactory,
} from '@metamask/delegation-abis'
import { describe, expect, it } from 'vitest'
import {
  DelegationManagerAbi,
  DeleGatorExecuteAbi,
  ERC1967ProxyConstructorAbi,
  MultiSigDeleGatorAbi,
  NonceEnforcerAbi,
  PeriodTransferEnforcerAbi,
  RevocationEventsAbi,
  SimpleFactoryAbi,
} from './frameworkAbi.ts'

const functions = (abi: readonly { type: string; name?: string }[], name: string) =>
  abi.filter((i) => i.type === 'function' && i.name === name)

describe("the framework functions Bardo calls, against the framework's own ABIs", () => {
  it.each([
    ['DelegationManager', DelegationManagerAbi, DelegationManager, ['redeemDelegations', 'disableDelegation', 'disabledDelegations']],
    ['ERC20PeriodTransferEnforcer', PeriodTransferEnforcerAbi, ERC20PeriodTransferEnforcer, ['getAvailableAmount']],
    ['NativeTokenPeriodTransferEnforcer', PeriodTransferEnforcerAbi, NativeTokenPeriodTransferEnforcer, ['getAvailableAmount']],
    ['DeleGatorCore', DeleGatorExecuteAbi, DeleGatorCore, ['execute']],
    ['NonceEnforcer', NonceEnforcerAbi, NonceEnforcer, ['currentNonce']],
    ['MultiSigDeleGator', MultiSigDeleGatorAbi, MultiSigDeleGator, ['initialize', 'isSigner']],
    ['SimpleFactory', SimpleFactoryAbi, SimpleFactory, ['deploy']],
  ] as const)('%s: every entry is the package entry of that name, overloads included', (_, ours, theirs, names) => {
    for (const name of names) expect(functions(ours, name)).toEqual(functions(theirs, name))
    expect(ours.filter((i) => !(names as readonly string[]).includes(i.name))).toEqual([])
  })

  it("the revocation events are the package's: DelegationManager's DisabledDelegation, NonceEnforcer's UsedNonce", () => {
    const event = (abi: readonly { type: string; name?: string }[], name: string) =>
      abi.filter((i) => i.type === 'event' && i.name === name)
    expect(RevocationEventsAbi).toEqual([...event(DelegationManager, 'DisabledDelegation'), ...event(NonceEnforcer, 'UsedNonce')])
  })

  it("ERC1967Proxy: the constructor is the package's", () => {
    expect(ERC1967ProxyConstructorAbi).toEqual(ERC1967Proxy.filter((i) => i.type === 'constructor'))
  })
})
