// One account's own transactions, sent one at a time and each awaited: a revert is refused by name, and a
// nonce taken by a send of the same account elsewhere (the heartbeat, an x402 settlement) is retried once.
// Each is sent with headroom over the node's exact gas estimate (withGasHeadroom).
import type { Account, Address, Chain, Hex, PublicClient, Transport, WalletClient } from 'viem'
import { estimateGasWithHeadroom } from './gasHeadroom.ts'

export type TransactionCall = { to: Address; data?: Hex; value?: bigint }

/** Sends one transaction and waits for it; throws when it reverts. */
export interface TransactionSender {
  send(call: TransactionCall): Promise<Hex>
}

export function serialSender(
  publicClient: Pick<PublicClient, 'waitForTransactionReceipt'>,
  wallet: WalletClient<Transport, Chain, Account>,
  reverted: (hash: Hex, call: TransactionCall) => Error,
): TransactionSender {
  let queue: Promise<unknown> = Promise.resolve()
  const sendOnce = async (call: TransactionCall) => {
    const request = { to: call.to, data: call.data, value: call.value }
    const gas = await estimateGasWithHeadroom(wallet, { account: wallet.account, ...request })
    const hash = await wallet.sendTransaction({ ...request, gas })
    const receipt = await publicClient.waitForTransactionReceipt({ hash })
    if (receipt.status !== 'success') throw reverted(hash, call)
    return hash
  }
  return {
    send(call) {
      const run = queue.then(async () => {
        try {
          return await sendOnce(call)
        } catch (error) {
          if (!/nonce/i.test(String((error as Error).message))) throw error
          return sendOnce(call)
        }
      })
      queue = run.catch(() => undefined)
      return run
    },
  }
}

/** Whether an account has code on the chain (a deployed smart account or contract). */
export async function hasCode(client: Pick<PublicClient, 'getCode'>, address: Address): Promise<boolean> {
  const code = await client.getCode({ address })
  return code !== undefined && code !== '0x'
}
