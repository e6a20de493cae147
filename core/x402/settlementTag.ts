// Binds an on-chain settlement to the claim it was sent for. The settlement account appends this tag
// to the transferWithAuthorization calldata (the token ignores trailing bytes), so reconciliation can
// tell a transfer this ledger submitted for this Golem and kind from any other use of the same
// authorization: another deployment's, or the same payment header replayed for another Golem.
import { concatHex, encodeAbiParameters, keccak256, size, sliceHex, type Address, type Hex } from 'viem'
import type { PaymentKind } from './pricing.ts'

/** Four bytes that mark a Bardo settlement tag at the end of the calldata. */
export const SETTLEMENT_TAG_MAGIC: Hex = '0xba4d0402'
/** The magic and a 32-byte digest. */
export const SETTLEMENT_TAG_BYTES = 36

export type SettlementBinding = {
  /** Names the ledger (one per deployment): two ledgers never accept each other's settlements. */
  ledgerId: string
  payer: Address
  nonce: Hex
  golemId: string
  kind: PaymentKind
  amount: bigint
}

export function settlementTag(b: SettlementBinding): Hex {
  const digest = keccak256(
    encodeAbiParameters(
      [{ type: 'string' }, { type: 'address' }, { type: 'bytes32' }, { type: 'string' }, { type: 'string' }, { type: 'uint256' }],
      [b.ledgerId, b.payer, b.nonce, b.golemId, b.kind, b.amount],
    ),
  )
  return concatHex([SETTLEMENT_TAG_MAGIC, digest])
}

/** True when `input` (a transaction's calldata) ends with exactly this tag. */
export function carriesSettlementTag(input: Hex, tag: Hex): boolean {
  if (size(input) < SETTLEMENT_TAG_BYTES) return false
  return sliceHex(input, size(input) - SETTLEMENT_TAG_BYTES).toLowerCase() === tag.toLowerCase()
}
