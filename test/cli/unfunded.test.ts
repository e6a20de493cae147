// An owner act (or any CLI transaction) refused because its sender cannot pay is said as the account,
// what it lacks and how to fund it: viem's InsufficientFundsError, however deeply wrapped, and the
// node's own words when viem did not type them. Every other error passes through untouched.
import { InsufficientFundsError, TransactionExecutionError, type Address } from 'viem'
import { describe, expect, it } from 'vitest'
import { CliUnfundedError, isUnfunded, sendingAs, submitterRole } from '../../cli/unfunded.ts'
import { CliRefusedError } from '../../cli/errors.ts'

const account = '0x1111111111111111111111111111111111111111' as Address
const chainOf = (chainId: number, heldWei = 0n) => ({ chainId, publicClient: { getBalance: async () => heldWei } })
const asSubmitter = (chainId: number, heldWei = 0n) => ({ ...submitterRole(chainOf(chainId, heldWei) as never, { address: account }) })

/** What viem throws from sendTransaction when the node answers "insufficient funds". */
function viemUnfunded(): Error {
  const cause = new InsufficientFundsError({})
  return new TransactionExecutionError(cause, { account: { address: account, type: 'json-rpc' }, chain: undefined })
}

describe('sendingAs', () => {
  it("names the account, what it lacks and the local faucet on chain 31337, from viem's InsufficientFundsError", async () => {
    const error = await sendingAs(Promise.reject(viemUnfunded()), asSubmitter(31337, 5n * 10n ** 14n)).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(CliUnfundedError)
    const e = error as CliUnfundedError
    expect(e.code).toBe('CLI_UNFUNDED')
    expect(e.message).toBe(
      `BARDO_SUBMITTER_KEY: account ${account} submits the owner's transaction and cannot pay its gas (it holds 0.0005 ETH): send it ETH (locally: npm run faucet -- ${account} 0 1)`,
    )
    expect({ variable: e.variable, account: e.account, heldWei: e.heldWei }).toEqual({
      variable: 'BARDO_SUBMITTER_KEY',
      account,
      heldWei: 5n * 10n ** 14n,
    })
  })

  it('names no faucet on another chain', async () => {
    const error = (await sendingAs(Promise.reject(viemUnfunded()), {
      chain: chainOf(8453),
      account,
      variable: 'BARDO_DEPLOYER_KEY',
      role: 'deploys the contracts',
    }).catch((e: unknown) => e)) as Error
    expect(error.message).toBe(
      `BARDO_DEPLOYER_KEY: account ${account} deploys the contracts and cannot pay its gas (it holds 0 ETH): send it ETH`,
    )
  })

  it("turns the node's own words into the same error when viem did not type them", async () => {
    const node = new Error('insufficient funds for gas * price + value: have 0 want 21000')
    expect(isUnfunded(node)).toBe(true)
    expect(
      isUnfunded(new Error('The total cost (gas * gas fee + value) of executing this transaction exceeds the balance of the account.')),
    ).toBe(true)
    await expect(sendingAs(Promise.reject(node), asSubmitter(31337))).rejects.toBeInstanceOf(CliUnfundedError)
  })

  it('passes every other error through unchanged, and a result through untouched', async () => {
    const reverted = new Error('execution reverted')
    await expect(sendingAs(Promise.reject(reverted), asSubmitter(31337))).rejects.toBe(reverted)
    // The CLI's own refusals are never re-read as the chain's words.
    const refusal = new CliRefusedError('--golem', 'insufficient funds is not what this says')
    await expect(sendingAs(Promise.reject(refusal), asSubmitter(31337))).rejects.toBe(refusal)
    await expect(sendingAs(Promise.resolve(7), asSubmitter(31337))).resolves.toBe(7)
  })
})
