// The settlement tag and the reconciliation rule, without a chain.
import { getAddress, type Address, type Hex } from 'viem'
import { describe, expect, test } from 'vitest'
import { reconcileSettlement, type FoundSettlement } from './reconcile.ts'
import { carriesSettlementTag, SETTLEMENT_TAG_BYTES, settlementTag, type SettlementBinding } from './settlementTag.ts'

const SETTLER: Address = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
const OPERATOR: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const binding: SettlementBinding = {
  ledgerId: 'stage-a',
  payer: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
  nonce: `0x${'ab'.repeat(32)}`,
  golemId: 'golem-1',
  kind: 'extend',
  amount: 500_000n,
}
const CALLDATA: Hex = `0xe3ee160e${'00'.repeat(288)}`

describe('settlementTag', () => {
  test('is the magic and a digest of every bound term; each term changes it', () => {
    const tag = settlementTag(binding)
    expect(tag).toMatch(/^0xba4d0402[0-9a-f]{64}$/)
    expect((tag.length - 2) / 2).toBe(SETTLEMENT_TAG_BYTES)
    const variants: Partial<SettlementBinding>[] = [
      { ledgerId: 'stage-b' },
      { payer: OPERATOR },
      { nonce: `0x${'cd'.repeat(32)}` },
      { golemId: 'golem-2' },
      { kind: 'feed' },
      { amount: 500_001n },
    ]
    for (const v of variants) expect(settlementTag({ ...binding, ...v })).not.toBe(tag)
    // The payer's spelling does not matter.
    expect(settlementTag({ ...binding, payer: binding.payer.toLowerCase() as Address })).toBe(tag)
  })

  test('carriesSettlementTag looks only at the end of the calldata', () => {
    const tag = settlementTag(binding)
    expect(carriesSettlementTag(`${CALLDATA}${tag.slice(2)}`, tag)).toBe(true)
    expect(carriesSettlementTag(`${CALLDATA}${tag.slice(2).toUpperCase()}` as Hex, tag)).toBe(true)
    expect(carriesSettlementTag(CALLDATA, tag)).toBe(false)
    expect(carriesSettlementTag(`${CALLDATA}${tag.slice(2)}00`, tag)).toBe(false)
    expect(carriesSettlementTag('0x', tag)).toBe(false)
  })
})

describe('reconcileSettlement', () => {
  const tag = settlementTag(binding)
  const found: FoundSettlement = {
    txHash: `0x${'01'.repeat(32)}`,
    submitter: SETTLER,
    input: `${CALLDATA}${tag.slice(2)}`,
    to: OPERATOR,
    value: 500_000n,
  }
  const expected = { settlementAccount: SETTLER, payTo: OPERATOR, value: 500_000n, tag }

  test("accepts only our own account's settlement, tagged for this claim, to the operator, for the signed value", () => {
    expect(reconcileSettlement(found, expected)).toEqual({ accept: true })
    expect(reconcileSettlement({ ...found, submitter: getAddress(SETTLER.toLowerCase()) }, expected)).toEqual({ accept: true })
  })

  test.each([
    ['another sender', { submitter: OPERATOR }, 'transaction.from'],
    ['no tag', { input: CALLDATA }, 'transaction.input'],
    [
      'a tag for another Golem',
      { input: `${CALLDATA}${settlementTag({ ...binding, golemId: 'golem-2' }).slice(2)}` as Hex },
      'transaction.input',
    ],
    [
      'a tag for another ledger',
      { input: `${CALLDATA}${settlementTag({ ...binding, ledgerId: 'stage-b' }).slice(2)}` as Hex },
      'transaction.input',
    ],
    ['another recipient', { to: SETTLER }, 'transfer.to'],
    ['another value', { value: 1n }, 'transfer.value'],
  ] as const)('refuses %s, naming the field', (_, over, field) => {
    expect(reconcileSettlement({ ...found, ...over }, expected)).toMatchObject({ accept: false, field })
  })
})
