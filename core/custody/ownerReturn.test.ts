// What a Golem may sign to hand its unspent funds back: an ERC-20 `transfer` of its runway token to the
// owner's account, and a plain native transfer to the owner. Every other transfer is refused, naming
// the rule it broke.
import {
  encodeFunctionData,
  erc20Abi,
  parseTransaction,
  recoverTransactionAddress,
  type Address,
  type Hex,
  type TransactionSerializable,
} from 'viem'
import { describe, expect, it } from 'vitest'
import { SignerPolicyError } from './errors.ts'
import { GolemSigner } from './golemSigner.ts'
import { golemSignerPolicy, ownerOf } from './golemPolicy.ts'
import { MemoryKey } from './memoryKey.ts'
import { ERC20_TRANSFER_SELECTOR } from './policy.ts'
import { DELEGATION_MANAGER, RANDOM_TARGET, VITALITY_ORACLE, policy, tx } from '../../test/support/custody/fixtures.ts'
import { testProfile } from '../../test/support/lifecycle/profile.ts'

const OWNER: Address = '0x0000000000000000000000000000000000000bee'
const USDC: Address = '0x000000000000000000000000000000000000c0de'
const OTHER_TOKEN: Address = '0x000000000000000000000000000000000000dead'

const setup = (overrides: Parameters<typeof policy>[0] = { owner: OWNER, returnTokens: [USDC] }) => {
  const key = MemoryKey.generate()
  return new GolemSigner({ signer: key.toRawSigner(), policy: policy(overrides) })
}
const transfer = (to: Address, amount: bigint): Hex => encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] })
const rule = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(SignerPolicyError)
  return (err as SignerPolicyError).rule
}

describe('GolemSigner: unspent funds go home to the owner', () => {
  it('signs the runway token transfer to the owner', async () => {
    const golem = setup()
    const signed = await golem.signTokenReturn(tx({ to: USDC, data: transfer(OWNER, 5_000_000n) }))
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(golem.address)
    expect(parseTransaction(signed).data?.slice(0, 10)).toBe(ERC20_TRANSFER_SELECTOR)
  })

  it('signs a plain native transfer to the owner', async () => {
    const golem = setup()
    const signed = await golem.signNativeReturn(tx({ to: OWNER, data: undefined, value: 123n }))
    expect(parseTransaction(signed)).toMatchObject({ to: OWNER, value: 123n })
  })

  it('takes the owner from the root delegation of the runway chain, and the token from the runway', () => {
    const p = testProfile()
    const root = p.runway.chain.at(-1)!.delegator
    expect(ownerOf(p)).toBe(root)
    const config = golemSignerPolicy(
      {
        chainId: 1,
        environment: { DelegationManager: DELEGATION_MANAGER } as never,
        vitalityOracle: VITALITY_ORACLE,
        dreamOracle: VITALITY_ORACLE,
        daimonOracle: VITALITY_ORACLE,
        enforcers: {} as never,
        startBlock: 0n,
      },
      p,
    )
    expect(config).toMatchObject({ owner: root, returnTokens: [p.runway.token] })
  })
})

describe('GolemSigner: every other transfer is refused, naming the rule', () => {
  it.each<[string, Partial<TransactionSerializable>]>([
    ['owner-only-recipient', { to: USDC, data: transfer(RANDOM_TARGET, 1n) }],
    ['token-return-amount', { to: USDC, data: transfer(OWNER, 0n) }],
    ['token-transfer-only', { to: USDC, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [OWNER, 1n] }) }],
    [
      'token-transfer-only',
      { to: USDC, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transferFrom', args: [OWNER, OWNER, 1n] }) },
    ],
    ['calldata-decodes', { to: USDC, data: `${ERC20_TRANSFER_SELECTOR}00` }],
    ['allowed-target', { to: OTHER_TOKEN, data: transfer(OWNER, 1n) }],
    ['no-value', { to: RANDOM_TARGET, data: undefined, value: 1n }],
    ['no-value', { to: USDC, data: transfer(OWNER, 1n), value: 1n }],
    ['no-value', { value: 1n }],
    ['native-return-plain', { to: OWNER, data: '0x12345678', value: 1n }],
    ['native-return-plain', { to: OWNER, data: undefined, value: 0n }],
  ])('refuses %s', async (expected, overrides) => {
    expect(await rule(setup().account.signTransaction(tx(overrides)))).toBe(expected)
  })

  it('refuses any transfer when no owner is configured', async () => {
    const golem = setup({})
    expect(await rule(golem.account.signTransaction(tx({ to: USDC, data: transfer(OWNER, 1n) })))).toBe('allowed-target')
    expect(await rule(golem.account.signTransaction(tx({ to: OWNER, data: undefined, value: 1n })))).toBe('no-value')
  })

  it('refuses a return through the wrong purpose method, and a redemption through a return method', async () => {
    const golem = setup()
    expect(await rule(golem.signNativeReturn(tx({ to: USDC, data: transfer(OWNER, 1n) })))).toBe('purpose-mismatch')
    expect(await rule(golem.signTokenReturn(tx({ to: OWNER, data: undefined, value: 1n })))).toBe('purpose-mismatch')
    expect(await rule(golem.signTokenReturn(tx()))).toBe('purpose-mismatch')
    expect(await rule(golem.signRedemptionTransaction(tx({ to: USDC, data: transfer(OWNER, 1n) })))).toBe('purpose-mismatch')
  })

  it('rejects return tokens without an owner, and a malformed owner, naming the field', () => {
    const key = MemoryKey.generate()
    expect(() => new GolemSigner({ signer: key.toRawSigner(), policy: policy({ returnTokens: [USDC] }) })).toThrow(/policy.owner/)
    expect(() => new GolemSigner({ signer: key.toRawSigner(), policy: policy({ owner: '0x12' as Address }) })).toThrow(/policy.owner/)
  })
})
