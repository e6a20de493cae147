// The council's account is computed without the kit's counterfactual helper (which bundles every framework
// ABI): the address and the factory call must be the kit's own, for any signers, threshold and salt.
import { getSmartAccountsEnvironment, Implementation } from '@metamask/smart-accounts-kit'
import { getCounterfactualAccountData } from '@metamask/smart-accounts-kit/utils'
import { describe, expect, it } from 'vitest'
import { councilAccountOf } from './council.ts'

const environment = getSmartAccountsEnvironment(84532)
const signers = [
  '0x1111111111111111111111111111111111111111',
  '0x2222222222222222222222222222222222222222',
  '0x3333333333333333333333333333333333333333',
] as const

describe('councilAccountOf', () => {
  it.each([
    [2, '0x01'],
    [3, '0x00000000000000000000000000000000000000000000000000000000deadbeef'],
    [1, '0xabcdef'],
  ] as const)("threshold %i, salt %s: the address and factory call are the kit's", async (threshold, salt) => {
    const ours = await councilAccountOf({ environment, signers, threshold, salt })
    const kit = await getCounterfactualAccountData({
      factory: environment.SimpleFactory,
      implementations: environment.implementations,
      implementation: Implementation.MultiSig,
      deployParams: [[...signers], BigInt(threshold)],
      deploySalt: salt,
    })
    expect(ours).toEqual({ address: kit.address, factory: environment.SimpleFactory, factoryData: kit.factoryData })
  })
})
