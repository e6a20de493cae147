import { signDelegation as kitSignDelegation } from '@metamask/smart-accounts-kit'
import { DelegationManager } from '@metamask/delegation-abis'
import {
  bytesToHex,
  encodeFunctionData,
  hashTypedData,
  parseTransaction,
  recoverTransactionAddress,
  recoverTypedDataAddress,
  type Address,
  type TransactionSerializable,
} from 'viem'
import { describe, expect, it } from 'vitest'
import { SignerPolicyError } from './errors.ts'
import { GolemSigner } from './golemSigner.ts'
import { MemoryKey } from './memoryKey.ts'
import { DISABLE_DELEGATION_SELECTOR, REDEEM_DELEGATIONS_SELECTOR } from './policy.ts'
import {
  CHAIN_ID,
  DAIMON_ORACLE,
  DELEGATION_MANAGER,
  DREAM_ORACLE,
  RANDOM_TARGET,
  VITALITY_ORACLE,
  disableCalldata,
  policy,
  redeemCalldata,
  subDelegation,
  tx,
  typed,
} from '../../test/support/custody/fixtures.ts'

const setup = (overrides: Parameters<typeof policy>[0] = {}) => {
  const key = MemoryKey.generate()
  return { key, golem: new GolemSigner({ signer: key.toRawSigner(), policy: policy(overrides) }) }
}
const rule = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => undefined,
    (e) => e,
  )
  expect(err).toBeInstanceOf(SignerPolicyError)
  return (err as SignerPolicyError).rule
}

describe('GolemSigner: what a Golem may sign', () => {
  it('takes the DelegationManager selectors from the delegation-abis ABI', () => {
    expect(REDEEM_DELEGATIONS_SELECTOR).toBe('0xcef6d209')
    expect(DISABLE_DELEGATION_SELECTOR).toBe('0x49934047')
  })

  it('signs a redemption that recovers to its address', async () => {
    const { golem } = setup()
    const signed = await golem.signRedemptionTransaction(tx())
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(golem.address)
    expect(parseTransaction(signed).to?.toLowerCase()).toBe(DELEGATION_MANAGER.toLowerCase())
  })

  it('signs a disable of its own delegation', async () => {
    const { golem } = setup()
    const signed = await golem.signDisableDelegation(tx({ data: disableCalldata(golem.address) }))
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(golem.address)
  })

  it.each([VITALITY_ORACLE, DREAM_ORACLE, DAIMON_ORACLE])('signs an update to its own oracle %s', async (oracle) => {
    const { golem } = setup()
    const signed = await golem.signOracleUpdate(tx({ to: oracle, data: '0xdeadbeef0000' }))
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(golem.address)
  })

  it('signs a Replicant sub-delegation byte-identical to the smart-accounts-kit', async () => {
    const { key, golem } = setup()
    const unsigned = subDelegation(golem.address)
    const signed = await golem.signDelegation(unsigned)
    const bytes = key.exportBytesForKeystore()
    const kit = await kitSignDelegation({
      privateKey: bytesToHex(bytes),
      delegation: unsigned,
      delegationManager: DELEGATION_MANAGER,
      chainId: CHAIN_ID,
    })
    bytes.fill(0)
    expect(signed.signature).toBe(kit)
    const td = golem.delegationTypedData(unsigned)
    expect(await recoverTypedDataAddress({ ...typed(td), signature: signed.signature })).toBe(golem.address)
  })
})

