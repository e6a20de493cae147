// Sends a batch of transactions from one local account: prepared and signed in parallel, then submitted
// one at a time in nonce order.
//
// Anvil's automine can leave a transaction that arrives before its predecessor in the pool's queue for
// good (foundry-rs/foundry#10122): once the predecessor is mined the follower is never promoted, no
// block comes, and a receipt wait runs to its timeout. Submitting in nonce order never queues one.
import {
  WaitForTransactionReceiptTimeoutError,
  type Account,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
  type SendTransactionParameters,
  type TransactionReceipt,
  type Transport,
  type WalletClient,
} from 'viem'
import { getTransactionCount } from 'viem/actions'
import { LocalStackError } from './errors.ts'

export type BatchTransaction = Omit<SendTransactionParameters<Chain, Account>, 'account' | 'chain' | 'nonce'>

export async function sendInNonceOrder(
  wallet: WalletClient<Transport, Chain, Account>,
  transactions: readonly BatchTransaction[],
): Promise<Hex[]> {
  const first = await getTransactionCount(wallet, { address: wallet.account.address, blockTag: 'pending' })
  const signed = await Promise.all(
    transactions.map(async (tx, i) => {
      const request = await wallet.prepareTransactionRequest({ ...tx, nonce: first + i } as never)
      return wallet.signTransaction(request as never)
    }),
  )
  const hashes: Hex[] = []
  for (const serializedTransaction of signed) hashes.push(await wallet.sendRawTransaction({ serializedTransaction }))
  return hashes
}

/** The pool as anvil's `txpool_inspect` answers it: per sender, per nonce, a summary line. */
type PoolInspection = { pending?: Record<string, Record<string, string>>; queued?: Record<string, Record<string, string>> }

/**
 * The receipts of a batch sent from `sender`. A wait that times out says what the node holds: its block
 * number, the sender's mined and pending nonces, and the nonces its pool has pending and queued for the
 * sender, so a stuck batch shows whether a transaction sits queued behind a gap or never arrived.
 */
export async function batchReceipts(
  publicClient: PublicClient<Transport, Chain>,
  sender: Address,
  hashes: readonly Hex[],
  options: { timeout?: number } = {},
): Promise<TransactionReceipt[]> {
  try {
    return await Promise.all(hashes.map((hash) => publicClient.waitForTransactionReceipt({ hash, ...options })))
  } catch (error) {
    if (!(error instanceof WaitForTransactionReceiptTimeoutError)) throw error
    throw new LocalStackError(
      'DEVNET',
      `a local batch of ${hashes.length} transactions was not mined in time: ${await poolState(publicClient, sender)}`,
      {
        cause: error,
      },
    )
  }
}

async function poolState(publicClient: PublicClient<Transport, Chain>, sender: Address): Promise<string> {
  const nonces = (pool: Record<string, Record<string, string>> | undefined) =>
    Object.keys(Object.entries(pool ?? {}).find(([address]) => address.toLowerCase() === sender.toLowerCase())?.[1] ?? {}).join(',') ||
    'none'
  try {
    const [block, mined, pending, pool] = await Promise.all([
      publicClient.getBlockNumber({ cacheTime: 0 }),
      getTransactionCount(publicClient, { address: sender, blockTag: 'latest' }),
      getTransactionCount(publicClient, { address: sender, blockTag: 'pending' }),
      publicClient.request({ method: 'txpool_inspect' } as never) as Promise<PoolInspection>,
    ])
    return `block ${block}; ${sender} nonce ${mined} mined, ${pending} pending; pool pending [${nonces(pool.pending)}], queued [${nonces(pool.queued)}]`
  } catch (error) {
    return `the node's state could not be read (${error instanceof Error ? error.name : 'unknown error'})`
  }
}
