// The chain client a tick needs: viem's bare client extended with only the public actions a tick calls.
// viem's public client binds every public action (ENS, filters, watchers, simulation, signature checks),
// and a bundler keeps them all, about 300 KB minified; a Lambda that ticks carries only these. The type
// is the public client's own methods, picked (estimateGas narrowed to a call from an address), so a full
// public client (the tests', the local stack's) still fits and the compiler refuses a tick that calls
// anything else until it is added here.
import { createClient, type Address, type BaseError, type Chain, type Client, type Hex, type PublicClient, type Transport } from 'viem'
import {
  estimateFeesPerGas,
  getBalance,
  getBlock,
  getTransaction,
  getTransactionCount,
  getTransactionReceipt,
  multicall,
  readContract,
  sendRawTransaction,
} from 'viem/actions'
import { formatTransactionRequest, getEstimateGasError } from 'viem/utils'

/** The public actions a tick calls: its reads, its gas and fee estimates, its broadcast and receipts. */
export type TickChainAction =
  | 'estimateFeesPerGas'
  | 'estimateGas'
  | 'getBalance'
  | 'getBlock'
  | 'getTransaction'
  | 'getTransactionCount'
  | 'getTransactionReceipt'
  | 'multicall'
  | 'readContract'
  | 'sendRawTransaction'

/** A gas estimate for a call from an address the tick names (a Golem key, the operator): never a local account. */
export type TickGasEstimate = { account: Address; to: Address; data?: Hex; value?: bigint }

export type TickChainActions = Pick<PublicClient, Exclude<TickChainAction, 'estimateGas'>> & {
  estimateGas(args: TickGasEstimate): Promise<bigint>
}

/**
 * `eth_estimateGas` from an address, failing with viem's own EstimateGasExecutionError (so a revert
 * decodes as before). viem's estimateGas first fills the transaction as a wallet would
 * (prepareTransactionRequest), which a call from a named address does not need and which is 12 KB of a
 * tick's bundle.
 */
export async function estimateGasFrom(client: Client<Transport, Chain | undefined>, args: TickGasEstimate): Promise<bigint> {
  const request = formatTransactionRequest({ from: args.account, to: args.to, data: args.data, value: args.value })
  try {
    return BigInt(await client.request({ method: 'eth_estimateGas', params: [request] }))
  } catch (error) {
    throw getEstimateGasError(error as BaseError, {
      account: { address: args.account, type: 'json-rpc' },
      chain: client.chain,
      to: args.to,
      data: args.data,
      value: args.value,
    })
  }
}

export type TickChainClient = Client<Transport, Chain | undefined> & TickChainActions

/** Binds the tick's actions to a client, as viem's publicActions binds all of them. */
export function tickChainActions(client: Client<Transport, Chain | undefined>): TickChainActions {
  return {
    estimateFeesPerGas: (args) => estimateFeesPerGas(client, args),
    estimateGas: (args) => estimateGasFrom(client, args),
    getBalance: (args) => getBalance(client, args),
    getBlock: (args) => getBlock(client, args),
    getTransaction: (args) => getTransaction(client, args),
    getTransactionCount: (args) => getTransactionCount(client, args),
    getTransactionReceipt: (args) => getTransactionReceipt(client, args),
    multicall: (args) => multicall(client, args),
    readContract: (args) => readContract(client, args),
    sendRawTransaction: (args) => sendRawTransaction(client, args),
  }
}

export function createTickChainClient(parameters: { transport: Transport; chain?: Chain }): TickChainClient {
  // Not `extend`: viem requires an extension's estimateGas to take every estimateGas parameter.
  const client = createClient(parameters)
  return Object.assign(client, tickChainActions(client))
}
