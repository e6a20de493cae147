// Waiting for a transaction receipt by asking for the receipt itself, every polling interval, until it
// answers or the timeout passes.
//
// viem's `waitForTransactionReceipt` looks the receipt up once, then again only when the block number
// changes. Anvil (foundry-rs/foundry#10944) can report a block before the receipts of its transactions
// are readable; on an automining chain with nothing else to mine, that block number never changes
// again and viem waits until its timeout (180 s by default). Polling the receipt does not depend on a
// next block, costs the same one request per interval on a live chain, and needs no replacement
// detection here: every sender in this project owns its nonces (functions/tick reconciles by nonce).
// The tick's sends (sendOnce) take the receipt from the send itself or read it by block instead
// (broadcast.ts, blockReceipts.ts): one request per block for every transaction of the process, where
// this poll costs one per transaction per interval.
import {
  TransactionReceiptNotFoundError,
  WaitForTransactionReceiptTimeoutError,
  type Chain,
  type Client,
  type Hash,
  type TransactionReceipt,
  type Transport,
} from 'viem'
import { getTransactionReceipt } from 'viem/actions'

export type PollReceiptParameters = {
  hash: Hash
  /** Milliseconds before giving up with viem's WaitForTransactionReceiptTimeoutError. Default 180,000 (viem's). */
  timeout?: number
  /** Milliseconds between lookups. Default: the client's pollingInterval. */
  pollingInterval?: number
}

export async function pollTransactionReceipt(
  client: Client<Transport, Chain | undefined>,
  p: PollReceiptParameters,
): Promise<TransactionReceipt> {
  const timeout = p.timeout ?? 180_000
  const interval = p.pollingInterval ?? client.pollingInterval
  const deadline = Date.now() + timeout
  for (;;) {
    try {
      return await getTransactionReceipt(client, { hash: p.hash })
    } catch (error) {
      // Not mined (or not readable) yet; anything else (a failing RPC) is the caller's to handle.
      if (!(error instanceof TransactionReceiptNotFoundError)) throw error
    }
    const left = deadline - Date.now()
    if (left <= 0) throw new WaitForTransactionReceiptTimeoutError({ hash: p.hash })
    await new Promise((resolve) => setTimeout(resolve, Math.min(interval, left)))
  }
}

/**
 * The same client with `waitForTransactionReceipt` answered by pollTransactionReceipt, so code that
 * calls `client.waitForTransactionReceipt` (the MetaMask kit's deploySmartAccountsEnvironment among
 * it) cannot hang on a block that never comes.
 */
export function withReceiptPolling<C extends Client<Transport, Chain | undefined>>(
  client: C,
  /** The timeout for a caller that names none (the kit names none): viem's 180 s unless given. */
  defaults: { timeout?: number } = {},
): C {
  return client.extend((c) => ({
    waitForTransactionReceipt: (args: PollReceiptParameters) => pollTransactionReceipt(c, { timeout: defaults.timeout, ...args }),
  })) as unknown as C
}
