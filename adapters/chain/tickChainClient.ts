// The chain client a tick needs: viem's bare client extended with only the public actions a tick calls.
// viem's public client binds every public action (ENS, filters, watchers, simulation, signature checks),
// and a bundler keeps them all, about 300 KB minified; a Lambda that ticks carries only these. The type
// is the public client's own methods, picked, so a full public client (the tests', the local stack's)
// still fits and the compiler refuses a tick that calls anything else until it is added here.
import { createClient, type Chain, type Client, type PublicClient, type Transport } from 'viem'
import {
  estimateFeesPerGas,
  estimateGas,
  getBalance,
  getBlock,
  getTransaction,
  getTransactionCount,
  getTransactionReceipt,
  multicall,
  readContract,
  sendRawTransaction,
} from 'viem/actions'

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

export type TickChainActions = Pick<PublicClient, TickChainAction>

export type TickChainClient = Client<Transport, Chain | undefined> & TickChainActions

/** Binds the tick's actions to a client, as viem's publicActions binds all of them. */
export function tickChainActions(client: Client<Transport, Chain | undefined>): TickChainActions {
  return {
    estimateFeesPerGas: (args) => estimateFeesPerGas(client, args),
    estimateGas: (args) => estimateGas(client, args),
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
  return createClient(parameters).extend(tickChainActions)
}
