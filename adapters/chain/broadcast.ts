// Broadcasting a signed transaction and learning its receipt in as few requests as the node allows.
// A node that speaks `eth_sendRawTransactionSync` (EIP-7966: anvil, geth and several L2s) answers the
// send with the receipt itself: one request for send and receipt. Any other node gets the plain
// `eth_sendRawTransaction`, and the receipt comes from the block watcher (blockReceipts.ts). Either way
// the caller has recorded the signed bytes first, so a send whose answer is lost is settled from the
// chain by the next attempt, never signed again.
import {
  MethodNotFoundRpcError,
  MethodNotSupportedRpcError,
  TimeoutError,
  UnsupportedProviderMethodError,
  type Chain,
  type Client,
  type Hex,
  type TransactionReceipt,
  type Transport,
} from 'viem'
import { sendRawTransaction, sendRawTransactionSync } from 'viem/actions'

type BroadcastClient = Client<Transport, Chain | undefined>

export type Broadcast =
  /** Mined: the node answered the send with the receipt. */
  | { kind: 'receipt'; receipt: TransactionReceipt }
  /** In the node's pool (or already known to it): the receipt is still to be waited for. */
  | { kind: 'pending' }
  /** The nonce is taken by another transaction: ours may never be mined. */
  | { kind: 'nonceTooLow' }

/**
 * What a node's refusal of a raw transaction means for the slot:
 * - `sent`: it already has this very transaction (a re-broadcast, or a lost response to our first send);
 * - `nonceTooLow`: the nonce is taken, by a mined transaction ("nonce too low") or by a pending one from
 *   another process signing for the same key ("replacement transaction underpriced", geth's and
 *   anvil's words for a different transaction at a pending nonce); ours may never be mined;
 * - `unknown`: anything else, for the caller to throw.
 */
export function classifyBroadcastError(error: unknown): 'sent' | 'nonceTooLow' | 'unknown' {
  const text = String(error)
  if (/already known|known transaction|already imported/i.test(text)) return 'sent'
  if (/nonce too low|replacement transaction underpriced|replacement fee too low/i.test(text)) return 'nonceTooLow'
  return 'unknown'
}

/** Clients whose node refused `eth_sendRawTransactionSync` as unknown: they send the plain way from then on. */
const withoutSyncSend = new WeakSet<object>()

/** A node that does not know the method never saw the transaction, so sending it the plain way is safe. */
function isUnsupportedMethod(error: unknown): boolean {
  return (
    error instanceof MethodNotFoundRpcError ||
    error instanceof MethodNotSupportedRpcError ||
    error instanceof UnsupportedProviderMethodError ||
    /method not found|unsupported method|method .* (does not exist|is not available|not supported)/i.test(String(error))
  )
}

/**
 * The node accepted the transaction but gave up waiting for its block (EIP-7966's code 4), or our own
 * request timed out while the node waited: the transaction is most likely in its pool. Waiting for the
 * receipt is safe either way; if it never arrives the wait times out and the slot is settled later.
 */
function isSyncTimeout(error: unknown): boolean {
  if (error instanceof TimeoutError) return true
  const code = (error as { code?: unknown }).code
  return code === 4 || /wasn't processed|not processed with/i.test(String(error))
}

/**
 * `sync: false` sends the plain way whatever the node speaks: a re-broadcast after a failed attempt does,
 * so a node that refuses the sync send in words we do not recognise delays a transaction by one
 * attempt, never strands it.
 */
export async function broadcastSigned(client: BroadcastClient, raw: Hex, options: { sync?: boolean } = {}): Promise<Broadcast> {
  if (options.sync !== false && !withoutSyncSend.has(client)) {
    try {
      // A reverted transaction is still mined: its receipt is the answer, not an error.
      return { kind: 'receipt', receipt: await sendRawTransactionSync(client, { serializedTransaction: raw, throwOnReceiptRevert: false }) }
    } catch (error) {
      if (isUnsupportedMethod(error)) withoutSyncSend.add(client)
      else if (isSyncTimeout(error)) return { kind: 'pending' }
      else return refusal(error)
    }
  }
  try {
    await sendRawTransaction(client, { serializedTransaction: raw })
    return { kind: 'pending' }
  } catch (error) {
    return refusal(error)
  }
}

function refusal(error: unknown): Broadcast {
  const kind = classifyBroadcastError(error)
  if (kind === 'unknown') throw error
  return kind === 'sent' ? { kind: 'pending' } : { kind: 'nonceTooLow' }
}
