// encodeRedemptions and encodeDisableDelegation build the kit's own calldata from its parts (so a tick
// bundles neither the kit's every-ABI `contracts` object nor MetaMask's utils library): the bytes are
// checked equal to `contracts.DelegationManager.encode.*` for chains of one and two delegations, single,
// split and batch executions.
import { contracts, ExecutionMode, ROOT_AUTHORITY, type Delegation } from '@metamask/smart-accounts-kit'
import { encodeDelegations } from '@metamask/smart-accounts-kit/utils'
import { describe, expect, it } from 'vitest'
import { encodeFunctionData, erc20Abi, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import {
  encodeDelegationChain,
  encodeDisableDelegation,
  encodeRedemptions,
  firstExecutionTransferAmount,
  firstExecutionValue,
  signedExecutionValue,
  signedTransferAmount,
} from './redeem.ts'

const a = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as const
const root: Delegation = {
  delegate: a(2),
  delegator: a(1),
  authority: ROOT_AUTHORITY,
  caveats: [
    { enforcer: a(10), terms: '0x1234', args: '0x' },
    { enforcer: a(11), terms: `0x${'ab'.repeat(36)}`, args: '0x01' },
  ],
  salt: '0x0000000000000000000000000000000000000000000000000000000000000007',
  signature: `0x${'11'.repeat(65)}`,
}
const leaf: Delegation = {
  delegate: a(3),
  delegator: a(2),
  authority: `0x${'cd'.repeat(32)}`,
  caveats: [],
  salt: '0x05',
  signature: `0x${'22'.repeat(65)}`,
}
const transfer = { target: a(20), value: 0n, callData: '0xa9059cbb0000' as const }
const pay = { target: a(21), value: 5n, callData: '0x' as const }

describe('encodeRedemptions', () => {
  it('is the kit encoding of the same redemptions', () => {
    expect(encodeRedemptions([{ chain: [root], executions: [transfer] }])).toBe(
      contracts.DelegationManager.encode.redeemDelegations({
        delegations: [[root]],
        modes: [ExecutionMode.SingleDefault],
        executions: [[transfer]],
      }),
    )
    expect(encodeRedemptions([{ chain: [leaf, root], executions: [transfer, pay] }])).toBe(
      contracts.DelegationManager.encode.redeemDelegations({
        delegations: [
          [leaf, root],
          [leaf, root],
        ],
        modes: [ExecutionMode.SingleDefault, ExecutionMode.SingleDefault],
        executions: [[transfer], [pay]],
      }),
    )
    expect(
      encodeRedemptions([
        { chain: [leaf, root], executions: [transfer, pay], mode: 'batch' },
        { chain: [root], executions: [pay] },
      ]),
    ).toBe(
      contracts.DelegationManager.encode.redeemDelegations({
        delegations: [[leaf, root], [root]],
        modes: [ExecutionMode.BatchDefault, ExecutionMode.SingleDefault],
        executions: [[transfer, pay], [pay]],
      }),
    )
  })

  it('encodes a chain as the kit does', () => {
    expect(encodeDelegationChain([leaf, root])).toBe(encodeDelegations([leaf, root]))
    expect(encodeDelegationChain([])).toBe(encodeDelegations([]))
  })

  it('refuses what it refused before: no redemptions, no executions, an unsigned delegation', () => {
    expect(() => encodeRedemptions([])).toThrow('redemptions')
    expect(() => encodeRedemptions([{ chain: [root], executions: [] }])).toThrow('redemptions[0].executions')
    expect(() => encodeRedemptions([{ chain: [{ ...root, signature: '0x' }], executions: [pay] }])).toThrow('redemptions[0].chain[0]')
  })
})

describe('encodeDisableDelegation', () => {
  it('is the kit encoding', () => {
    for (const d of [root, leaf])
      expect(encodeDisableDelegation(d)).toBe(contracts.DelegationManager.encode.disableDelegation({ delegation: d }))
  })
})

describe('firstExecutionValue', () => {
  it('reads the native value of the first single execution back from the calldata', () => {
    expect(firstExecutionValue(encodeRedemptions([{ chain: [leaf, root], executions: [pay] }]))).toBe(5n)
    expect(firstExecutionValue(encodeRedemptions([{ chain: [root], executions: [transfer] }]))).toBe(0n)
  })

  it('is null for a batch, for other calldata and for bytes that are no calldata', () => {
    expect(firstExecutionValue(encodeRedemptions([{ chain: [root], executions: [pay, transfer], mode: 'batch' }]))).toBeNull()
    expect(firstExecutionValue(encodeDisableDelegation(root))).toBeNull()
    expect(firstExecutionValue('0x1234')).toBeNull()
  })
})

describe('firstExecutionTransferAmount', () => {
  const usdcTransfer = {
    target: a(20),
    value: 0n,
    callData: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [a(22), 20_000_000n] }),
  }

  it("reads the amount of the first single execution's ERC-20 transfer back from the calldata", () => {
    expect(firstExecutionTransferAmount(encodeRedemptions([{ chain: [leaf, root], executions: [usdcTransfer] }]))).toBe(20_000_000n)
    expect(firstExecutionTransferAmount(encodeRedemptions([{ chain: [root], executions: [usdcTransfer, pay] }]))).toBe(20_000_000n)
  })

  it('is null for a native payment, a batch, a call that is no transfer and bytes that are no calldata', () => {
    const approve = { ...usdcTransfer, callData: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [a(22), 1n] }) }
    expect(firstExecutionTransferAmount(encodeRedemptions([{ chain: [root], executions: [pay] }]))).toBeNull()
    expect(firstExecutionTransferAmount(encodeRedemptions([{ chain: [root], executions: [usdcTransfer, pay], mode: 'batch' }]))).toBeNull()
    expect(firstExecutionTransferAmount(encodeRedemptions([{ chain: [root], executions: [approve] }]))).toBeNull()
    expect(firstExecutionTransferAmount(encodeRedemptions([{ chain: [root], executions: [transfer] }]))).toBeNull()
    expect(firstExecutionTransferAmount(encodeDisableDelegation(root))).toBeNull()
    expect(firstExecutionTransferAmount('0x1234')).toBeNull()
  })
})

describe('signedTransferAmount and signedExecutionValue', () => {
  const key = privateKeyToAccount(`0x${'42'.repeat(32)}`)
  const signed = (data: Hex) =>
    key.signTransaction({
      type: 'eip1559',
      chainId: 31337,
      nonce: 3,
      to: a(30),
      data,
      gas: 300_000n,
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
    })
  const usdcTransfer = {
    target: a(20),
    value: 0n,
    callData: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [a(22), 7_000_000n] }),
  }

  it('read what a signed redemption moves from the signed transaction itself', async () => {
    expect(signedTransferAmount(await signed(encodeRedemptions([{ chain: [leaf, root], executions: [usdcTransfer] }])))).toBe(7_000_000n)
    expect(signedExecutionValue(await signed(encodeRedemptions([{ chain: [root], executions: [pay] }])))).toBe(5n)
  })

  it('are null for a transaction that is no such redemption and for bytes that are no transaction', async () => {
    expect(signedTransferAmount(await signed(encodeRedemptions([{ chain: [root], executions: [pay] }])))).toBeNull()
    expect(signedExecutionValue(await signed(encodeDisableDelegation(root)))).toBeNull()
    expect(signedTransferAmount('0x1234')).toBeNull()
    expect(signedExecutionValue('0x02')).toBeNull()
  })
})
