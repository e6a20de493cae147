// A settled x402 payment's credit standing, read from the chain and judged by core/x402/creditFinality.ts:
// the settlement's receipt and the head; without a receipt, whether the node still holds it, whether
// the payer's authorization nonce is used on the token, and the chain's time against the
// authorization's validBefore. It acts on the verdict's one side effect: a settlement gone while its
// authorization is unused and valid is broadcast again from its recorded signed bytes (the same
// transaction, never a new signature).
import type { Address, Hex, PublicClient } from 'viem'
import type { JudgedStanding } from '../../core/lifecycle/applyPaymentCredit.ts'
import type { SettledPaymentRecord } from '../../core/store/index.ts'
import { judgeCredit, type SettlementSighting } from '../../core/x402/creditFinality.ts'
import { receiptStanding } from '../../core/finality.ts'
import type { PaymentFacilitator } from '../../core/x402/facilitator.ts'

/** EIP-3009's authorizationState(authorizer, nonce): whether the payer's authorization was used. As JSON, so the tick bundles no ABI parser. */
const authorizationState = {
  type: 'function',
  name: 'authorizationState',
  stateMutability: 'view',
  inputs: [
    { name: 'authorizer', type: 'address' },
    { name: 'nonce', type: 'bytes32' },
  ],
  outputs: [{ type: 'bool' }],
} as const

export type CreditStandingOptions = {
  client: Pick<PublicClient, 'getBlock' | 'getTransactionReceipt' | 'getTransaction' | 'readContract' | 'sendRawTransaction'>
  /** The payment asset (its token holds the authorization nonces). */
  asset: Address
  /** Confirmation depth in blocks (core/finality.ts confirmationDepth). */
  depth: number
  /** Finds the transfer that used the authorization when another transaction carried it. */
  findSettlement: PaymentFacilitator['findSettlement']
  onUnexpectedError?: (error: unknown) => void
}

const notFound = (error: unknown, name: string) => error instanceof Error && error.name === name

export function chainCreditStanding(o: CreditStandingOptions): (payment: SettledPaymentRecord) => Promise<JudgedStanding> {
  const { client } = o
  return async (payment) => {
    // A credit recorded without its settlement's hash has nothing to judge: it stands as recorded.
    if (payment.txHash === null) return { standing: 'final' }
    const head = await client.getBlock({ blockTag: 'latest' })
    const sighting = await sight(o, payment, payment.txHash, head)
    const verdict = judgeCredit(sighting, o.depth)
    switch (verdict.kind) {
      case 'final':
        return { standing: 'final' }
      case 'reverse':
        return { standing: 'reversed', reason: verdict.reason }
      case 'rebroadcast':
        // The same signed bytes: mined at most once, whoever else broadcasts them too.
        await client
          .sendRawTransaction({ serializedTransaction: payment.signedTx! })
          .catch((error: unknown) => o.onUnexpectedError?.(error))
        return { standing: 'pending' }
      case 'landedElsewhere': {
        const found = await o.findSettlement({ asset: o.asset, payer: payment.payer, nonce: payment.nonce })
        if (found === null) return { standing: 'pending' }
        return receiptStanding({ blockNumber: found.blockNumber, head: head.number }, o.depth).kind === 'final'
          ? { standing: 'final' }
          : { standing: 'pending' }
      }
      default:
        return { standing: 'pending' }
    }
  }
}

async function sight(
  o: CreditStandingOptions,
  payment: SettledPaymentRecord,
  hash: Hex,
  head: { number: bigint; timestamp: bigint },
): Promise<SettlementSighting> {
  const receipt = await o.client.getTransactionReceipt({ hash }).catch((error: unknown) => {
    if (notFound(error, 'TransactionReceiptNotFoundError')) return null
    throw error
  })
  // A settlement mined and reverted moved nothing: it is judged like a missing one, without bytes to send again.
  if (receipt !== null && receipt.status === 'success') return { kind: 'receipt', blockNumber: receipt.blockNumber, head: head.number }
  if (receipt === null) {
    const known = await o.client.getTransaction({ hash }).catch((error: unknown) => {
      if (notFound(error, 'TransactionNotFoundError')) return null
      throw error
    })
    if (known !== null) return { kind: 'known' }
  }
  const authorizationUsed = await o.client.readContract({
    address: o.asset,
    abi: [authorizationState],
    functionName: 'authorizationState',
    args: [payment.payer, payment.nonce],
  })
  return {
    kind: 'gone',
    authorizationUsed,
    hasSignedTx: receipt === null && payment.signedTx !== undefined,
    // The token checks validBefore against the block's time: the chain's clock, not the wall's.
    now: head.timestamp,
    // A payment without a recorded validBefore (not an EIP-3009 one) is never judged expired here.
    validBefore: payment.validBefore ?? head.timestamp + 1n,
  }
}
