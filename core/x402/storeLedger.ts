// The durable ledger: PaymentLedger over core/store's PaymentStore (conditional writes on one
// DynamoDB item per (payer, nonce)), so "credited once" holds across Lambda instances and restarts.
import type { PaymentStore } from '../store/store.ts'
import { boundField, type ClaimOutcome, type PaymentLedger } from './ledger.ts'

export function paymentLedgerFromStore(store: PaymentStore): PaymentLedger {
  return {
    async claim(ref, claim): Promise<ClaimOutcome> {
      const result = await store.claimPayment({
        ...ref,
        golemId: claim.golemId,
        kind: claim.kind,
        amount: claim.amount,
        owner: claim.owner,
        now: claim.now,
        leaseMs: claim.leaseMs,
      })
      if (result.claimed) return 'claimed'
      const bound = boundField(result.existing, claim)
      if (bound !== null) return { boundTo: bound }
      return result.existing.status === 'settled' ? 'duplicate' : 'pending-elsewhere'
    },
    async markSettled(ref, settled) {
      // The record keeps kind and amount; an extend credit's seconds follow from them and the pricing.
      const result = await store.creditPaymentOnce({
        ...ref,
        golemId: settled.credit.golemId,
        kind: settled.credit.kind,
        amount: settled.credit.amount,
        txHash: settled.txHash,
        owner: settled.owner,
        now: settled.now,
        ...(settled.signedTx === undefined ? {} : { signedTx: settled.signedTx }),
        ...(settled.validBefore === undefined ? {} : { validBefore: settled.validBefore }),
      })
      return result.credited ? 'settled' : 'duplicate'
    },
    async release(ref, owner) {
      await store.releasePayment({ ...ref, owner })
    },
  }
}