describe('GolemSigner: refusals name the rule', () => {
  it('has no message, raw-hash or authorization path', async () => {
    const { golem } = setup()
    expect(await rule(golem.account.signMessage({ message: 'gm' }))).toBe('no-arbitrary-signing')
    expect(await rule(golem.account.signMessage({ message: { raw: '0x1234' } }))).toBe('no-arbitrary-signing')
    expect(await rule(golem.account.sign!({ hash: `0x${'11'.repeat(32)}` }))).toBe('no-arbitrary-signing')
    expect(await rule(golem.account.signAuthorization!({ address: RANDOM_TARGET, chainId: CHAIN_ID, nonce: 0 }))).toBe(
      'no-arbitrary-signing',
    )
    expect(Object.keys(golem).some((k) => /sign(Message|Hash|Bytes)/.test(k))).toBe(false)
  })

  it.each<[string, Partial<TransactionSerializable>]>([
    ['allowed-target', { to: RANDOM_TARGET }],
    ['allowed-method', { data: `0xa9059cbb${'00'.repeat(64)}` }],
    ['allowed-method', { data: '0x' }],
    ['calldata-decodes', { data: `${REDEEM_DELEGATIONS_SELECTOR}1234` }],
    ['no-value', { value: 1n }],
    ['chain-id', { chainId: 1 }],
    ['chain-id', { chainId: undefined }],
    ['no-contract-creation', { to: undefined }],
    ['oracle-call', { to: VITALITY_ORACLE, data: '0x' }],
    ['no-authorization-list', { type: 'eip7702', authorizationList: [] } as never],
    ['no-blob-transactions', { type: 'eip4844', blobVersionedHashes: [] } as never],
  ])('refuses a transaction (%s)', async (expected, overrides) => {
    const { golem } = setup()
    expect(await rule(golem.account.signTransaction(tx(overrides)))).toBe(expected)
  })

  it('refuses to disable a delegation made by someone else', async () => {
    const { golem } = setup()
    expect(await rule(golem.signDisableDelegation(tx({ data: disableCalldata(RANDOM_TARGET) })))).toBe('own-delegation')
  })

  it('refuses a transaction through the wrong purpose method', async () => {
    const { golem } = setup()
    expect(await rule(golem.signRedemptionTransaction(tx({ to: VITALITY_ORACLE, data: '0x12345678' })))).toBe('purpose-mismatch')
    expect(await rule(golem.signOracleUpdate(tx()))).toBe('purpose-mismatch')
    expect(await rule(golem.signDisableDelegation(tx()))).toBe('purpose-mismatch')
  })

  it('refuses fees above the configured cap', async () => {
    const { golem } = setup({ maxFeePerGas: 1_000_000_000n })
    expect(await rule(golem.signRedemptionTransaction(tx({ maxFeePerGas: 1_000_000_001n })))).toBe('fee-cap')
  })

  it('refuses typed data that is not a Delegation (an ERC-20 Permit)', async () => {
    const { golem } = setup()
    const permit = {
      domain: { name: 'USD Coin', version: '2', chainId: CHAIN_ID, verifyingContract: RANDOM_TARGET },
      types: {
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      message: { owner: golem.address, spender: RANDOM_TARGET, value: 10n ** 30n, nonce: 0n, deadline: 2n ** 255n },
    } as const
    expect(await rule(golem.account.signTypedData(permit))).toBe('typed-data-is-delegation')
  })

  it('refuses a "Delegation" primary type with extra or changed types', async () => {
    const { golem } = setup()
    const td = golem.delegationTypedData(subDelegation(golem.address)) as { types: Record<string, unknown> }
    const extra = { ...td, types: { ...td.types, Extra: [{ name: 'x', type: 'uint256' }] } }
    expect(await rule(golem.account.signTypedData(extra as never))).toBe('typed-data-is-delegation')
  })

  it.each<[string, (a: Address) => Parameters<typeof subDelegation>[1]]>([
    ['own-delegation', () => ({ delegator: RANDOM_TARGET })],
    ['sub-delegation-only', () => ({ authority: `0x${'ff'.repeat(32)}` })],
    ['no-open-delegation', () => ({ delegate: '0x0000000000000000000000000000000000000a11' })],
    ['caveats-required', () => ({ caveats: [] })],
  ])('refuses a delegation (%s)', async (expected, override) => {
    const { golem } = setup()
    expect(await rule(golem.signDelegation(subDelegation(golem.address, override(golem.address))))).toBe(expected)
  })

  it('refuses a Delegation for another chain or DelegationManager', async () => {
    const { golem } = setup()
    const td = golem.delegationTypedData(subDelegation(golem.address)) as { domain: Record<string, unknown> }
    expect(await rule(golem.account.signTypedData({ ...td, domain: { ...td.domain, chainId: 1 } } as never))).toBe('delegation-domain')
    expect(await rule(golem.account.signTypedData({ ...td, domain: { ...td.domain, verifyingContract: RANDOM_TARGET } } as never))).toBe(
      'delegation-domain',
    )
  })

  it('viem account signTransaction and signTypedData run the same policy and succeed on allowed input', async () => {
    const { golem } = setup()
    const signed = await golem.account.signTransaction(
      tx({ data: encodeFunctionData({ abi: DelegationManager, functionName: 'redeemDelegations', args: [[], [], []] }) }),
    )
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(golem.address)
    const td = golem.delegationTypedData(subDelegation(golem.address))
    const sig = await golem.account.signTypedData(td as never)
    expect(await recoverTypedDataAddress({ ...typed(td), signature: sig })).toBe(golem.address)
    expect(hashTypedData(td)).toMatch(/^0x[0-9a-f]{64}$/)
    expect(redeemCalldata().slice(0, 10)).toBe(REDEEM_DELEGATIONS_SELECTOR)
  })

  it('rejects an invalid policy config, naming the field', () => {
    const key = MemoryKey.generate()
    expect(() => new GolemSigner({ signer: key.toRawSigner(), policy: policy({ chainId: 0 }) })).toThrow(/policy.chainId/)
    expect(() => new GolemSigner({ signer: key.toRawSigner(), policy: policy({ delegationManager: '0x12' as Address }) })).toThrow(
      /policy.delegationManager/,
    )
  })
})
