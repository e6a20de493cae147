// Sends a batch of transactions from one local account: prepared and signed in parallel, then each
// submitted only once the one before it is mined.
//
// Anvil's automine can leave a transaction that arrives while its predecessor is being mined in the pool's
// queue for good (foundry-rs/foundry#10122): the pool checks its nonce against the state before the
// predecessor's block, files it behind a gap that is then closed without promoting it, no block comes,
// and a receipt wait runs to its timeout. Submitting in nonce order made that rare, not impossible. Each
// transaction here goes out through `eth_sendRawTransactionSync`, which answers with its receipt, so the
// next one is checked against a state that already holds its predecessor.
import type { Account, Address, Chain, SendTransactionParameters, TransactionReceipt, Transport, WalletClient } from 'viem'
import { getBlockNumber, getTransactionCount, sendRawTransactionSync } from 'viem/actions'
import { LocalStackError } from './errors.ts'

export type BatchTransaction = Omit<SendTransactionParameters<Chain, Account>, 'account' | 'chain' | 'nonce'>

/**
 * The receipts of `transactions`, sent from `wallet`'s account in order, each after the one before it is
 * mined. A reverted transaction is returned as its receipt (the caller judges it). A transaction whose
 * receipt does not come within the wallet transport's timeout stops the batch with an error that says what
 * the node holds.
 */
export async function sendInOrder(
  wallet: WalletClient<Transport, Chain, Account>,
  transactions: readonly BatchTransaction[],
): Promise<TransactionReceipt[]> {
  const first = await getTransactionCount(wallet, { address: wallet.account.address, blockTag: 'pending' })
  const signed = await Promise.all(
    transactions.map(async (tx, i) => {
      const request = await wallet.prepareTransactionRequest({ ...tx, nonce: first + i } as never)
      return wallet.signTransaction(request as never)
    }),
  )
  const receipts: TransactionReceipt[] = []
  for (const [i, serializedTransaction] of signed.entries()) {
    try {
      receipts.push(await sendRawTransactionSync(wallet, { serializedTransaction, throwOnReceiptRevert: false }))
    } catch (error) {
      throw new LocalStackError(
        'DEVNET',
        `transaction ${i + 1} of a local batch of ${signed.length} was not mined: ${await poolState(wallet, wallet.account.address)}`,
        { cause: error },
      )
    }
  }
  return receipts
}

/** The pool as anvil's `txpool_inspect` answers it: per sender, per nonce, a summary line. */
type PoolInspection = { pending?: Record<string, Record<string, string>>; queued?: Record<string, Record<string, string>> }

/**
 * What the node holds for `sender`: its block number, the sender's mined and pending nonces, and the
 * nonces its pool has pending and queued for the sender, so a stuck batch shows whether a transaction sits
 * queued behind a gap or never arrived.
 */
async function poolState(client: WalletClient<Transport, Chain, Account>, sender: Address): Promise<string> {
  const nonces = (pool: Record<string, Record<string, string>> | undefined) =>
    Object.keys(Object.entries(pool ?? {}).find(([address]) => address.toLowerCase() === sender.toLowerCase())?.[1] ?? {}).join(',') ||
    'none'
  try {
    const [block, mined, pending, pool] = await Promise.all([
      getBlockNumber(client, { cacheTime: 0 }),
      getTransactionCount(client, { address: sender, blockTag: 'latest' }),
      getTransactionCount(client, { address: sender, blockTag: 'pending' }),
      client.request({ method: 'txpool_inspect' } as never) as Promise<PoolInspection>,
    ])
    return `block ${block}; ${sender} nonce ${mined} mined, ${pending} pending; pool pending [${nonces(pool.pending)}], queued [${nonces(pool.queued)}]`
  } catch (error) {
    return `the node's state could not be read (${error instanceof Error ? error.name : 'unknown error'})`
  }
}
