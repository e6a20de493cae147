// Sends a batch of transactions from one local account: prepared and signed in parallel, then submitted
// one at a time in nonce order.
//
// Anvil's automine can leave a transaction that arrives before its predecessor in the pool's queue for
// good (foundry-rs/foundry#10122): once the predecessor is mined the follower is never promoted, no
// block comes, and a receipt wait runs to its timeout. Submitting in nonce order never queues one.
import type { Account, Chain, Hex, SendTransactionParameters, Transport, WalletClient } from 'viem'
import { getTransactionCount } from 'viem/actions'

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
