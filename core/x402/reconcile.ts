// Whether a transfer found on-chain may be credited to the claim in hand (crash recovery: the token
// says the authorization is used, but this ledger holds no credit for it). Only a settlement this
// deployment's settlement account submitted, tagged for this very claim, to the operator, for the
// signed value, counts; anything else is someone else's settlement of the same authorization.
import { isAddressEqual, type Address, type Hex } from 'viem'
import { carriesSettlementTag } from './settlementTag.ts'

/** The facts about an on-chain settlement reconciliation needs (the facilitator reads them). */
export type FoundSettlement = {
  txHash: Hex
  /** Who sent the transaction (paid its gas). */
  submitter: Address
  /** The transaction's calldata, with any trailing tag. */
  input: Hex
  /** The Transfer the authorization made. */
  to: Address
  value: bigint
}

export type ReconcileExpectation = { settlementAccount: Address; payTo: Address; value: bigint; tag: Hex }

export type ReconcileDecision = { accept: true } | { accept: false; field: string; rule: string }

export function reconcileSettlement(found: FoundSettlement, expected: ReconcileExpectation): ReconcileDecision {
  if (!isAddressEqual(found.submitter, expected.settlementAccount)) {
    return {
      accept: false,
      field: 'transaction.from',
      rule: "must be this deployment's settlement account; another party settled this authorization",
    }
  }
  if (!carriesSettlementTag(found.input, expected.tag)) {
    return {
      accept: false,
      field: 'transaction.input',
      rule: 'must carry the settlement tag of this ledger, Golem and kind; the transfer was submitted for another claim',
    }
  }
  if (!isAddressEqual(found.to, expected.payTo))
    return { accept: false, field: 'transfer.to', rule: `must be the operator ${expected.payTo}` }
  if (found.value !== expected.value)
    return { accept: false, field: 'transfer.value', rule: `must equal the signed value ${expected.value}` }
  return { accept: true }
}
