// What a payment needs from whoever verifies and settles it on-chain. The in-process facilitator in
// adapters/x402/settlement.ts implements it; tests may wrap it to record or inject faults.
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types'
import type { Address, Hex } from 'viem'

/**
 * A settlement of one authorization found on-chain (for reconciling after a crash or a lost receipt):
 * `from`/`to`/`value` are the Transfer's, `submitter` and `input` the transaction's sender and calldata.
 */
export type OnChainSettlement = {
  txHash: Hex
  from: Address
  to: Address
  value: bigint
  blockNumber: bigint
  submitter: Address
  input: Hex
}

export type SettlementQuery = { asset: Address; payer: Address; nonce: Hex; erc7710?: { tag: Hex } }

/** `tag` is appended to the settlement calldata, binding the transfer to the claim it was sent for. */
export type SettleOptions = { tag?: Hex }

/** What processPayment needs from a facilitator; tests may pass a recording wrapper around the real one. */
export interface PaymentFacilitator {
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse>
  settle(payload: PaymentPayload, requirements: PaymentRequirements, options?: SettleOptions): Promise<SettleResponse>
  /**
   * The successful transferWithAuthorization that used (payer, nonce) on `asset`, if any. Used only
   * when the token says the nonce is spent but the ledger has no credit for it. For an ERC-7710
   * payment (`erc7710`), the successful redemption moving the payer's `asset` whose calldata carries
   * `tag`: a delegation has no nonce on-chain, and the tag names the claim.
   */
  findSettlement(query: SettlementQuery): Promise<OnChainSettlement | null>
  /**
   * The signed transaction of a settlement this facilitator sent (by its hash), handed over once, to be
   * recorded with the credit so a reorg that drops it can be answered by sending the same bytes again.
   * Absent, or undefined for a hash: no bytes to record (the credit is then found again only by the payer's authorization).
   */
  takeSignedSettlement?(txHash: Hex): Hex | undefined
  /** The account that submits this facilitator's settlements: reconciliation accepts no other sender. */
  readonly settlementAccount: Address
}
