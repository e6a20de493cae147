// The local chain carries the MetaMask Delegation Framework where MetaMask's own wallet code expects it:
// the v1.3.0 addresses it has on Base, with working code behind every one. An owner as MetaMask makes one
// today (the owner's EOA upgraded by EIP-7702 to the framework's stateless DeleGator) signs a grant that a
// delegate redeems through the DelegationManager at its canonical address, and revokes it with its own
// user operation; a Hybrid smart account owner works as before.
import { getSmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDevnet, type Devnet } from '../../local/devnet.ts'
import { CANONICAL_FRAMEWORK } from '../../local/canonicalFramework.ts'
import { USDC, expectRefused, newKey, ownerDelegation, redeem, revoke, transferCall, usdcBalance } from './harness.ts'

let devnet: Devnet

beforeAll(async () => {
  devnet = await startDevnet()
})
afterAll(async () => devnet?.stop())

describe('the framework at its canonical addresses', () => {
  it('has the addresses it has on Base, each with code', async () => {
    const base = getSmartAccountsEnvironment(8453, CANONICAL_FRAMEWORK.version)
    const env = devnet.deployment.environment
    expect(env).toEqual(base)
    expect(env.DelegationManager).toBe('0xdb9B1e94B5b69Df7e401DDbedE43491141047dB3')
    expect(env.implementations.EIP7702StatelessDeleGatorImpl).toBe('0x63c0c19a282a1B52b07dD5a65b58948A07DAE32B')
    const addresses = [
      env.DelegationManager,
      env.EntryPoint,
      env.SimpleFactory,
      ...Object.values(env.implementations),
      ...Object.values(env.caveatEnforcers),
    ].filter((a): a is `0x${string}` => typeof a === 'string')
    for (const address of addresses) expect((await devnet.publicClient.getCode({ address }))?.length ?? 0, address).toBeGreaterThan(2)
  })

  it("an EIP-7702 owner (MetaMask's own account kind) grants, a delegate redeems, and the owner revokes with its own user operation", async () => {
    const owner = await devnet.createWalletOwner()
    // The EOA's code is the delegation designator to the framework's stateless DeleGator.
    const code = await devnet.publicClient.getCode({ address: owner.address })
    expect(code?.toLowerCase()).toBe(
      `0xef0100${devnet.deployment.environment.implementations.EIP7702StatelessDeleGatorImpl!.slice(2).toLowerCase()}`,
    )
    const delegate = (await newKey(devnet)).account
    const usdc = devnet.deployment.assets.usdc
    const grant = await ownerDelegation(devnet, owner, delegate.address, { targets: [usdc], selectors: ['0xa9059cbb'] })
    const before = await usdcBalance(devnet, owner.address)
    await redeem(devnet, delegate, [grant], [transferCall(usdc, delegate.address, USDC(3))])
    expect(await usdcBalance(devnet, owner.address)).toBe(before - USDC(3))
    await revoke(devnet, owner, grant)
    await expectRefused(devnet, delegate, [grant], [transferCall(usdc, delegate.address, USDC(1))], 'CannotUseADisabledDelegation')
  })

  it('a Hybrid smart account owner grants and is redeemed from as before', async () => {
    const owner = await devnet.createOwner()
    const delegate = (await newKey(devnet)).account
    const usdc = devnet.deployment.assets.usdc
    const grant = await ownerDelegation(devnet, owner, delegate.address, { targets: [usdc], selectors: ['0xa9059cbb'] })
    await redeem(devnet, delegate, [grant], [transferCall(usdc, delegate.address, USDC(2))])
    expect(await usdcBalance(devnet, delegate.address)).toBe(USDC(2))
  })
})
