// When an x402 credit is final, and what to do with one whose settlement is not. Pure: the chain's
// answers about the recorded settlement come in, the verdict goes out. A credit is final only once its
// settlement's receipt is as deep as the chain's confirmation depth (core/finality.ts); until then it
// is settled-but-pending and grants no runtime: the life extension is applied when the credit goes
// final, never provisionally, so a reorg never has runtime to take back. A settlement whose receipt is
// gone is found again from the same signed bytes while its authorization is still valid; one that can
// no longer land (its authorization expired with the nonce unused) is reversed: nothing moved, nothing
// is credited, and the payer reads the reversal on the payment's status.
import { receiptStanding } from '../finality.ts'

/** What the chain says about a recorded settlement. */
export type SettlementSighting =
  /** Its receipt, in the block `blockNumber`, with the chain's head at `head`. */
  | { kind: 'receipt'; blockNumber: bigint; head: bigint }
  /** No receipt, but the node knows the transaction by its hash (in its pool). */
  | { kind: 'known' }
  /**
   * No receipt and unknown by hash. `authorizationUsed`: the token reports the payer's authorization
   * nonce as used (another transaction carried the same authorization). `now` and `validBefore` are
   * unix seconds; `hasSignedTx`: the settlement's signed bytes are recorded to send again.
   */
  | { kind: 'gone'; authorizationUsed: boolean; hasSignedTx: boolean; now: bigint; validBefore: bigint }

export type CreditVerdict =
  /** Deep enough: the credit is final and its runtime is granted, once. */
  | { kind: 'final'; confirmations: number }
  /** Mined, not deep enough: settled-but-pending, no runtime yet; look again later. */
  | { kind: 'confirming'; confirmations: number; needed: number }
  /** In the pool: look again later. */
  | { kind: 'wait' }
  /** Gone, authorization unused and still valid: broadcast the same signed bytes again. */
  | { kind: 'rebroadcast' }
  /** Gone, but the authorization was used by another transaction: the money moved; find that transfer and judge its depth. */
  | { kind: 'landedElsewhere' }
  /** Gone, unused and expired: it can never land. The credit is reversed; nothing moved. */
  | { kind: 'reverse'; reason: 'authorization-expired' }
  /** Gone, unused, still valid, with no signed bytes to send: the payer's authorization may still be broadcast by anyone; look again later. */
  | { kind: 'unknown' }

/** The rule for a pending credit, at confirmation depth `depth`. */
export function judgeCredit(sighting: SettlementSighting, depth: number): CreditVerdict {
  switch (sighting.kind) {
    case 'receipt':
      return receiptStanding(sighting, depth)
    case 'known':
      return { kind: 'wait' }
    case 'gone':
      if (sighting.authorizationUsed) return { kind: 'landedElsewhere' }
      if (sighting.now >= sighting.validBefore) return { kind: 'reverse', reason: 'authorization-expired' }
      return sighting.hasSignedTx ? { kind: 'rebroadcast' } : { kind: 'unknown' }
  }
}

/** A credit's standing: only a final one grants runtime. */
export type CreditStanding = 'pending' | 'final' | 'reversed'

/** The runtime (seconds) a credit of `seconds` grants in `standing`: all of it when final, none otherwise. */
export function grantedRuntime(standing: CreditStanding, seconds: bigint): bigint {
  return standing === 'final' ? seconds : 0n
}
