// A transaction refused because the account that sends it cannot pay (viem's InsufficientFundsError:
// "the total cost ... exceeds the balance of the account"), said as the account, what it does, what it
// holds and how to fund it, instead of the node's words. The local chain's faucet is named on 31337 only.
import { BaseError, formatEther, InsufficientFundsError, type Account, type Address } from 'viem'
import { BardoError } from '../core/errors.ts'
import type { CliChain } from './context.ts'

/** The node's words for an account that cannot pay, for errors viem did not turn into InsufficientFundsError. */
const UNFUNDED_TEXT = /exceeds the balance of the account|insufficient funds/i

export class CliUnfundedError extends BardoError {
  readonly variable: string
  readonly account: Address
  readonly heldWei: bigint
  constructor(o: { variable: string; account: Address; role: string; heldWei: bigint; chainId: number }) {
    super(
      'CLI_UNFUNDED',
      `${o.variable}: account ${o.account} ${o.role} and cannot pay its gas (it holds ${formatEther(o.heldWei)} ETH): send it ETH${o.chainId === 31337 ? ` (locally: npm run faucet -- ${o.account} 0 1)` : ''}`,
      { details: { variable: o.variable, account: o.account, heldWei: o.heldWei.toString() } },
    )
    this.variable = o.variable
    this.account = o.account
    this.heldWei = o.heldWei
  }
}

/** Whether the error is the chain refusing a transaction its sender cannot pay for. */
export function isUnfunded(error: unknown): boolean {
  if (error instanceof BaseError && error.walk((e) => e instanceof InsufficientFundsError) !== null) return true
  return error instanceof Error && !(error instanceof BardoError) && UNFUNDED_TEXT.test(error.message)
}

/**
 * Runs one send; when its sender cannot pay, refuses with a CliUnfundedError naming `variable` (the key
 * behind the account) and `role` (what the account was doing, e.g. "submits the owner's transaction").
 */
export async function sendingAs<T>(
  sending: Promise<T>,
  o: {
    chain: Pick<CliChain, 'chainId'> & { publicClient: Pick<CliChain['publicClient'], 'getBalance'> }
    account: Address
    variable: string
    role: string
  },
): Promise<T> {
  try {
    return await sending
  } catch (error) {
    if (!isUnfunded(error)) throw error
    const heldWei = await o.chain.publicClient.getBalance({ address: o.account })
    throw new CliUnfundedError({ variable: o.variable, account: o.account, role: o.role, heldWei, chainId: o.chain.chainId })
  }
}

/** Who submits the owner's user operations (BARDO_SUBMITTER_KEY, else the owner's own key). */
export function submitterRole(chain: CliChain, submitter: Pick<Account, 'address'>) {
  return { chain, account: submitter.address, variable: 'BARDO_SUBMITTER_KEY', role: "submits the owner's transaction" }
}
